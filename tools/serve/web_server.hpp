// The HTTP server of `kalah serve`: its routes over one open database, its connections within
// HttpLimits.
#pragma once

#include <memory>
#include <string>

#include "kalah/kalah.hpp"
#include "tools/serve/server_options.hpp"

namespace kalah::serve {

class ServerState;

// GET / (the explorer page), /api/v1/query, /api/v1/analyze, /api/v1/tables and /api/v1/health
// answered from `db` as `options` bound them. Connections are read and written by two I/O
// threads (an idle or slow connection holds no thread); answers that may search run on
// options.connections worker threads. `db` must outlive the server.
class WebServer {
 public:
  WebServer(const api::Database& db, const ServerOptions& options);
  ~WebServer();
  WebServer(const WebServer&) = delete;
  WebServer& operator=(const WebServer&) = delete;

  // Binds host:port (0: any free port) and returns the port, listening from then on (connections
  // wait in the backlog until listen()); throws InputError when it cannot.
  int bind(const std::string& host, int port);
  // Serves until stop() (from another thread; also before listen()). Requests under way when
  // stop() is called are answered first; idle connections are closed. Returns true.
  bool listen();
  void stop();

 private:
  std::unique_ptr<ServerState> state_;
};

}  // namespace kalah::serve
