// Checking the HTTP API's query parameters.
#include "serve/http_api.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

namespace kalah::serve {
namespace {

std::string printable(const std::string& s) {
  std::string out;
  for (unsigned char c : s.substr(0, 40)) out += c >= 0x20 && c < 0x7f ? char(c) : '?';
  return s.size() > 40 ? out + "..." : out;
}

}  // namespace

ApiQuery parse_api_query(const std::multimap<std::string, std::string>& params) {
  for (const auto& [key, value] : params) {
    if (key != "rules" && key != "position" && key != "max_time")
      throw InputError("unknown parameter '" + printable(key) + "' (rules, position, max_time)");
    if (params.count(key) > 1) throw InputError("parameter '" + key + "' given more than once");
    if (value.size() > kMaxParameterBytes)
      throw InputError("parameter '" + key + "' is longer than " +
                       std::to_string(kMaxParameterBytes) + " bytes");
  }
  ApiQuery q;
  if (auto it = params.find("rules"); it != params.end()) q.rules = parse_rules_name(it->second);
  if (auto it = params.find("max_time"); it != params.end()) {
    const std::string& text = it->second;
    char* end = nullptr;
    q.max_time = text.empty() ? 0 : std::strtod(text.c_str(), &end);
    if (text.empty() || !(std::isdigit((unsigned char)text[0]) || text[0] == '.') ||
        end != text.c_str() + text.size() || !std::isfinite(q.max_time) || !(q.max_time > 0))
      throw InputError("parameter 'max_time' must be a number of seconds > 0, not '" +
                       printable(text) + "'");
  }
  const auto it = params.find("position");
  if (it == params.end()) throw InputError("parameter 'position' is required");
  q.position = parse_position(it->second);
  return q;
}

}  // namespace kalah::serve
