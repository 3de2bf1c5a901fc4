// The Kalah Game Protocol's lines and boards: parsing what a server sends, formatting replies.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/position.hpp"

namespace kalah::kgp {

// A line that breaks the protocol's grammar or carries a board the engine cannot play; what()
// says what is wrong, in one line.
struct ProtocolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The longest command the protocol allows, trailing white space included.
inline constexpr std::size_t kMaxLineLength = 16384;

// One command: `[ID][@REF] NAME ARG...` (KGP's ABNF). String arguments are unquoted and
// unescaped; integers, reals, words and boards are kept as written.
struct Command {
  std::optional<std::uint64_t> id;   // the command's own ID, when it has one
  std::optional<std::uint64_t> ref;  // the ID of the command it answers, when it has one
  std::string name;
  std::vector<std::string> args;
};

// Parses one line (a trailing CR or LF is allowed). Throws ProtocolError for an empty line, a
// line over kMaxLineLength, a malformed ID or reference, a name that is not alphanumeric, an
// argument of no KGP type or an unterminated string.
Command parse_line(std::string_view line);

// The line (without CRLF) of a command with an optional ID and reference; every argument is
// written as an integer, a word or a board when it is one, else as a quoted string.
std::string format_line(std::optional<std::uint64_t> id, std::optional<std::uint64_t> ref,
                        std::string_view name, const std::vector<std::string>& args = {});

// A string argument in double quotes, with `"`, `\`, newlines and tabs escaped.
std::string quote(std::string_view text);

// A KGP board `<m,south kalah,north kalah,south pits 1..m,north pits 1..m>` as a Position with
// South to move (a KGP state is always played as South). Throws ProtocolError unless it has
// exactly 2m + 3 unsigned integers, m in 1..12, and the counts are ones the engine accepts
// (RULES.md: each at most 65535, at most 65535 stones in all).
Position parse_board(std::string_view board);

// The KGP board of p, South's pits and kalah first whoever is to move.
std::string format_board(const Position& p);

// Whether `kgp MAJOR [MINOR [PATCH]]` announces a protocol this client speaks (major version 1).
// Throws ProtocolError when the command is not a version announcement.
bool supported_version(const Command& c);

}  // namespace kalah::kgp
