// WebServer: the routes of `kalah serve` and their error answers.
#include "serve/web_server.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>

#include <nlohmann/json.hpp>

#include "serve/http_api.hpp"
#include "serve/web_page.hpp"

namespace kalah::serve {
namespace {

constexpr const char* kJson = "application/json";

void send_error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  // Messages quote the request, which may hold any bytes: invalid UTF-8 becomes U+FFFD.
  res.set_content(nlohmann::json{{"error", message}}.dump(-1, ' ', false,
                                                          nlohmann::json::error_handler_t::replace),
                  kJson);
}

// What GET /api/v1/tables answers: the database, the rule sets and the tables it holds.
std::string tables_json(const api::Database& db, double max_time) {
  nlohmann::ordered_json j;
  j["db"] = db.path();
  j["rules"] = api::rule_sets();
  j["tables"] = nlohmann::json::array();
  for (const api::Table& t : db.tables())
    j["tables"].push_back({{"rules", t.rules}, {"pits", t.pits}, {"max_stones", t.max_stones}});
  j["max_time"] = max_time;
  return j.dump();
}

// What the routes share: the database, the server's options and its search admission.
struct Context {
  const api::Database& db;
  const ServerOptions& options;
  SearchAdmission& admission;
};

// The query options of a request: its max_time (capped by the server's), the server's threads.
api::QueryOptions query_options(const ApiQuery& q, const ServerOptions& options) {
  api::QueryOptions o;
  o.max_seconds = q.max_time > 0 ? std::min(q.max_time, options.max_time) : options.max_time;
  o.threads = options.threads;
  return o;
}

// The client a request counts against: ServerOptions::client_header's value, else the peer.
std::string client_of(const httplib::Request& req, const ServerOptions& options) {
  if (!options.client_header.empty() && req.has_header(options.client_header.c_str()))
    return req.get_header_value(options.client_header.c_str());
  return req.remote_addr;
}

// A search slot for the request's client, or the 503 that says none is free (nullopt).
std::optional<SearchAdmission::Ticket> admit_search(const Context& ctx, const httplib::Request& req,
                                                    httplib::Response& res) {
  std::optional<SearchAdmission::Ticket> ticket = ctx.admission.admit(client_of(req, ctx.options));
  if (!ticket) {
    res.set_header("Retry-After", "2");
    send_error(res, 503,
               "busy: every search beyond the tables that this server allows you is running (" +
                   std::to_string(ctx.admission.slots()) + " at once, " +
                   std::to_string(ctx.admission.per_client()) + " a client): retry later");
  }
  return ticket;
}

// One Server-Sent Event: "event: NAME" and one data line.
std::string sse_event(const char* name, const std::string& data) {
  return std::string("event: ") + name + "\ndata: " + data + "\n\n";
}

// GET /api/v1/analyze: the query's answer as a stream of Server-Sent Events. `answer` events carry
// the answer so far (Answer::to_json) each time the search proves more, `progress` events the
// search's status ({"line": ...}) about once a second, and `done` the final answer (or `failed`,
// {"error": ...}, when the database fails); then the stream ends. A client that goes away cancels
// the search at the next event it misses.
// The search slot `ticket` (null when the tables answer) is held until the stream ends.
void stream_analysis(const Context& ctx, const ApiQuery& q,
                     std::shared_ptr<SearchAdmission::Ticket> ticket, httplib::Response& res) {
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");  // a reverse proxy passes each event on at once
  res.set_chunked_content_provider(
      "text/event-stream",
      [&db = ctx.db, &options = ctx.options, q, ticket](std::size_t, httplib::DataSink& sink) {
        std::mutex write_mutex;
        std::atomic<bool> gone{false};
        const auto send = [&](const char* name, const std::string& data) {
          std::lock_guard lock(write_mutex);
          if (gone) return;
          const std::string event = sse_event(name, data);
          if (!sink.write(event.data(), event.size())) gone = true;
        };
        api::QueryOptions o = query_options(q, options);
        o.cancel = &gone;
        o.on_proven = [&](const api::Answer& a) { send("answer", a.to_json()); };
        o.progress = [&](const std::string& line) {
          send("progress", nlohmann::json{{"line", line}}.dump());
        };
        try {
          send("done", db.query(rules_name(q.rules), to_string(q.position), o).to_json());
        } catch (const api::Error& e) {
          send("failed", nlohmann::json{{"error", e.what()}}.dump(
                             -1, ' ', false, nlohmann::json::error_handler_t::replace));
        }
        sink.done();
        return true;
      });
}

// Runs answer(): a bad request is answered 400, a failure of the database 500.
template <class Answer>
void answering_errors(httplib::Response& res, const Answer& answer) {
  try {
    answer();
  } catch (const InputError& e) {
    send_error(res, 400, e.what());
  } catch (const api::Error& e) {
    send_error(res, e.kind() == api::Error::Kind::kInput ? 400 : 500, e.what());
  }
}

// GET /api/v1/query and /api/v1/analyze: what the tables answer at once, a search beyond them when
// admitted.
void route_queries(httplib::Server& server, const Context& ctx) {
  server.Get("/api/v1/query", [ctx](const httplib::Request& req, httplib::Response& res) {
    answering_errors(res, [&] {
      const ApiQuery q = parse_api_query(req.params);
      const std::string rules(rules_name(q.rules)), position = to_string(q.position);
      if (const std::optional<api::Answer> a = ctx.db.lookup(rules, position))
        return res.set_content(a->to_json(), kJson);
      const auto ticket = admit_search(ctx, req, res);
      if (!ticket) return;
      res.set_content(ctx.db.query(rules, position, query_options(q, ctx.options)).to_json(),
                      kJson);
    });
  });
  server.Get("/api/v1/analyze", [ctx](const httplib::Request& req, httplib::Response& res) {
    answering_errors(res, [&] {
      const ApiQuery q = parse_api_query(req.params);
      std::shared_ptr<SearchAdmission::Ticket> ticket;
      if (!ctx.db.lookup(rules_name(q.rules), to_string(q.position))) {
        auto admitted = admit_search(ctx, req, res);
        if (!admitted) return;
        ticket = std::make_shared<SearchAdmission::Ticket>(std::move(*admitted));
      }
      stream_analysis(ctx, q, std::move(ticket), res);
    });
  });
}

// GET /, /api/v1/tables and /api/v1/health, and the answers to what no route takes.
void route_pages(httplib::Server& server, const Context& ctx) {
  server.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-cache");
    res.set_content(kWebPage.data(), kWebPage.size(), "text/html; charset=utf-8");
  });
  server.Get("/api/v1/tables", [ctx](const httplib::Request&, httplib::Response& res) {
    res.set_content(tables_json(ctx.db, ctx.options.max_time), kJson);
  });
  server.Get("/api/v1/health", [ctx](const httplib::Request&, httplib::Response& res) {
    nlohmann::ordered_json j;
    j["status"] = "ok";
    j["tables"] = ctx.db.tables().size();
    j["searches"] = {{"running", ctx.admission.running()},
                     {"slots", ctx.admission.slots()},
                     {"per_client", ctx.admission.per_client()}};
    res.set_header("Cache-Control", "no-cache");
    res.set_content(j.dump(), kJson);
  });
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.body.empty())
      send_error(res, res.status,
                 res.status == 404 ? "no such page: " + req.path
                                   : "HTTP status " + std::to_string(res.status));
  });
  server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "internal error";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        std::cerr << "kalah serve: error: " << what << "\n";
        send_error(res, 500, what);
      });
}

