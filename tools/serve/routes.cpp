// The routes of `kalah serve`: the page, the API's answers and their error answers.
#include "tools/serve/routes.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>

#include <nlohmann/json.hpp>

#include "engine/rules.hpp"
#include "tools/serve/gzip.hpp"
#include "tools/serve/http_api.hpp"
#include "tools/serve/web_page.hpp"

namespace kalah::serve {
namespace {

constexpr const char* kJson = "application/json";

// JSON text of `j`; strings with invalid UTF-8 (quoting a request) get U+FFFD.
std::string dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Reply json_reply(std::string body) {
  Reply r;
  r.content_type = kJson;
  r.body = std::move(body);
  return r;
}

// What GET /api/v1/tables answers: the database's name (its directory's, not its path on the
// server), the rule sets (and each one's stones a pit at the start of a new game) and the tables
// it holds.
std::string tables_json(const api::Database& db, double max_time) {
  nlohmann::ordered_json j;
  j["db"] = std::filesystem::path(db.path()).filename().string();
  j["rules"] = api::rule_sets();
  j["start_stones"] = nlohmann::ordered_json::object();
  for_each_rules([&](Rules r) { j["start_stones"][std::string(rules_name(r))] = start_stones(r); });
  j["tables"] = nlohmann::json::array();
  for (const api::Table& t : db.tables())
    j["tables"].push_back({{"rules", t.rules}, {"pits", t.pits}, {"max_stones", t.max_stones}});
  j["max_time"] = max_time;
  return j.dump();
}

std::string health_json(const RouteContext& ctx) {
  nlohmann::ordered_json j;
  j["status"] = "ok";
  j["tables"] = ctx.db.tables().size();
  j["searches"] = {{"running", ctx.admission.running()},
                   {"slots", ctx.admission.slots()},
                   {"per_client", ctx.admission.per_client()}};
  return j.dump();
}

// GET /: the page, gzip-encoded for a client that accepts it (compressed once, on first use).
Reply page(bool gzip_ok) {
  static const std::string compressed = gzip(kWebPage);
  Reply r;
  r.content_type = "text/html; charset=utf-8";
  r.headers = {{"Cache-Control", "no-cache"}, {"Vary", "Accept-Encoding"}};
  if (gzip_ok) {
    r.headers.emplace_back("Content-Encoding", "gzip");
    r.body = compressed;
  } else {
    r.body = std::string(kWebPage);
  }
  return r;
}

// The query options of a request: its max_time (capped by the server's), the server's threads.
api::QueryOptions query_options(const ApiQuery& q, const ServerOptions& options) {
  api::QueryOptions o;
  o.max_seconds = q.max_time > 0 ? std::min(q.max_time, options.max_time) : options.max_time;
  o.threads = options.threads;
  return o;
}

// The 503 that says no search slot is free for the client.
Reply busy(const SearchAdmission& admission) {
  Reply r = error_reply(
      503, "busy: every search beyond the tables that this server allows you is running (" +
               std::to_string(admission.slots()) + " at once, " +
               std::to_string(admission.per_client()) + " a client): retry later");
  r.headers.emplace_back("Retry-After", "2");
  return r;
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
// The search slot `ticket` (null when the tables answer) is held until the search ends.
Reply stream_analysis(const RouteContext& ctx, const ApiQuery& q,
                      std::shared_ptr<SearchAdmission::Ticket> ticket) {
  Reply r;
  r.content_type = "text/event-stream";
  r.headers = {{"Cache-Control", "no-cache"},
               {"X-Accel-Buffering", "no"}};  // a reverse proxy passes each event on at once
  r.stream = [&db = ctx.db, &options = ctx.options, q, ticket](const StreamWriter& write) {
    std::mutex write_mutex;
    std::atomic<bool> gone{false};
    const auto send = [&](const char* name, const std::string& data) {
      std::lock_guard lock(write_mutex);
      if (!gone && !write(sse_event(name, data))) gone = true;
    };
    api::QueryOptions o = query_options(q, options);
    o.cancel = &gone;
    o.on_proven = [&](const api::Answer& a) { send("answer", a.to_json()); };
    o.progress = [&](const std::string& line) { send("progress", dump({{"line", line}})); };
    // The slot is given back before the last event: a client that reads it may search again.
    std::string name = "done", data;
    try {
      data = db.query(rules_name(q.rules), to_string(q.position), o).to_json();
    } catch (const api::Error& e) {
      name = "failed";
      data = dump({{"error", e.what()}});
    }
    if (ticket) ticket->release();
    send(name.c_str(), data);
  };
  return r;
}

// GET /api/v1/query: what the tables answer at once, a search beyond them when admitted (nullopt
// instead when `at_once`).
std::optional<Reply> query(const Request& req, const RouteContext& ctx, bool at_once) {
  const ApiQuery q = parse_api_query(parse_query_string(req.query));
  const std::string rules(rules_name(q.rules)), position = to_string(q.position);
  if (const std::optional<api::Answer> a = ctx.db.lookup(rules, position))
    return json_reply(a->to_json());
  if (at_once) return std::nullopt;
  const std::optional<SearchAdmission::Ticket> ticket = ctx.admission.admit(req.client);
  if (!ticket) return busy(ctx.admission);
  return json_reply(ctx.db.query(rules, position, query_options(q, ctx.options)).to_json());
}

// GET /api/v1/analyze: the stream, its search slot taken first when the tables do not answer
// (nullopt instead when `at_once`, but for a bad request).
std::optional<Reply> analyze(const Request& req, const RouteContext& ctx, bool at_once) {
  const ApiQuery q = parse_api_query(parse_query_string(req.query));
  if (at_once) return std::nullopt;
  std::shared_ptr<SearchAdmission::Ticket> ticket;
  if (!ctx.db.lookup(rules_name(q.rules), to_string(q.position))) {
    std::optional<SearchAdmission::Ticket> admitted = ctx.admission.admit(req.client);
    if (!admitted) return busy(ctx.admission);
    ticket = std::make_shared<SearchAdmission::Ticket>(std::move(*admitted));
  }
  return stream_analysis(ctx, q, std::move(ticket));
}

std::optional<Reply> route(const Request& req, const RouteContext& ctx, bool at_once) {
  if (req.path == "/") return page(req.gzip);
  if (req.path == "/api/v1/query") return query(req, ctx, at_once);
  if (req.path == "/api/v1/analyze") return analyze(req, ctx, at_once);
  if (req.path == "/api/v1/tables") return json_reply(tables_json(ctx.db, ctx.options.max_time));
  if (req.path == "/api/v1/health") {
    Reply r = json_reply(health_json(ctx));
    r.headers.emplace_back("Cache-Control", "no-cache");
    return r;
  }
  return error_reply(404, "no such page: " + req.path.substr(0, 256));
}

// route(), a failure its error answer: a bad request 400, the database's failure 500.
std::optional<Reply> answering_errors(const Request& req, const RouteContext& ctx, bool at_once) {
  try {
    return route(req, ctx, at_once);
  } catch (const InputError& e) {
    return error_reply(400, e.what());
  } catch (const api::Error& e) {
    return error_reply(e.kind() == api::Error::Kind::kInput ? 400 : 500, e.what());
  } catch (const std::exception& e) {
    return error_reply(500, std::string("internal error: ") + e.what());
  } catch (...) {
    return error_reply(500, "internal error");
  }
}

}  // namespace

std::optional<Reply> answer_at_once(const Request& req, const RouteContext& ctx) {
  return answering_errors(req, ctx, true);
}

Reply answer(const Request& req, const RouteContext& ctx) {
  return *answering_errors(req, ctx, false);
}

Reply error_reply(int status, const std::string& message) {
  Reply r = json_reply(dump({{"error", message}}));
  r.status = status;
  r.error = message;
  return r;
}

bool accepts_gzip(std::string_view accept_encoding) {
  const auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  };
  // Comma-separated codings, each with optional parameters: "gzip;q=0.5, br". A coding named
  // gzip decides; else "*" does.
  std::optional<bool> gzip_named, star;
  while (!accept_encoding.empty()) {
    const std::size_t comma = accept_encoding.find(',');
    const std::string_view item = accept_encoding.substr(0, comma);
    accept_encoding =
        comma == std::string_view::npos ? std::string_view() : accept_encoding.substr(comma + 1);
    const std::size_t semi = item.find(';');
    std::string coding(trim(item.substr(0, semi)));
    std::transform(coding.begin(), coding.end(), coding.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    const std::string_view params =
        trim(semi == std::string_view::npos ? "" : item.substr(semi + 1));
    // q=0 (0, 0.0, 0.00, 0.000) refuses the coding; any other weight accepts it.
    const bool accepted =
        !(params.size() >= 3 && (params[0] == 'q' || params[0] == 'Q') && params[1] == '=' &&
          params.substr(2).find_first_not_of("0.") == std::string_view::npos);
    if (coding == "gzip" || coding == "x-gzip") gzip_named = accepted;
    if (coding == "*") star = accepted;
  }
  return gzip_named.value_or(star.value_or(false));
}

}  // namespace kalah::serve
