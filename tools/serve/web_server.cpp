// WebServer: the routes of `kalah serve` and their error answers.
#include "web_server.hpp"

#include <algorithm>
#include <atomic>
#include <iostream>
#include <mutex>

#include <nlohmann/json.hpp>

#include "http_api.hpp"
#include "web_page.hpp"

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

// What a route needs: the database and the limits of its searches.
struct Limits {
  double max_time;  // seconds of search a query may take at most
  int threads;      // search threads a query
};

// The query options of a request: its max_time (capped by the server's), the server's threads.
api::QueryOptions query_options(const ApiQuery& q, const Limits& limits) {
  api::QueryOptions o;
  o.max_seconds = q.max_time > 0 ? std::min(q.max_time, limits.max_time) : limits.max_time;
  o.threads = limits.threads;
  return o;
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
void stream_analysis(const api::Database& db, const ApiQuery& q, const Limits& limits,
                     httplib::Response& res) {
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream", [&db, q, limits](std::size_t, httplib::DataSink& sink) {
        std::mutex write_mutex;
        std::atomic<bool> gone{false};
        const auto send = [&](const char* name, const std::string& data) {
          std::lock_guard lock(write_mutex);
          if (gone) return;
          const std::string event = sse_event(name, data);
          if (!sink.write(event.data(), event.size())) gone = true;
        };
        api::QueryOptions o = query_options(q, limits);
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

// The routes of WebServer.
void route(httplib::Server& server, const api::Database& db, const Limits& limits) {
  server.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-cache");
    res.set_content(kWebPage.data(), kWebPage.size(), "text/html; charset=utf-8");
  });
  server.Get("/api/v1/query", [&db, limits](const httplib::Request& req, httplib::Response& res) {
    try {
      const ApiQuery q = parse_api_query(req.params);
      res.set_content(
          db.query(rules_name(q.rules), to_string(q.position), query_options(q, limits)).to_json(),
          kJson);
    } catch (const InputError& e) {
      send_error(res, 400, e.what());
    } catch (const api::Error& e) {
      send_error(res, e.kind() == api::Error::Kind::kInput ? 400 : 500, e.what());
    }
  });
  server.Get("/api/v1/analyze", [&db, limits](const httplib::Request& req, httplib::Response& res) {
    try {
      stream_analysis(db, parse_api_query(req.params), limits, res);
    } catch (const InputError& e) {
      send_error(res, 400, e.what());
    }
  });
  server.Get("/api/v1/tables", [&db, limits](const httplib::Request&, httplib::Response& res) {
    res.set_content(tables_json(db, limits.max_time), kJson);
  });
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.body.empty())
      send_error(res, res.status,
                 res.status == 404 ? "no such page: " + req.path
                                   : "HTTP status " + std::to_string(res.status));
  });
  server.set_logger([](const httplib::Request& req, const httplib::Response& res) {
    if (res.status >= 400)
      std::cerr << "kalah serve: " << res.status << " " << req.method << " " << req.path
                << (req.params.empty() ? "" : "?...") << "\n";
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

}  // namespace

WebServer::WebServer(const api::Database& db, double max_time, int threads, int connections) {
  server_.new_task_queue = [connections] { return new httplib::ThreadPool(connections); };
  // An answer's header and body go out at once, not held back for the client's delayed ACK.
  server_.set_tcp_nodelay(true);
  server_.set_keep_alive_max_count(1000);  // requests a connection may carry before it is closed
  route(server_, db, Limits{max_time, threads});
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
