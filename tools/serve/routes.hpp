// The answers of `kalah serve`'s routes, apart from the connection that carries them.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kalah/kalah.hpp"
#include "tools/serve/search_admission.hpp"
#include "tools/serve/server_options.hpp"

namespace kalah::serve {

// A GET or HEAD request as the routes see it, its header already within HttpLimits.
struct Request {
  std::string path;    // the target up to '?', as sent
  std::string query;   // the target after '?', as sent (not decoded)
  std::string client;  // who --searches-per-client counts: the client header's value, else the peer
  bool gzip = false;   // the client accepts a gzip-encoded answer (Accept-Encoding)
};

// Sends one piece of a streamed answer; false once the client is gone (nothing more is sent).
using StreamWriter = std::function<bool(std::string_view)>;

// An answer: a status, its headers and a body, or a body streamed as it is made.
struct Reply {
  int status = 200;
  std::string content_type;  // empty: no body
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string error;  // why it failed (status >= 400), for the log
  // A streamed answer (chunked, the body unused): called once on a worker thread with the writer.
  std::function<void(const StreamWriter&)> stream;
};

// What the routes share: the database, the server's options and its search admission.
struct RouteContext {
  const api::Database& db;
  const ServerOptions& options;
  SearchAdmission& admission;
};

// The answer to GET `req` when it is ready at once: every route but a search beyond the tables
// and a stream, which give nullopt (answer() then runs on a worker thread, --connections of
// them). Throws nothing.
std::optional<Reply> answer_at_once(const Request& req, const RouteContext& ctx);

// The answer to GET `req` (HEAD: the same, its body left unsent): GET / (the explorer page),
// /api/v1/query, /api/v1/analyze, /api/v1/tables, /api/v1/health; 404 for any other path. Throws
// nothing: a failure of the database is a 500 answer.
Reply answer(const Request& req, const RouteContext& ctx);

// A refusal: `status` with {"error": message} (message may hold any bytes).
Reply error_reply(int status, const std::string& message);

// Whether an Accept-Encoding header's value accepts gzip (a "gzip" or "*" coding, not q=0).
bool accepts_gzip(std::string_view accept_encoding);

}  // namespace kalah::serve
