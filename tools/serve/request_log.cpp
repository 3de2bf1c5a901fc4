// RequestLog: the error and access lines of `kalah serve`, client text escaped and cut.
#include "tools/serve/request_log.hpp"

#include <cstdio>
#include <ctime>

#include "tools/serve/server_options.hpp"

namespace kalah::serve {

std::string log_text(std::string_view text, std::size_t max_bytes) {
  std::string out;
  for (const unsigned char c : text.substr(0, max_bytes)) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += char(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += hex;
    }
  }
  return text.size() > max_bytes ? out + "..." : out;
}

namespace {

constexpr std::size_t kMax = HttpLimits::kLoggedTextBytes;

std::string error_line(const RequestRecord& r) {
  std::string line = "kalah serve: ";
  line += std::to_string(r.status);
  if (r.method.empty()) {
    line += " -";
  } else {
    const std::string_view target = r.target;
    const std::size_t query = target.find('?');
    line += ' ';
    line += log_text(r.method, 16);
    line += ' ';
    line += log_text(target.substr(0, query), kMax);
    if (query != std::string_view::npos) line += "?...";
  }
  if (!r.error.empty()) {
    line += ": ";
    line += log_text(r.error, kMax);
  }
  line += '\n';
  return line;
}

std::string access_line(const RequestRecord& r) {
  char when[40];
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(when, sizeof when, "%d/%b/%Y:%H:%M:%S +0000", &utc);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - r.start).count();
  char tail[64];
  std::snprintf(tail, sizeof tail, " %.4f", seconds);
  const std::string request =
      r.method.empty()
          ? "-"
          : log_text(r.method, 16) + " " + log_text(r.target, kMax) + " " + log_text(r.version, 16);
  return (r.client.empty() ? "-" : log_text(r.client, kMax)) + " - - [" + when + "] \"" + request +
         "\" " + std::to_string(r.status) + " " + (r.bytes ? std::to_string(*r.bytes) : "-") +
         tail + "\n";
}

}  // namespace

void RequestLog::write(const RequestRecord& r) {
  if (r.status < 400 && access_ == nullptr) return;
  const std::string error = r.status >= 400 ? error_line(r) : "";
  const std::string access = access_ != nullptr ? access_line(r) : "";
  std::lock_guard lock(mutex_);
  if (!error.empty()) errors_ << error << std::flush;
  if (access_ != nullptr) *access_ << access << std::flush;
}

}  // namespace kalah::serve
