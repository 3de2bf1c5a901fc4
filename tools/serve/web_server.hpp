// The HTTP server of `kalah serve`: its routes over one open database, on a pool of threads.
#pragma once

#include <httplib.h>

#include <mutex>
#include <ostream>
#include <string>

#include "kalah/kalah.hpp"
#include "serve/search_admission.hpp"

namespace kalah::serve {

// How the server answers: the bounds of its searches and of its connections.
struct ServerOptions {
  double max_time = 30;  // seconds of search a query may take at most
  int threads = 1;       // search threads a query
  int connections = 32;  // connections served at once, a thread each
  // Searches beyond the tables at once, and at most this many for one client; a query that would
  // exceed either is answered 503 with Retry-After.
  int searches = 1;
  int searches_per_client = 1;
  // The request header that names the client (set by a reverse proxy in front, e.g. X-Real-IP);
  // empty: the connection's peer address.
  std::string client_header;
  // Gets a line per request (Common Log Format, then the seconds taken); null: none.
  std::ostream* access_log = nullptr;
};

// GET / (the explorer page), /api/v1/query, /api/v1/analyze, /api/v1/tables and /api/v1/health
// answered from `db` as `options` bound them. `db` must outlive the server.
class WebServer {
 public:
  WebServer(const api::Database& db, const ServerOptions& options);
  // Binds host:port (0: any free port) and returns the port, listening from then on (connections
  // wait until listen()); throws InputError when it cannot.
  int bind(const std::string& host, int port);
  // Serves until stop() (from another thread); false when it stopped on an error. Requests under
  // way when stop() is called are answered first.
  bool listen() { return server_.listen_after_bind(); }
  void stop() { server_.stop(); }

 private:
  ServerOptions options_;
  SearchAdmission admission_;
  std::mutex log_mutex_;
  httplib::Server server_;
};

}  // namespace kalah::serve
