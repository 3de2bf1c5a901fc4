// What every fuzz target checks: a contract that holds (or an abort naming the broken one), and
// the round trip of an accepted position through its notation.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "engine/position.hpp"

namespace kalah::fuzz {

// Aborts (a crash libFuzzer records with its input) when ok is false.
inline void check(bool ok, const std::string& contract) {
  if (ok) return;
  std::fprintf(stderr, "fuzz contract broken: %s\n", contract.c_str());
  std::abort();
}

// Aborts on an exception the contract does not allow; call from a catch (...) block.
[[noreturn]] inline void unexpected_exception(const char* where) {
  try {
    throw;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: unexpected exception: %s\n", where, e.what());
  } catch (...) {
    std::fprintf(stderr, "%s: unexpected exception of a non-std type\n", where);
  }
  std::abort();
}

// The fields of p as numbers, independent of the notation under test.
inline std::string fields(const Position& p) {
  std::string s = "m=" + std::to_string(p.m) + " mover=" + side_letter(p.mover) + " cells";
  for (Stones c : p.cell) s += ' ' + std::to_string(c);
  return s;
}

// An accepted position is within the supported bounds, and its notation parses back to it.
inline void check_round_trip(const Position& p) {
  check(p.m >= 1 && p.m <= kMaxPits, "pits per side in 1..kMaxPits");
  check(p.total_stones() <= kMaxTotalStones, "at most kMaxTotalStones stones");
  const std::string text = to_string(p);
  Position back;
  try {
    back = parse_position(text);
  } catch (...) {
    unexpected_exception(("parse_position(to_string(p)), p = '" + text + "'").c_str());
  }
  check(back == p, "parse_position(to_string(p)) == p for p: " + fields(p) + ", '" + text +
                       "' parses to " + fields(back));
}

}  // namespace kalah::fuzz
