// `kalah serve`: the database over HTTP, a JSON API and the position explorer page.
#include <httplib.h>
#include <signal.h>

#include <atomic>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "command.hpp"
#include "db_open.hpp"
#include "http_api.hpp"
#include "kalah/kalah.hpp"
#include "options.hpp"
#include "web_page.hpp"

namespace kalah::cli {
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

// The routes, on a server whose handlers run on `connections` threads.
void route(httplib::Server& server, const api::Database& db, double max_time) {
  server.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-cache");
    res.set_content(kWebPage.data(), kWebPage.size(), "text/html; charset=utf-8");
  });
  server.Get("/api/v1/query", [&db, max_time](const httplib::Request& req, httplib::Response& res) {
    try {
      const ApiQuery q = parse_api_query(req.params);
      res.set_content(db.query(rules_name(q.rules), to_string(q.position), max_time, 1).to_json(),
                      kJson);
    } catch (const InputError& e) {
      send_error(res, 400, e.what());
    } catch (const api::Error& e) {
      send_error(res, e.kind() == api::Error::Kind::kInput ? 400 : 500, e.what());
    }
  });
  server.Get("/api/v1/tables", [&db, max_time](const httplib::Request&, httplib::Response& res) {
    res.set_content(tables_json(db, max_time), kJson);
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

int run_serve(int argc, char** argv) {
  std::string db_path = kDefaultDbPath, host = "127.0.0.1";
  int port = 8080, connections = 32;
  double max_time = 10;
  DbLoadOptions db_load;
  po::options_description desc("options");
  add_db_option(desc, db_path);
  desc.add_options()("host", po::value(&host)->default_value(host),
                     "address to listen on (0.0.0.0: every interface)")(
      "port", po::value(&port)->default_value(port), "port to listen on; 0: any free port")(
      "max-time", po::value(&max_time)->default_value(max_time),
      "seconds of search per query beyond the database (0 < SEC <= 3600); what it does not "
      "settle is answered as bounds, marked not exact")(
      "connections", po::value(&connections)->default_value(connections),
      "connections served at once, each on its own thread (1..1024); more wait their turn");
  db_load.add_to(desc,
                 "the LRU block cache, and the whole table decoded into memory (once) at the first "
                 "query 8 or more stones in pits beyond it, when it fits --cache-mb");
  po::variables_map vm;
  if (!parse_command(
          argc, argv,
          "serve [--db PATH] [--host ADDR] [--port N] [--max-time SEC] [--connections N] "
          "[--cache-mb MB] [--db-load auto|memory|cache] [--db-max-stones N]",
          "Serves the database over HTTP until interrupted (Ctrl-C or SIGTERM):\n"
          "  GET /                   the position explorer (a page: the board, its value and\n"
          "                          every move's, click a pit to play it)\n"
          "  GET /api/v1/query?rules=R&position=P\n"
          "                          what `kalah query --rules R --json P` prints; a bad\n"
          "                          parameter is status 400 with {\"error\": \"...\"}\n"
          "  GET /api/v1/tables      {db, rules, tables[{rules, pits, max_stones}], max_time}\n"
          "Positions beyond the database are searched (one thread each, the database at the\n"
          "leaves) for at most --max-time seconds. Prints the address it listens on, then\n"
          "one line per failed request.",
          desc, {}, vm))
    return 0;
  check_range("port", port, 0, 65535);
  check_range("connections", connections, 1, 1024);
  if (!(max_time > 0 && max_time <= 3600)) throw InputError("--max-time must be in (0, 3600]");
  const api::Database db = open_api_database(
      db_path, !vm["db"].defaulted(), db_load,
      [](const std::string& line) { std::cerr << "kalah serve: " << line << "\n"; });

  // SIGINT and SIGTERM stop the server from a thread of their own, not inside a handler.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  httplib::Server server;
  server.new_task_queue = [connections] { return new httplib::ThreadPool(connections); };
  // An answer's header and body go out at once, not held back for the client's delayed ACK.
  server.set_tcp_nodelay(true);
  server.set_keep_alive_max_count(1000);  // requests a connection may carry before it is closed
  route(server, db, max_time);
  const int bound = port == 0                         ? server.bind_to_any_port(host)
                    : server.bind_to_port(host, port) ? port
                                                      : -1;
  if (bound < 0)
    throw InputError("cannot listen on " + host + ":" + std::to_string(port) +
                     " (address in use, not an address of this machine, or not allowed)");
  std::string tables;
  for (const api::Table& t : db.tables())
    tables += (tables.empty() ? "" : ", ") + t.rules + " m=" + std::to_string(t.pits) +
              " <= " + std::to_string(t.max_stones);
  std::cout << "kalah serve: listening on http://" << host << ":" << bound << "/ ("
            << (db.path().empty()
                    ? "no database: search only"
                    : "database " + db.path() + ": " + (tables.empty() ? "no tables" : tables))
            << ")" << std::endl;
  std::atomic<bool> signalled = false;
  std::thread stopper([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    signalled = true;
    server.stop();
  });
  const bool served = server.listen_after_bind();
  if (!signalled) pthread_kill(stopper.native_handle(), SIGTERM);  // it stopped on its own
  stopper.join();
  if (!served && !signalled) throw std::runtime_error("the server stopped unexpectedly");
  std::cout << "kalah serve: stopped" << std::endl;
  return 0;
}

const RegisterCommand reg{"serve", "the database over HTTP: a JSON API and an explorer page",
                          &run_serve};

}  // namespace
}  // namespace kalah::cli
