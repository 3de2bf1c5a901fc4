// HttpConnection, SlowClients: the sockets of `kalah bench serve --url`.
#include "tools/cli/bench/serve_load.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include "tools/cli/options.hpp"

namespace kalah::cli {
namespace {

sockaddr_in address_of(const std::string& host, int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(std::uint16_t(port));
  if (inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1)
    throw InputError("not a numeric IPv4 address: " + host);
  return a;
}

// A blocking TCP socket connected to `to` from `source` (empty: any), with send and receive
// timeouts; -1 when the connection fails.
int connect_to(const HostPort& to, const std::string& source, double timeout) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  timeval tv{};
  tv.tv_sec = long(timeout);
  tv.tv_usec = long((timeout - double(tv.tv_sec)) * 1e6);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (!source.empty()) {
    const sockaddr_in from = address_of(source, 0);
    if (bind(fd, reinterpret_cast<const sockaddr*>(&from), sizeof from) != 0) {
      close(fd);
      return -1;
    }
  }
  const sockaddr_in a = address_of(to.host, to.port);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool send_all(int fd, const std::string& data) {
  for (std::size_t sent = 0; sent < data.size();) {
    const ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += std::size_t(n);
  }
  return true;
}

// The value of header `name` (lower case) in a response head, or "".
std::string header_value(const std::string& head, const std::string& name) {
  std::string lower(head);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  const std::size_t at = lower.find("\r\n" + name + ":");
  if (at == std::string::npos) return "";
  std::size_t from = at + name.size() + 3;
  while (from < head.size() && head[from] == ' ') ++from;
  return head.substr(from, head.find("\r\n", from) - from);
}

}  // namespace

HostPort parse_host_port(const std::string& text) {
  const std::size_t colon = text.rfind(':');
  HostPort hp;
  try {
    if (colon == std::string::npos) throw InputError("");
    hp.host = text.substr(0, colon);
    hp.port = std::stoi(text.substr(colon + 1));
    address_of(hp.host, hp.port);
  } catch (const std::exception&) {
    throw InputError("--url must be HOST:PORT with a numeric IPv4 HOST, not '" + text + "'");
  }
  if (hp.port < 1 || hp.port > 65535) throw InputError("--url's port must be 1..65535");
  return hp;
}

HttpConnection::HttpConnection(HostPort to, std::string source, double timeout_seconds)
    : to_(std::move(to)), source_(std::move(source)), timeout_(timeout_seconds) {}

HttpConnection::~HttpConnection() {
  close_socket();
}

void HttpConnection::close_socket() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

bool HttpConnection::connect_once() {
  if (fd_ < 0) fd_ = connect_to(to_, source_, timeout_);
  return fd_ >= 0;
}

HttpConnection::Reply HttpConnection::get(const std::string& target) {
  const std::string request = "GET " + target + " HTTP/1.1\r\nHost: " + to_.host + "\r\n\r\n";
  for (int attempt = 0; attempt < 2; ++attempt) {  // once more when a kept connection was closed
    const bool fresh = fd_ < 0;
    if (!connect_once()) return {};
    errno = 0;
    if (send_all(fd_, request))
      if (std::optional<Reply> r = read_reply()) return *r;
    const bool timed_out = errno == EAGAIN || errno == EWOULDBLOCK;
    close_socket();
    if (fresh || timed_out) break;
  }
  return {};
}

// The reply on the connection: its head, then a body of Content-Length bytes or chunks.
std::optional<HttpConnection::Reply> HttpConnection::read_reply() {
  std::string data;
  char buf[16384];
  std::size_t head_end;
  while ((head_end = data.find("\r\n\r\n")) == std::string::npos) {
    const ssize_t n = recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return std::nullopt;
    data.append(buf, std::size_t(n));
  }
  const std::string head = data.substr(0, head_end + 2);
  std::string rest = data.substr(head_end + 4);
  Reply r;
  if (std::sscanf(head.c_str(), "HTTP/1.%*d %d", &r.status) != 1) return std::nullopt;
  const auto more = [&] {
    const ssize_t n = recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return false;
    rest.append(buf, std::size_t(n));
    return true;
  };
  if (header_value(head, "transfer-encoding") == "chunked") {
    for (std::size_t at = 0;;) {
      std::size_t eol;
      while ((eol = rest.find("\r\n", at)) == std::string::npos)
        if (!more()) return std::nullopt;
      const std::size_t size = std::stoul(rest.substr(at, eol - at), nullptr, 16);
      while (rest.size() < eol + 2 + size + 2)
        if (!more()) return std::nullopt;
      r.body.append(rest, eol + 2, size);
      at = eol + 2 + size + 2;
      if (size == 0) break;
    }
  } else {
    const std::string length = header_value(head, "content-length");
    const std::size_t size = length.empty() ? 0 : std::stoul(length);
    while (rest.size() < size)
      if (!more()) return std::nullopt;
    r.body = rest.substr(0, size);
  }
  if (header_value(head, "connection") == "close") close_socket();
  return r;
}

SlowClients::SlowClients(HostPort to, int count, double interval, std::vector<std::string> sources)
    : to_(std::move(to)),
      count_(count),
      interval_(interval),
      sources_(std::move(sources)),
      fds_(std::size_t(count), -1) {}

SlowClients::~SlowClients() {
  for (const int fd : fds_)
    if (fd >= 0) close(fd);
}

// Opens slow client k and sends its request line; its socket, or -1.
int SlowClients::connect_one(std::size_t k) {
  const std::string& source = sources_.empty() ? std::string() : sources_[k % sources_.size()];
  const int fd = connect_to(to_, source, 2.0);
  if (fd < 0) return -1;
  if (!send_all(fd, "GET /api/v1/health HTTP/1.1\r\nHost: " + to_.host + "\r\nX-Slow: ")) {
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

void SlowClients::run() {
  using Clock = std::chrono::steady_clock;
  auto next = Clock::now();
  while (!stop_) {
    int open = 0;
    for (std::size_t k = 0; k < fds_.size() && !stop_; ++k) {
      int& fd = fds_[k];
      if (fd >= 0) {  // one more byte; a socket the server closed is opened again
        pollfd p{fd, POLLIN, 0};
        char c;
        const bool closed = poll(&p, 1, 0) > 0 && recv(fd, &c, 1, MSG_PEEK) <= 0;
        if (closed || send(fd, "a", 1, MSG_NOSIGNAL) != 1) {
          close(fd);
          fd = -1;
          ++reopened_;
        }
      }
      if (fd < 0) fd = connect_one(k);
      if (fd >= 0) ++open;
    }
    open_ = open;
    next += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_));
    while (!stop_ && Clock::now() < next)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

double quantile_ms(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double rank = std::max(1.0, std::ceil(q * double(sorted.size())));
  const std::size_t i = std::min(sorted.size(), std::size_t(rank)) - 1;
  return sorted[i] * 1e3;
}

}  // namespace kalah::cli
