// libFuzzer target: any bytes as a URL query string, decoded by parse_query_string, then
// parse_api_query: InputError, or a query that keeps its documented contract and whose position
// round-trips; every decoded parameter encodes and decodes back to itself.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_check.hpp"
#include "tools/serve/http_api.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using kalah::fuzz::check;
  kalah::serve::QueryParams params;
  try {
    params = kalah::serve::parse_query_string(
        std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const kalah::InputError&) {
    return 0;
  } catch (...) {
    kalah::fuzz::unexpected_exception("parse_query_string");
  }
  for (const auto& [key, value] : params) {
    const std::string encoded = kalah::serve::encode_query_component(key) + "=" +
                                kalah::serve::encode_query_component(value);
    const kalah::serve::QueryParams again = kalah::serve::parse_query_string(encoded);
    check(again.size() == 1 && again.begin()->first == key && again.begin()->second == value,
          "a decoded parameter encodes and decodes back to itself");
  }
  kalah::serve::ApiQuery q;
  try {
    q = kalah::serve::parse_api_query(params);
  } catch (const kalah::InputError&) {
    return 0;
  } catch (...) {
    kalah::fuzz::unexpected_exception("parse_api_query");
  }
  // Accepted: position once, rules and max_time at most once, nothing else, every value within
  // the bound, max_time a finite number of seconds > 0 (0 when absent).
  check(params.count("position") == 1, "an accepted query has exactly one position");
  check(params.count("rules") <= 1, "an accepted query has at most one rules");
  check(params.count("max_time") <= 1, "an accepted query has at most one max_time");
  check(
      params.size() == params.count("position") + params.count("rules") + params.count("max_time"),
      "an accepted query has no other parameter");
  check(params.count("max_time") ? std::isfinite(q.max_time) && q.max_time > 0 : q.max_time == 0,
        "q.max_time is the max_time parameter, a finite number > 0, or 0 without one");
  for (const auto& [key, value] : params)
    check(value.size() <= kalah::serve::kMaxParameterBytes,
          "accepted value '" + key + "' too long");
  const auto rules = params.find("rules");
  const auto named =
      rules == params.end() ? kalah::Rules::kWetherell : kalah::parse_rules(rules->second);
  check(named.has_value(), "an accepted rules parameter names a registered rule set");
  check(q.rules == *named, "q.rules is the rules parameter, wetherell without one");
  check(q.position == kalah::parse_position(params.find("position")->second),
        "q.position is parse_position of the position parameter");
  kalah::fuzz::check_round_trip(q.position);
  return 0;
}
