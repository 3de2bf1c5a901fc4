// The Kalah Game Protocol's lines and boards: parsing what a server sends, formatting replies.
#include "tools/kgp/kgp_protocol.hpp"

#include <charconv>

namespace kalah::kgp {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_alnum(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_space(char c) {
  return c == ' ' || c == '\t';
}

bool all_of(std::string_view s, bool (*pred)(char)) {
  for (char c : s)
    if (!pred(c)) return false;
  return true;
}

std::uint64_t parse_id(std::string_view digits, const char* what) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
    throw ProtocolError(std::string("malformed ") + what + " '" + std::string(digits) + "'");
  return v;
}

bool is_integer(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  return !s.empty() && all_of(s, is_digit);
}

bool is_real(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  const auto dot = s.find('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view whole = s.substr(0, dot), frac = s.substr(dot + 1);
  return all_of(whole, is_digit) && !frac.empty() && all_of(frac, is_digit);
}

bool is_word(std::string_view s) {
  return !s.empty() && all_of(s, [](char c) { return is_alnum(c) || c == '-' || c == ':'; });
}

bool is_board(std::string_view s) {
  if (s.size() < 3 || s.front() != '<' || s.back() != '>') return false;
  s = s.substr(1, s.size() - 2);
  bool digit_before = false;
  for (char c : s) {
    if (c == ',') {
      if (!digit_before) return false;
      digit_before = false;
    } else if (is_digit(c)) {
      digit_before = true;
    } else {
      return false;
    }
  }
  return digit_before;
}

// Reads a quoted string starting at line[i] == '"'; leaves i after the closing quote.
std::string read_string(std::string_view line, std::size_t& i) {
  std::string out;
  for (++i; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      ++i;
      return out;
    }
    if (c == '\\') {
      if (++i == line.size()) break;
      const char e = line[i];
      out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
    } else {
      out += c;
    }
  }
  throw ProtocolError("unterminated string");
}

// Splits the line into tokens at white space outside strings; strings come back unescaped with
// `quoted` set.
struct Token {
  std::string text;
  bool quoted = false;
};
std::vector<Token> tokenize(std::string_view line) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && is_space(line[i])) ++i;
    if (i == line.size()) return tokens;
    if (line[i] == '"') {
      tokens.push_back({read_string(line, i), true});
      if (i < line.size() && !is_space(line[i]))
        throw ProtocolError("no space after a string argument");
      continue;
    }
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    tokens.push_back({std::string(line.substr(start, i - start)), false});
  }
}

// Reads `[ID][@REF]` into c; throws when the token is not of that form.
void read_id_and_ref(std::string_view token, Command& c) {
  const auto at = token.find('@');
  const std::string_view id = token.substr(0, at);
  if (!id.empty()) c.id = parse_id(id, "command ID");
  if (at != std::string_view::npos) c.ref = parse_id(token.substr(at + 1), "reference");
}

bool looks_like_id(std::string_view token) {
  return !token.empty() && all_of(token, [](char c) { return is_digit(c) || c == '@'; });
}

}  // namespace

Command parse_line(std::string_view line) {
  if (line.size() > kMaxLineLength) throw ProtocolError("line longer than 16384 characters");
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  for (char c : line)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t')
      throw ProtocolError("control character in line");
  std::vector<Token> tokens = tokenize(line);
  if (tokens.empty()) throw ProtocolError("empty line");
  Command c;
  std::size_t next = 0;
  if (!tokens[0].quoted && looks_like_id(tokens[0].text) && tokens.size() > 1) {
    read_id_and_ref(tokens[0].text, c);
    next = 1;
  }
  const Token& name = tokens[next++];
  if (name.quoted || name.text.empty() || !all_of(name.text, is_alnum))
    throw ProtocolError("malformed command name '" + name.text + "'");
  c.name = name.text;
  for (; next < tokens.size(); ++next) {
    const Token& t = tokens[next];
    if (!t.quoted && !is_integer(t.text) && !is_real(t.text) && !is_word(t.text) &&
        !is_board(t.text))
      throw ProtocolError("argument '" + t.text + "' is no integer, real, word, string or board");
    c.args.push_back(t.text);
  }
  return c;
}

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += c;
    }
  }
  return out + '"';
}

std::string format_line(std::optional<std::uint64_t> id, std::optional<std::uint64_t> ref,
                        std::string_view name, const std::vector<std::string>& args) {
  std::string out;
  if (id) out += std::to_string(*id);
  if (ref) {
    out += '@';
    out += std::to_string(*ref);
  }
  if (!out.empty()) out += ' ';
  out += name;
  for (const std::string& a : args) {
    out += ' ';
    out += is_integer(a) || is_word(a) || is_board(a) ? a : quote(a);
  }
  return out;
}

Position parse_board(std::string_view board) {
  if (!is_board(board)) throw ProtocolError("malformed board '" + std::string(board) + "'");
  std::vector<std::string_view> fields;
  std::string_view body = board.substr(1, board.size() - 2);
  for (std::size_t start = 0;;) {
    const auto comma = body.find(',', start);
    fields.push_back(body.substr(start, comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  const std::uint64_t m = fields[0].size() > 3 ? 0 : parse_id(fields[0], "board size");
  if (m < 1 || m > 12) throw ProtocolError("board size must be 1..12: " + std::string(board));
  if (fields.size() != 2 * m + 3)
    throw ProtocolError("board of " + std::to_string(m) + " pits needs " +
                        std::to_string(2 * m + 3) + " numbers: " + std::string(board));
  // South's pits and kalah / North's pits and kalah, South to move (RULES.md notation).
  std::string text;
  for (std::size_t i = 0; i < m; ++i) text += std::string(fields[3 + i]) + ",";
  text += std::string(fields[1]) + "/";
  for (std::size_t i = 0; i < m; ++i) text += std::string(fields[3 + m + i]) + ",";
  text += std::string(fields[2]) + " S";
  try {
    return parse_position(text);
  } catch (const std::exception& e) {
    throw ProtocolError(std::string(e.what()) + ": " + std::string(board));
  }
}

std::string format_board(const Position& p) {
  std::string out = "<";
  const auto field = [&out](int v, bool first = false) {
    if (!first) out += ',';
    out += std::to_string(v);
  };
  field(p.m, true);
  field(p.side_kalah(Side::kSouth));
  field(p.side_kalah(Side::kNorth));
  for (Side s : {Side::kSouth, Side::kNorth})
    for (int i = 0; i < p.m; ++i) field(p.side_pit(s, i));
  return out + '>';
}

bool supported_version(const Command& c) {
  if (c.name != "kgp" || c.args.empty() || !all_of(c.args[0], is_digit))
    throw ProtocolError("expected 'kgp MAJOR MINOR PATCH'");
  return c.args[0] == "1";
}

}  // namespace kalah::kgp
