// `kalah referee`: the server side of the Kalah Game Protocol, grading each bot that connects.
#include "tools/referee/referee_server.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <list>
#include <memory>
#include <mutex>
#include <random>
#include <string_view>
#include <system_error>
#include <thread>

#include "tools/kgp/kgp_protocol.hpp"
#include "tools/kgp/kgp_socket.hpp"
#include "tools/referee/bot_connection.hpp"
#include "tools/referee/report.hpp"
#include "tools/referee/rule_check.hpp"

namespace kalah::referee {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<bool> g_signalled{false};  // SIGINT or SIGTERM arrived

void on_signal(int) {
  g_signalled = true;
}

Clock::time_point after(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// text for a report: control characters as '?', at most max bytes, not cut inside a UTF-8
// character (other invalid UTF-8 is replaced when the JSON is written).
std::string clean(std::string_view text, std::size_t max) {
  std::size_t end = text.size();
  if (end > max) {
    end = max;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  }
  std::string out(text.substr(0, end));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

// What a mode makes of a line that answers its request.
enum class Answer { kSettled, kTaken, kUnexpected };

// A KGP integer argument as an int, one beyond int's range as -1 (no board has such a pit);
// nullopt when a is no integer.
std::optional<int> parse_int(const std::string& a) {
  int v = 0;
  const char* begin = a.data() + (!a.empty() && a[0] == '+');
  const auto [end, ec] = std::from_chars(begin, a.data() + a.size(), v);
  if (ec == std::errc::result_out_of_range) return -1;
  if (ec != std::errc() || end != a.data() + a.size()) return std::nullopt;
  return v;
}

class Session {
 public:
  Session(int fd, int number, std::string peer, Tables& tables, const RefereeOptions& o,
          const std::atomic<bool>& stop)
      : conn_(fd, stop),
        o_(o),
        tables_(tables),
        stop_(stop),
        grader_(tables, o.search_seconds, o.tt_bytes, &stop) {
    report_.session = number;
    report_.peer = std::move(peer);
  }

  SessionReport run() {
    try {
      if (handshake()) {
        std::unique_ptr<PositionSource> source =
            make_source(o_.source, tables_, o_.search_seconds, &stop_);
        if (report_.mode == "freeplay") freeplay(*source);
        if (report_.mode == "eval") eval(*source);
        if (report_.mode == "verify") verify(*source);
        report_.game_margins = source->game_margins();
      }
    } catch (const std::exception& e) {  // a damaged table: the session ends, the referee goes on
      report_.ended = std::string("referee error: ") + e.what();
      over_ = true;
    }
    conn_.send("goodbye");
    return std::move(report_);
  }

 private:
  std::uint64_t send_request(const std::string& name, const std::vector<std::string>& args) {
    const std::uint64_t id = next_id();
    conn_.send(kgp::format_line(id, std::nullopt, name, args));
    return id;
  }

  void end(const std::string& why) {
    if (over_) return;
    report_.ended = why;
    over_ = true;
  }

  void malformed() {
    if (++report_.malformed > o_.max_malformed)
      end("more than " + std::to_string(o_.max_malformed) + " malformed lines");
  }

  // set, ok, error, pong and goodbye, in any state; true when c was one of them.
  bool common(const kgp::Command& c) {
    if (c.name == "set") {
      if (c.args.size() == 2 && c.args[0] == "info:name") report_.name = clean(c.args[1], 100);
    } else if (c.name == "goodbye") {
      end("goodbye");
    } else if (c.name != "ok" && c.name != "error" && c.name != "pong") {
      return false;
    }
    return true;
  }

  // Reads lines until `answer` settles request id, the deadline passes or the session ends; false
  // when it ended. Lines that reference another request are stale and ignored.
  bool await(std::uint64_t id, Clock::time_point deadline,
             const std::function<Answer(const kgp::Command&)>& answer) {
    std::string line;
    while (!over_) {
      switch (conn_.read_line(deadline, line)) {
        case Connection::Got::kTimeout:
          return true;
        case Connection::Got::kClosed:
          end("disconnected");
          return false;
        case Connection::Got::kStopped:
          end("the referee stopped");
          return false;
        case Connection::Got::kOverlong:
          malformed();
          continue;
        case Connection::Got::kLine:
          break;
      }
      if (line.find_first_not_of(" \t") == std::string::npos) continue;
      kgp::Command c;
      try {
        c = kgp::parse_line(line);
      } catch (const kgp::ProtocolError&) {
        malformed();
        continue;
      }
      if (common(c)) continue;
      if (c.ref && *c.ref != id) continue;
      switch (answer(c)) {
        case Answer::kSettled:
          return true;
        case Answer::kTaken:
          break;
        case Answer::kUnexpected:
          malformed();
          break;
      }
    }
    return false;
  }

  // `kgp 1 0 0`, then the bot's `mode`; false when the session ends instead.
  bool handshake() {
    conn_.send("kgp 1 0 0");
    bool chosen = false;
    await(0, after(o_.handshake_time), [&](const kgp::Command& c) {
      if (c.name != "mode") return Answer::kUnexpected;
      const std::string mode = c.args.empty() ? "" : c.args[0];
      if (mode != "freeplay" && mode != "eval" && mode != "verify") {
        conn_.send(kgp::format_line(std::nullopt, c.id, "error", {"Unsupported activity"}));
        end("unsupported mode '" + clean(mode, 40) + "'");
      } else {
        report_.mode = mode;
        chosen = true;
      }
      return Answer::kSettled;
    });
    if (!chosen && !over_) {
      const std::string why = "no mode within " + std::to_string(int(o_.handshake_time)) + " s";
      conn_.send(kgp::format_line(std::nullopt, std::nullopt, "error", {why}));
      end(why + " of the connection");
    }
    return chosen;
  }

  void stop(std::uint64_t id) { conn_.send(kgp::format_line(next_id(), id, "stop")); }
  std::uint64_t next_id() { return std::exchange(next_id_, next_id_ + 2); }

  void freeplay(PositionSource& source) {
    while (!over_) {
      const std::optional<Position> p = source.next();
      if (!p)
        return end(o_.source.kind == SourceOptions::Kind::kGames ? "all games played"
                                                                 : "all positions sent");
      const std::uint64_t id = send_request("state", {kgp::format_board(*p)});
      std::optional<int> pit;  // the last move
      const bool going = await(id, after(o_.move_time), [&](const kgp::Command& c) {
        if (c.name == "yield") return Answer::kSettled;
        if (c.name != "move") return Answer::kUnexpected;
        const std::optional<int> v = c.args.size() == 1 ? parse_int(c.args[0]) : std::nullopt;
        if (!v) return Answer::kUnexpected;
        pit = *v;
        return Answer::kTaken;
      });
      if (!going) return;  // a state the bot left unanswered is not graded
      stop(id);
      MoveGrade g = grader_.grade(*p, pit);
      report_.moves.push_back(g);
      source.played(g.verdict == Verdict::kGraded ? *pit : 0);
    }
  }

  void eval(PositionSource& source) {
    while (!over_) {
      const std::optional<Position> p = source.next();
      if (!p) return end("all positions sent");
      const std::uint64_t id = send_request("state", {kgp::format_board(*p)});
      std::optional<double> value;
      const bool going = await(id, after(o_.move_time), [&](const kgp::Command& c) {
        if (c.name == "yield" || c.name == "stop") return Answer::kSettled;
        if (c.name != "eval" || c.args.size() != 1) return Answer::kUnexpected;
        char* end = nullptr;
        const double v = std::strtod(c.args[0].c_str(), &end);
        if (*end != '\0' || !std::isfinite(v)) return Answer::kUnexpected;
        value = v;
        return Answer::kTaken;
      });
      if (!going) return;
      stop(id);
      report_.evals.push_back({*p, grader_.values(*p).value, value});
      source.played(0);  // games go on with a random move
    }
  }

  void verify(PositionSource& source) {
    std::mt19937_64 rng(o_.source.seed);
    while (!over_) {
      const std::optional<Position> p = source.next();
      if (!p) return end("all problems sent");
      const int pit = random_legal_pit(*p, rng);
      const std::uint64_t id =
          send_request("problem", {kgp::format_board(*p), std::to_string(pit)});
      ++report_.problems;
      std::string why = "no solution within the move time";
      const bool going = await(id, after(o_.move_time), [&](const kgp::Command& c) {
        if (c.name != "solution") return Answer::kUnexpected;
        const std::optional<std::uint64_t> reply_to = c.id ? c.id : std::optional(id);
        try {
          if (c.args.size() != 2) throw kgp::ProtocolError("solution takes a board and an integer");
          const Position board = kgp::parse_board(c.args[0]);
          const std::optional<int> repeat = parse_int(c.args[1]);
          if (!repeat) throw kgp::ProtocolError("repeat flag '" + c.args[1] + "' is no integer");
          why = check_solution(*p, pit, board, *repeat != 0).why;
        } catch (const kgp::ProtocolError& e) {
          why = std::string("malformed solution: ") + e.what();
        }
        why = clean(why, 300);  // the bot's text quoted in it is its own, of any length
        conn_.send(why.empty() ? kgp::format_line(std::nullopt, reply_to, "ok")
                               : kgp::format_line(std::nullopt, reply_to, "error", {why}));
        return Answer::kSettled;
      });
      if (!going) return;
      source.played(pit);
      if (why.empty()) {
        ++report_.solved;
      } else {
        report_.rule_errors.push_back({*p, pit, why});
      }
    }
  }

  Connection conn_;
  const RefereeOptions& o_;
  Tables& tables_;
  const std::atomic<bool>& stop_;
  Grader grader_;
  SessionReport report_;
  std::uint64_t next_id_ = 2;  // even: the clients' own IDs are odd (pykgp, kgpc)
  bool over_ = false;
};

// Tells a bot the referee will not serve it, and closes its connection.
void refuse(int fd, const std::string& why) {
  Connection refused(fd, g_signalled);
  refused.send(kgp::format_line(std::nullopt, std::nullopt, "error", {why}));
  refused.send("goodbye");
}

// A socket listening on host:port, announced on stdout; -1 (said on stderr) when there is none.
int listen_announced(const RefereeOptions& o) {
  std::string why;
  const int listener = kgp::listen_on(o.host, o.port, why);
  if (listener < 0) {
    std::cerr << "kalah referee: cannot listen on " << o.host << ":" << o.port << ": " << why
              << "\n";
    return -1;
  }
  sockaddr_storage bound{};
  socklen_t bound_len = sizeof bound;
  getsockname(listener, reinterpret_cast<sockaddr*>(&bound), &bound_len);
  std::cout << "kalah referee: listening on " << kgp::numeric_address(bound, bound_len)
            << std::endl;
  return listener;
}

// SIGINT and SIGTERM set g_signalled.
void catch_stop_signals() {
  g_signalled = false;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

// Each session's report on stdout and appended to the report file, one at a time.
class Publisher {
 public:
  Publisher(const RefereeOptions& o, std::string db) : o_(o), db_(std::move(db)) {}
  // False (said on stderr) when the report file cannot be opened for appending.
  bool open() {
    if (o_.report_file.empty()) return true;
    file_.open(o_.report_file, std::ios::app);
    if (!file_)
      std::cerr << "kalah referee: cannot write the report file " << o_.report_file << ": "
                << std::strerror(errno) << "\n";
    return bool(file_);
  }
  void publish(const SessionReport& r) {
    const std::string text =
        o_.json
            ? report_json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"
            : report_text(r, db_);
    std::lock_guard lock(mutex_);
    std::cout << text << std::flush;
    if (file_.is_open() && !(file_ << text << std::flush) && !failed_) {
      failed_ = true;
      std::cerr << "kalah referee: cannot write the report file " << o_.report_file << "\n";
    }
  }
  bool failed() const { return failed_; }

 private:
  const RefereeOptions& o_;
  std::string db_;
  std::mutex mutex_;
  std::ofstream file_;
  bool failed_ = false;
};

// The sessions under way, a thread each.
class Sessions {
 public:
  Sessions(Tables& tables, const RefereeOptions& o, Publisher& publisher)
      : tables_(tables), o_(o), publisher_(publisher) {}
  ~Sessions() {
    for (Running& r : running_) r.thread.join();  // a signal ends each session at its next read
  }
  int started() const { return started_; }
  int finished() const { return finished_; }

  // Serves the connection fd from `peer` on a thread of its own, or refuses it when max_sessions
  // are under way, `sessions` have started, or no thread can be had.
  void start(int fd, const std::string& peer) {
    reap();
    if (int(running_.size()) >= o_.max_sessions) return refuse(fd, "too many sessions at once");
    if (o_.sessions > 0 && started_ >= o_.sessions) return refuse(fd, "no more sessions");
    const int number = started_ + 1;
    auto done = std::make_shared<std::atomic<bool>>(false);
    try {
      running_.push_back(
          {std::thread([this, fd, number, done, peer] {
             try {
               publisher_.publish(Session(fd, number, peer, tables_, o_, g_signalled).run());
             } catch (const std::exception& e) {
               std::cerr << "kalah referee: session " << number << ": " << e.what() << "\n";
             }
             ++finished_;
             *done = true;
           }),
           done});
    } catch (const std::system_error& e) {  // no thread for it: the bot is told, the rest go on
      return refuse(fd, std::string("the referee cannot start a session: ") + e.what());
    }
    started_ = number;
  }

 private:
  struct Running {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  void reap() {
    for (auto it = running_.begin(); it != running_.end();) {
      if (*it->done) {
        it->thread.join();
        it = running_.erase(it);
      } else {
        ++it;
      }
    }
  }

  Tables& tables_;
  const RefereeOptions& o_;
  Publisher& publisher_;
  std::list<Running> running_;
  std::atomic<int> finished_{0};
  int started_ = 0;
};

// How often the referee frees the database's reader slots left by killed processes.
constexpr std::chrono::seconds kStaleReaderInterval{60};

// Tables::clear_stale_readers, its failure a warning line: the referee goes on.
void clear_stale_readers(const Tables& tables) {
  try {
    tables.clear_stale_readers();
  } catch (const std::exception& e) {
    std::cerr << "kalah referee: warning: " << e.what() << "\n";
  }
}

}  // namespace

int run_referee(Tables& tables, const RefereeOptions& o) {
  Publisher publisher(o, tables.path());
  if (!publisher.open()) return 1;
  const int listener = listen_announced(o);
  if (listener < 0) return 1;
  catch_stop_signals();
  {
    Sessions sessions(tables, o, publisher);
    Clock::time_point next_reader_check = Clock::now() + kStaleReaderInterval;
    while (!g_signalled && !(o.sessions > 0 && sessions.finished() >= o.sessions)) {
      if (Clock::now() >= next_reader_check) {
        clear_stale_readers(tables);
        next_reader_check = Clock::now() + kStaleReaderInterval;
      }
      pollfd p{listener, POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      sockaddr_storage peer{};
      socklen_t peer_len = sizeof peer;
      const int fd = accept(listener, reinterpret_cast<sockaddr*>(&peer), &peer_len);
      if (fd >= 0) sessions.start(fd, kgp::numeric_address(peer, peer_len));
    }
  }
  close(listener);
  return publisher.failed() ? 1 : 0;
}

}  // namespace kalah::referee