// When this thread's request started (set before routing, read by the logger on the same thread).
thread_local std::chrono::steady_clock::time_point request_start;

// The request line as a log quotes it: '"', '\' and bytes outside printable ASCII as \xHH.
std::string log_quoted(const std::string& text) {
  std::string out;
  for (const unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += char(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += hex;
    }
  }
  return out;
}

// One access log line: Common Log Format ("-" as the size of a streamed answer), then the seconds
// from the request's arrival to the end of its answer.
std::string access_line(const std::string& client, const httplib::Request& req,
                        const httplib::Response& res, double seconds) {
  char when[40];
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(when, sizeof when, "%d/%b/%Y:%H:%M:%S +0000", &utc);
  const bool streamed =
      res.body.empty() && res.get_header_value("Content-Type") == "text/event-stream";
  char tail[64];
  std::snprintf(tail, sizeof tail, " %.4f", seconds);
  return log_quoted(client) + " - - [" + when + "] \"" +
         log_quoted(req.method + " " + req.target + " " + req.version) + "\" " +
         std::to_string(res.status) + " " + (streamed ? "-" : std::to_string(res.body.size())) +
         tail + "\n";
}

// A line on stderr per failed request; with an access log, a line there per request, naming the
// client as --searches-per-client counts it.
void report_requests(httplib::Server& server, const ServerOptions& options, std::mutex& log_mutex) {
  server.set_pre_routing_handler([](const httplib::Request&, httplib::Response&) {
    request_start = std::chrono::steady_clock::now();
    return httplib::Server::HandlerResponse::Unhandled;
  });
  server.set_logger([&options, &log_mutex](const httplib::Request& req,
                                           const httplib::Response& res) {
    if (res.status >= 400) {
      const std::string line = "kalah serve: " + std::to_string(res.status) + " " + req.method +
                               " " + req.path + (req.params.empty() ? "" : "?...") + "\n";
      std::lock_guard lock(log_mutex);
      std::cerr << line << std::flush;
    }
    if (options.access_log == nullptr) return;
    const std::string line = access_line(
        client_of(req, options), req, res,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - request_start).count());
    std::lock_guard lock(log_mutex);
    *options.access_log << line << std::flush;
  });
}

}  // namespace

WebServer::WebServer(const api::Database& db, const ServerOptions& options)
    : options_(options), admission_(options.searches, options.searches_per_client) {
  server_.new_task_queue = [n = options.connections] { return new httplib::ThreadPool(n); };
  // An answer's header and body go out at once, not held back for the client's delayed ACK.
  server_.set_tcp_nodelay(true);
  server_.set_keep_alive_max_count(1000);  // requests a connection may carry before it is closed
  const Context ctx{db, options_, admission_};
  route_queries(server_, ctx);
  route_pages(server_, ctx);
  report_requests(server_, options_, log_mutex_);
}

int WebServer::bind(const std::string& host, int port) {
  const int bound = port == 0                          ? server_.bind_to_any_port(host)
                    : server_.bind_to_port(host, port) ? port
                                                       : -1;
  if (bound < 0)
    throw InputError("cannot listen on " + host + ":" + std::to_string(port) +
                     " (address in use, not an address of this machine, or not allowed)");
  return bound;
}

}  // namespace kalah::serve
