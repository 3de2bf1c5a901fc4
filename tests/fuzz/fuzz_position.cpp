// libFuzzer target: parse_position on any bytes throws InputError or accepts a position that
// round-trips through to_string.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/position.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  kalah::Position p;
  try {
    p = kalah::parse_position(text);
  } catch (const kalah::InputError&) {
    return 0;
  } catch (...) {
    kalah::fuzz::unexpected_exception("parse_position");
  }
  kalah::fuzz::check_round_trip(p);
  return 0;
}
