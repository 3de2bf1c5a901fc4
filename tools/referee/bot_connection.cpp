// Connection: a bot's socket read with poll by a deadline, line by line.
#include "tools/referee/bot_connection.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace kalah::referee {

using Clock = std::chrono::steady_clock;

Connection::Connection(int fd, const std::atomic<bool>& stop) : fd_(fd), stop_(stop) {
  timeval send_limit{5, 0};  // a bot that does not read cannot hold its session's thread
  setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &send_limit, sizeof send_limit);
  const int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

Connection::~Connection() {
  close(fd_);
}

Connection::Got Connection::read_line(Clock::time_point deadline, std::string& line) {
  while (true) {
    switch (reader_.next(line)) {
      case kgp::LineReader::Got::kLine:
        return Got::kLine;
      case kgp::LineReader::Got::kOverlong:
        return Got::kOverlong;
      case kgp::LineReader::Got::kNone:
        break;
    }
    if (closed_) return Got::kClosed;
    if (stop_) return Got::kStopped;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return Got::kTimeout;
    pollfd p{fd_, POLLIN, 0};
    const int rc = poll(&p, 1, int(std::min<long long>(left, 200)));
    if (rc < 0 && errno != EINTR) closed_ = true;
    if (rc <= 0) continue;
    char chunk[65536];
    const ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      closed_ = true;
      continue;
    }
    reader_.append(chunk, std::size_t(n));
  }
}

}  // namespace kalah::referee
