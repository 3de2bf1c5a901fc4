// TCP for both sides of KGP: a client's connection, a server's listening socket, a peer's
// numeric address, lines sent and lines received.
#include "tools/kgp/kgp_socket.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "tools/kgp/kgp_protocol.hpp"

namespace kalah::kgp {
namespace {

// The first address of host:port on which `use` succeeds with a fresh socket, or -1 with the
// last reason in `why`; use(fd, address) returns false (errno set) to try the next one.
template <class Use>
int first_socket(const std::string& host, const std::string& port, int flags, std::string& why,
                 Use use) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = flags;
  addrinfo* found = nullptr;
  if (const int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    why = gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    if (!use(fd, *a)) {
      why = std::strerror(errno);
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  return fd;
}

}  // namespace

int connect_to(const std::string& host, const std::string& port, std::string& why) {
  return first_socket(host, port, 0, why, [](int fd, const addrinfo& a) {
    if (connect(fd, a.ai_addr, a.ai_addrlen) != 0) return false;
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return true;
  });
}

int listen_on(const std::string& host, const std::string& port, std::string& why) {
  return first_socket(host, port, AI_PASSIVE, why, [](int fd, const addrinfo& a) {
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    return bind(fd, a.ai_addr, a.ai_addrlen) == 0 && listen(fd, 64) == 0;
  });
}

std::string numeric_address(const sockaddr_storage& address, socklen_t length) {
  char host[NI_MAXHOST], port[NI_MAXSERV];
  if (getnameinfo(reinterpret_cast<const sockaddr*>(&address), length, host, sizeof host, port,
                  sizeof port, NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return "?";
  return std::string(host) + ":" + port;
}

bool send_line(int fd, std::string_view line) {
  std::string out(line);
  out += "\r\n";
  for (std::size_t sent = 0; sent < out.size();) {
    const ssize_t n = ::send(fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += std::size_t(n);
  }
  return true;
}

LineReader::Got LineReader::next(std::string& line) {
  if (const auto eol = buffer_.find('\n'); eol != std::string::npos) {
    line = buffer_.substr(0, eol);
    buffer_.erase(0, eol + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (std::exchange(discarding_, false) || line.size() > kMaxLineLength) return Got::kOverlong;
    return Got::kLine;
  }
  if (buffer_.size() > kMaxLineLength) {
    buffer_.clear();
    discarding_ = true;
  }
  return Got::kNone;
}

}  // namespace kalah::kgp
