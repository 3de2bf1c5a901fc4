// The HTTP server of `kalah serve`: its routes over one open database, on a pool of threads.
#pragma once

#include <httplib.h>

#include <string>

#include "kalah/kalah.hpp"

namespace kalah::serve {

// GET / (the explorer page), /api/v1/query, /api/v1/analyze and /api/v1/tables answered from
// `db`, each search beyond it bounded by max_time seconds on `threads` threads, up to
// `connections` connections served at once. `db` must outlive the server.
class WebServer {
 public:
  WebServer(const api::Database& db, double max_time, int threads, int connections);
  // Binds host:port (0: any free port) and returns the port, listening from then on (connections
  // wait until listen()); throws InputError when it cannot.
  int bind(const std::string& host, int port);
  // Serves until stop() (from another thread); false when it stopped on an error.
  bool listen() { return server_.listen_after_bind(); }
  void stop() { server_.stop(); }

 private:
  httplib::Server server_;
};

}  // namespace kalah::serve
