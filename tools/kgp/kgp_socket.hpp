// TCP for both sides of KGP: a client's connection, a server's listening socket, a peer's
// numeric address, lines sent and lines received.
#pragma once

#include <sys/socket.h>

#include <string>
#include <string_view>

namespace kalah::kgp {

// A connected TCP socket to host:port (TCP_NODELAY set), or -1 with the reason in `why`.
int connect_to(const std::string& host, const std::string& port, std::string& why);

// A socket listening on host:port (SO_REUSEADDR set; port "0": a free one), or -1 with the
// reason in `why`.
int listen_on(const std::string& host, const std::string& port, std::string& why);

// "ADDRESS:PORT" of a socket address, numerically; "?" when it has none.
std::string numeric_address(const sockaddr_storage& address, socklen_t length);

// Sends line and CR LF whole (EINTR retried, no SIGPIPE); false when the peer is gone.
bool send_line(int fd, std::string_view line);

// The bytes received on a KGP connection, cut into lines: each ends at LF (a CR before it
// dropped). A line longer than kMaxLineLength is dropped through its end, never held whole, and
// reported once as kOverlong.
class LineReader {
 public:
  enum class Got { kNone, kLine, kOverlong };
  void append(const char* data, std::size_t n) { buffer_.append(data, n); }
  // The next complete line, or kNone until more bytes are appended.
  Got next(std::string& line);

 private:
  std::string buffer_;
  bool discarding_ = false;  // inside an overlong line
};

}  // namespace kalah::kgp
