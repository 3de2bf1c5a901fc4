// `kalah serve`'s logs: a line on stderr per failed request, a line in the access log per request.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace kalah::serve {

// Client text as every log line quotes it: printable ASCII kept but for '"' and '\', every other
// byte (newlines, escapes, invalid UTF-8) as \xHH, and cut after `max_bytes` bytes of the text
// with "..." after it. A line built from it holds no control character, so no client can end a
// log line or forge another.
std::string log_text(std::string_view text, std::size_t max_bytes);

// What the logs say of one request.
struct RequestRecord {
  std::string method, target, version;          // as sent; method empty: no request line was read
  std::string client;                           // as --searches-per-client counts it
  std::chrono::steady_clock::time_point start;  // when its header was read (or refused)
  int status = 0;
  std::optional<std::size_t> bytes;  // the body's size; nullopt: streamed
  std::string error;                 // why it failed (status >= 400); may quote client text
};

// The server's two logs, one line a request, whole lines from any thread.
class RequestLog {
 public:
  // `errors`: the stderr stream; `access` (may be null): the access log.
  RequestLog(std::ostream& errors, std::ostream* access) : errors_(errors), access_(access) {}

  // "kalah serve: STATUS METHOD PATH[?...]: ERROR" on the error stream when status >= 400; with
  // an access log, the Common Log Format ("-" as the size of a streamed answer, "-" as the
  // request of a connection that sent no request line) and the seconds from `r.start` to now.
  void write(const RequestRecord& r);

 private:
  std::mutex mutex_;
  std::ostream& errors_;
  std::ostream* access_;
};

}  // namespace kalah::serve
