// Checking the HTTP API's query parameters.
#include "tools/serve/http_api.hpp"

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

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string decode_component(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] != '%') {
      out += text[i];
    } else {
      const int hi = i + 2 < text.size() ? hex_digit(text[i + 1]) : -1;
      const int lo = hi >= 0 ? hex_digit(text[i + 2]) : -1;
      if (lo < 0)
        throw InputError("malformed %-escape in the query string: '" +
                         printable(std::string(text.substr(i, 3))) + "' (want %HH)");
      out += char(hi * 16 + lo);
      i += 2;
    }
  }
  return out;
}

}  // namespace

QueryParams parse_query_string(std::string_view query) {
  QueryParams params;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view piece = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (piece.empty()) continue;
    const std::size_t eq = piece.find('=');
    params.emplace(decode_component(piece.substr(0, eq)),
                   eq == std::string_view::npos ? "" : decode_component(piece.substr(eq + 1)));
  }
  return params;
}

std::string encode_query_component(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out += char(c);
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

ApiQuery parse_api_query(const QueryParams& params) {
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
