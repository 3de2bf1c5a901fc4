// WebServer: the listening socket, the accept loop, the I/O and worker threads, the stop.
#include "tools/serve/web_server.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <thread>
#include <vector>

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include "engine/position.hpp"
#include "tools/serve/http_session.hpp"
#include "tools/serve/server_state.hpp"

namespace kalah::serve {
namespace {

// Raises the soft file descriptor limit to the hard one (at most 65536) and returns the soft
// limit then in force.
std::size_t raise_file_limit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 1024;
  const rlim_t want = std::min<rlim_t>(rl.rlim_max, 65536);
  if (rl.rlim_cur < want) {
    rlimit raised = rl;
    raised.rlim_cur = want;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
  }
  return std::size_t(rl.rlim_cur);
}

}  // namespace

ServerState::ServerState(const api::Database& db, const ServerOptions& server_options)
    : options(server_options),
      admission(options.searches, options.searches_per_client),
      routes{db, options, admission},
      log(std::cerr, options.access_log),
      io(kIoThreads),
      workers(std::size_t(std::max(1, options.connections))),
      acceptor_(net::make_strand(io)),
      retry_(acceptor_.get_executor()),
      readers_(acceptor_.get_executor()) {
  // Room for the database, the logs and the listening socket beside the connections.
  const std::size_t files = raise_file_limit();
  most_open_ = std::min<std::size_t>(HttpLimits::kOpenConnections, files > 256 ? files - 128 : 64);
}

ServerState::~ServerState() {
  workers.join();
}

int ServerState::bind(const std::string& host, int port) {
  const std::string where = host + ":" + std::to_string(port);
  beast::error_code ec;
  tcp::resolver resolver(io);
  const auto found = resolver.resolve(host, std::to_string(port),
                                      tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec) throw InputError("cannot listen on " + where + " (" + ec.message() + ")");
  std::string why = "no address";
  for (const auto& entry : found) {
    beast::error_code e;
    acceptor_.open(entry.endpoint().protocol(), e);
    if (!e) acceptor_.set_option(net::socket_base::reuse_address(true), e);
    if (!e) acceptor_.bind(entry.endpoint(), e);
    if (!e) acceptor_.listen(HttpLimits::kListenBacklog, e);
    if (!e) return acceptor_.local_endpoint().port();
    why = e.message();
    beast::error_code ignored;
    acceptor_.close(ignored);
  }
  throw InputError("cannot listen on " + where + " (" + why + ")");
}

void ServerState::serve() {
  {
    std::lock_guard lock(mutex_);
    accepting_ = true;
  }
  net::post(acceptor_.get_executor(), [this] {
    accept();
    check_readers_later();
  });
  const auto run = [this] {
    for (;;) {
      try {
        io.run();
        return;
      } catch (const std::exception& e) {  // a handler's failure ends its connection, not all
        std::cerr << "kalah serve: error: " << e.what() << "\n";
      }
    }
  };
  std::vector<std::thread> threads;
  for (int i = 1; i < kIoThreads; ++i) threads.emplace_back(run);
  run();
  for (std::thread& t : threads) t.join();
  workers.join();
}

void ServerState::stop() {
  stopping = true;
  net::post(acceptor_.get_executor(), [this] { begin_stop(); });
}

void ServerState::begin_stop() {
  beast::error_code ec;
  acceptor_.close(ec);
  retry_.cancel();
  readers_.cancel();
  std::vector<std::shared_ptr<HttpSession>> live;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [raw, weak] : sessions_)
      if (std::shared_ptr<HttpSession> s = weak.lock()) live.push_back(std::move(s));
  }
  for (const auto& s : live) s->stop_when_idle();
}

void ServerState::accept() {
  {
    std::lock_guard lock(mutex_);
    accepting_ = !stopping && sessions_.size() < most_open_;
    if (!accepting_) return;  // session_ended() starts it again
  }
  acceptor_.async_accept(net::make_strand(io), [this](beast::error_code ec, tcp::socket socket) {
    if (stopping || ec == net::error::operation_aborted) return;
    if (ec && ec != net::error::no_descriptors && ec != net::error::no_buffer_space &&
        ec != net::error::no_memory)
      return accept();  // the connection went away before it was taken
    if (ec) {           // out of file descriptors or memory: a pause, then again
      retry_.expires_after(std::chrono::milliseconds(50));
      retry_.async_wait([this](beast::error_code e) {
        if (!e) accept();
      });
      return;
    }
    auto session = std::make_shared<HttpSession>(std::move(socket), *this);
    {
      std::lock_guard lock(mutex_);
      sessions_.emplace(session.get(), session);
    }
    session->start();
    accept();
  });
}

void ServerState::check_readers_later() {
  if (stopping) return;
  readers_.expires_after(std::chrono::seconds(std::max(1, options.reader_check_seconds)));
  readers_.async_wait([this](beast::error_code ec) {
    if (ec || stopping) return;
    try {
      routes.db.clear_stale_readers();
    } catch (const std::exception& e) {  // the server goes on; a later check may succeed
      std::cerr << "kalah serve: warning: " << e.what() << "\n";
    }
    check_readers_later();
  });
}

void ServerState::session_ended(HttpSession* session) {
  std::lock_guard lock(mutex_);
  sessions_.erase(session);
  if (!accepting_ && !stopping && sessions_.size() < most_open_) {
    accepting_ = true;
    net::post(acceptor_.get_executor(), [this] { accept(); });
  }
}

WebServer::WebServer(const api::Database& db, const ServerOptions& options)
    : state_(std::make_unique<ServerState>(db, options)) {}

WebServer::~WebServer() = default;

int WebServer::bind(const std::string& host, int port) {
  return state_->bind(host, port);
}

bool WebServer::listen() {
  state_->serve();
  return true;
}

void WebServer::stop() {
  state_->stop();
}

}  // namespace kalah::serve
