// `kalah bench serve --url`'s clients: plain HTTP/1.1 over sockets, slow clients that trickle a
// header, queries at a fixed rate with their latencies, searchers asking fresh positions.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kalah::cli {

// A server address: a numeric IPv4 host and a port.
struct HostPort {
  std::string host = "127.0.0.1";
  int port = 0;
};
// "HOST:PORT" (HOST numeric IPv4); InputError otherwise.
HostPort parse_host_port(const std::string& text);

// One keep-alive connection speaking HTTP/1.1 GET, reconnecting when the server closed it.
// `source` (may be empty) is the local address to connect from, e.g. 127.0.0.7, so that a proxy
// in front sees several clients on one machine.
class HttpConnection {
 public:
  HttpConnection(HostPort to, std::string source, double timeout_seconds);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  struct Reply {
    int status = 0;  // 0: no answer (refused, timed out, closed early)
    std::string body;
  };
  Reply get(const std::string& target);

 private:
  bool connect_once();
  std::optional<Reply> read_reply();
  void close_socket();

  HostPort to_;
  std::string source_;
  double timeout_;
  int fd_ = -1;
};

// Connections that send a request line and then one header byte every `interval` seconds, never
// finishing their request; each one the server drops is opened again.
class SlowClients {
 public:
  SlowClients(HostPort to, int count, double interval, std::vector<std::string> sources);
  ~SlowClients();  // closes them
  // Runs until stop(): opens them, then trickles.
  void run();
  void stop() { stop_ = true; }
  int open() const { return open_; }
  std::uint64_t reopened() const { return reopened_; }

 private:
  int connect_one(std::size_t k);

  HostPort to_;
  int count_;
  double interval_;
  std::vector<std::string> sources_;
  std::vector<int> fds_;
  std::atomic<bool> stop_{false};
  std::atomic<int> open_{0};
  std::atomic<std::uint64_t> reopened_{0};
};

// What a timed load measured: latencies in seconds of the answered requests (from the moment each
// was due), and the counts of other outcomes.
struct LoadResult {
  std::vector<double> latencies;
  std::uint64_t refused = 0;  // answered 503 or 429
  std::uint64_t failed = 0;   // no answer, or another status
  std::uint64_t wrong = 0;    // 200 with a body other than the expected one
};

// The q-quantile (0..1) of sorted latencies, in milliseconds; 0 when there are none.
double quantile_ms(const std::vector<double>& sorted, double q);

}  // namespace kalah::cli
