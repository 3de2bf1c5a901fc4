// `kalah kgp`'s connection to a KGP server: the handshake, the command loop, reconnection.
#include "tools/kgp/kgp_client.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "tools/kgp/kgp_protocol.hpp"
#include "tools/kgp/kgp_socket.hpp"

namespace kalah::kgp {
namespace {

void log(const std::string& line) {
  std::cerr << "kalah kgp: " << line << "\n" << std::flush;
}

// The first 200 characters of a line as text for the log: other bytes than printable ASCII
// written \xNN.
std::string printable(const std::string& line) {
  std::string out;
  for (std::size_t i = 0; i < line.size() && i < 200; ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return line.size() > 200 ? out + "..." : out;
}

// The state being thought about: its ID, and whether the server stopped it.
struct Job {
  std::optional<std::uint64_t> id;
  std::atomic<bool> done{false};  // the thinking ends (stopped, superseded, or a proven move)
  bool stopped = false;           // no line about it may be sent any more; under the write lock
};

// One connection: reads lines on the calling thread, thinks on a worker thread.
class Session {
 public:
  Session(int fd, const ClientOptions& options, Player& player)
      : fd_(fd), options_(options), player_(player) {}
  ~Session() {
    end_job();
    close(fd_);
  }
  // Serves the connection until the server closes it, says goodbye or a write fails; true when
  // the server's `kgp` line was answered.
  bool run();

 private:
  void handle(const Command& c);
  void greet(const Command& c);
  void start_job(const Command& c);
  void end_job();
  bool read_lines(LineReader& reader);
  void send(const std::string& line);
  void send_for(Job& job, const std::string& name, const std::vector<std::string>& args);

  int fd_;
  const ClientOptions& options_;
  Player& player_;
  std::mutex write_mutex_;
  std::atomic<bool> broken_{false};  // a write failed
  bool greeted_ = false;
  bool closing_ = false;  // the server said goodbye or refused us
  std::unique_ptr<Job> job_;
  std::thread worker_;
};

void Session::send(const std::string& line) {
  if (options_.verbose) log("> " + line);
  if (!send_line(fd_, line)) broken_ = true;
}

// A line that answers job's state, unless the server has stopped it.
void Session::send_for(Job& job, const std::string& name, const std::vector<std::string>& args) {
  std::lock_guard lock(write_mutex_);
  if (!job.stopped) send(format_line(std::nullopt, job.id, name, args));
}

void Session::end_job() {
  if (job_) {
    {
      std::lock_guard lock(write_mutex_);
      job_->stopped = true;
    }
    job_->done = true;
  }
  if (worker_.joinable()) worker_.join();
  job_.reset();
}

void Session::start_job(const Command& c) {
  if (c.args.size() != 1) throw ProtocolError("state takes one board");
  const Position p = parse_board(c.args[0]);
  end_job();  // a new state supersedes the one before
  job_ = std::make_unique<Job>();
  job_->id = c.id;
  Job& job = *job_;
  if (game_finished(Rules::kKalah, p)) {
    log("state " + c.args[0] + " has no move to make (the game is over); yielding");
    send_for(job, "yield", {});
    return;
  }
  worker_ = std::thread([this, &job, p] {
    std::vector<std::string> comment, move;  // the last move sent, with its comment
    try {
      player_.think(p, job.done, [&](const MoveNote& n) {
        comment = {"info:comment",
                   n.source + ", value " + std::to_string(n.value) + (n.exact ? " (exact)" : "")};
        move = {std::to_string(n.pit)};
        send_for(job, "set", comment);
        send_for(job, "move", move);
      });
    } catch (const std::exception& e) {  // a damaged table: what was sent stands
      log(std::string("thinking failed: ") + e.what());
    }
    // The final move once more before yield: a server may refuse a move that arrives before it
    // has filed the state (go-kgp does), and KGP allows a move to be repeated.
    if (!move.empty()) {
      send_for(job, "set", comment);
      send_for(job, "move", move);
    }
    send_for(job, "yield", {});
  });
}

void Session::greet(const Command& c) {
  if (!supported_version(c)) {
    log("server speaks KGP " + c.args[0] + ", this client version 1; closing");
    closing_ = true;
    return;
  }
  greeted_ = true;
  std::lock_guard lock(write_mutex_);
  send(format_line(std::nullopt, std::nullopt, "set", {"info:name", options_.name}));
  if (!options_.token.empty())
    send(format_line(std::nullopt, std::nullopt, "set", {"auth:token", options_.token}));
  send(format_line(std::nullopt, std::nullopt, "mode", {"freeplay"}));
}

void Session::handle(const Command& c) {
  if (c.name == "kgp") return greet(c);
  if (!greeted_) throw ProtocolError("'" + c.name + "' before the server's kgp line");
  if (c.name == "ping") {
    std::lock_guard lock(write_mutex_);
    send(format_line(std::nullopt, c.id, "pong"));
  } else if (c.name == "state") {
    start_job(c);
  } else if (c.name == "stop") {
    if (job_ && (!c.ref || c.ref == job_->id)) end_job();  // a stale stop concerns nothing
  } else if (c.name == "goodbye") {
    closing_ = true;
  } else if (c.name == "error") {
    log("server reports an error: " + (c.args.empty() ? std::string("(no message)") : c.args[0]));
  } else if (c.name != "ok" && c.name != "set") {
    throw ProtocolError("unknown command '" + c.name + "'");
  }
}

// Appends what the socket holds to reader and handles each complete line; false at end of file
// or on an error. A line over the protocol's limit is logged and dropped.
bool Session::read_lines(LineReader& reader) {
  char chunk[4096];
  const ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) return false;
  reader.append(chunk, std::size_t(n));
  std::string line;
  for (LineReader::Got got; !closing_ && (got = reader.next(line)) != LineReader::Got::kNone;) {
    if (got == LineReader::Got::kOverlong) {
      log("ignored a line longer than 16384 characters");
      continue;
    }
    if (options_.verbose) log("< " + printable(line));
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      handle(parse_line(line));
    } catch (const ProtocolError& e) {
      log("ignored line '" + printable(line) + "': " + e.what());
    }
  }
  return true;
}

bool Session::run() {
  LineReader reader;
  while (!closing_ && !broken_) {
    pollfd p{fd_, POLLIN, 0};
    const int rc = poll(&p, 1, 200);
    if (rc < 0 && errno != EINTR) break;
    if (rc > 0 && !read_lines(reader)) break;
  }
  end_job();
  return greeted_;
}

}  // namespace

int run_client(const ClientOptions& options) {
  Player player(options.player);
  int failures = 0, sessions = 0;
  double backoff = kFirstBackoffSeconds;
  while (true) {
    std::string why;
    const int fd = connect_to(options.host, options.port, why);
    bool greeted = false;
    if (fd < 0) {
      log("cannot connect to " + options.host + ":" + options.port + ": " + why);
    } else {
      log("connected to " + options.host + ":" + options.port);
      greeted = Session(fd, options, player).run();
      log("connection to " + options.host + ":" + options.port + " closed");
    }
    if (greeted) {
      failures = 0;
      backoff = kFirstBackoffSeconds;
      if (options.sessions > 0 && ++sessions >= options.sessions) return 0;
    } else if (options.retries > 0 && ++failures >= options.retries) {
      log("giving up after " + std::to_string(failures) + " failed connection" +
          (failures == 1 ? "" : "s"));
      return 1;
    }
    char wait[64];
    std::snprintf(wait, sizeof wait, "reconnecting in %.2f s", backoff);
    log(wait);
    std::this_thread::sleep_for(std::chrono::duration<double>(backoff));
    if (!greeted) backoff = std::min(2 * backoff, kMaxBackoffSeconds);
  }
}

}  // namespace kalah::kgp
