// What bounds `kalah serve`: the options its command line sets and the HTTP limits it always keeps.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

namespace kalah::serve {

// How the server answers: the bounds of its searches and of its work at once.
struct ServerOptions {
  double max_time = 30;  // seconds of search a query may take at most
  int threads = 1;       // search threads a query
  // Requests to the API (/api/v1/query, /api/v1/analyze) answered at once, a worker thread each;
  // more wait for a free worker. Connections themselves cost no thread.
  int connections = 32;
  // Searches beyond the tables at once, and at most this many for one client; a query that would
  // exceed either is answered 503 with Retry-After.
  int searches = 1;
  int searches_per_client = 1;
  // The request header that names the client (set by a reverse proxy in front, e.g. X-Real-IP);
  // empty: the connection's peer address.
  std::string client_header;
  // Gets a line per request (Common Log Format, then the seconds taken); null: none.
  std::ostream* access_log = nullptr;
  // How often the server frees the database's reader slots that killed processes left
  // (api::Database::clear_stale_readers), in seconds.
  int reader_check_seconds = 60;
};

// The limits every connection is held to (docs/SERVING.md, "Limits", lists them). A request
// beyond one is refused with the status named, its connection closed; nothing a client sends is
// kept beyond them.
struct HttpLimits {
  // The request line and header fields together, in bytes: 431 beyond.
  static constexpr std::size_t kHeaderBytes = 8 * 1024;
  // Header fields in one request: 431 beyond.
  static constexpr std::size_t kHeaderFields = 100;
  // The API is GET only: a request that announces a body (Content-Length > 0 or chunked) is
  // answered 413 (405 for a method other than GET and HEAD) without its body being read.
  static constexpr std::size_t kBodyBytes = 0;
  // A request's header must arrive whole within this many seconds of the connection's opening or
  // of the previous answer's end (the keep-alive idle timeout); else the connection is closed.
  static constexpr int kHeaderSeconds = 10;
  // Requests one connection may carry; the last answer says Connection: close.
  static constexpr int kRequestsPerConnection = 1000;
  // Seconds a write to the client may take (each event of a stream on its own); else the
  // connection is closed (and a stream's search cancelled).
  static constexpr int kWriteSeconds = 30;
  // Connections that have finished being accepted but not yet taken by the server (the kernel's
  // listen backlog; Linux caps it at net.core.somaxconn).
  static constexpr int kListenBacklog = 1024;
  // Connections open at once; beyond it the server accepts no more until one closes (they wait
  // in the backlog). Also kept below the process's file descriptor limit.
  static constexpr int kOpenConnections = 10000;
  // After refusing a request that may still be sending (a body, a header cut off), the server
  // reads and discards what follows for at most this long and this many bytes before it closes,
  // so that the refusal reaches the client before the connection is reset.
  static constexpr int kLingerSeconds = 2;
  static constexpr std::size_t kLingerBytes = 1 << 20;
  // Client text (a path, a header's value, a message quoting them) in a log line, in bytes.
  static constexpr std::size_t kLoggedTextBytes = 256;
};

}  // namespace kalah::serve
