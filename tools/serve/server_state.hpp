// What `kalah serve`'s connections share with their server: the routes, the threads, the logs,
// the open connections and the stop flag.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include "tools/serve/request_log.hpp"
#include "tools/serve/routes.hpp"
#include "tools/serve/search_admission.hpp"
#include "tools/serve/server_options.hpp"

namespace kalah::serve {

namespace net = boost::asio;
using tcp = net::ip::tcp;

class HttpSession;

class ServerState {
 public:
  ServerState(const api::Database& db, const ServerOptions& server_options);
  ~ServerState();

  const ServerOptions options;
  SearchAdmission admission;
  const RouteContext routes;
  RequestLog log;
  net::io_context io;        // the connections' I/O, on kIoThreads threads
  net::thread_pool workers;  // answers that may search, options.connections threads
  std::atomic<bool> stopping = false;

  static constexpr int kIoThreads = 2;

  // Binds and listens; the port bound. Throws InputError.
  int bind(const std::string& host, int port);
  // Runs the accept loop and the I/O threads until stop() and every connection ended.
  void serve();
  // From any thread: no more connections; idle ones closed, busy ones after their answer.
  void stop();
  // Called by a session as it ends (any thread).
  void session_ended(HttpSession* session);

 private:
  void accept();
  void begin_stop();
  // Every options.reader_check_seconds: the database's stale reader slots freed.
  void check_readers_later();

  tcp::acceptor acceptor_;
  net::steady_timer retry_;  // a pause before accepting again after an error (EMFILE)
  net::steady_timer readers_;
  std::size_t most_open_;  // HttpLimits::kOpenConnections, below the file descriptor limit
  std::mutex mutex_;
  std::map<HttpSession*, std::weak_ptr<HttpSession>> sessions_;
  bool accepting_ = false;  // an accept is under way (else paused at most_open_ or stopped)
};

}  // namespace kalah::serve
