// The referee's side of one bot's TCP connection: KGP lines in by a deadline, lines out.
#pragma once

#include <atomic>
#include <chrono>
#include <string>

#include "tools/kgp/kgp_socket.hpp"

namespace kalah::referee {

// One bot's socket: lines in (each by a deadline), lines out (a bot that does not read cannot
// hold the session's thread longer than the send limit).
class Connection {
 public:
  enum class Got { kLine, kTimeout, kClosed, kOverlong, kStopped };

  // Takes fd (closed with the connection); reads stop once *stop is true.
  Connection(int fd, const std::atomic<bool>& stop);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // The next line (CR and LF removed) by the deadline. A line over KGP's limit is read to its
  // end and answered kOverlong.
  Got read_line(std::chrono::steady_clock::time_point deadline, std::string& line);

  void send(const std::string& line) {
    if (!closed_ && !kgp::send_line(fd_, line)) closed_ = true;
  }

 private:
  int fd_;
  const std::atomic<bool>& stop_;
  kgp::LineReader reader_;
  bool closed_ = false;
};

}  // namespace kalah::referee
