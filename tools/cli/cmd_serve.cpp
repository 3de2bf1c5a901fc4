// `kalah serve`: the database over HTTP, a JSON API and the position explorer page.
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <thread>

#include "kalah/kalah.hpp"
#include "tools/cli/command.hpp"
#include "tools/cli/db_open.hpp"
#include "tools/cli/options.hpp"
#include "tools/serve/web_server.hpp"

namespace kalah::cli {
namespace {

// What the command line asked for, checked.
struct ServeArgs {
  std::string db_path = kDefaultDbPath, host = "127.0.0.1";
  bool explicit_db = false;
  int port = 8080, connections = 32, threads = 0;
  int searches = 0, searches_per_client = 0;  // 0: from the machine (parse_serve_args)
  std::string client_header, access_log;
  long long tt_mb = serve_tt_mb();
  double max_time = 30;
  DbLoadOptions db_load;
};

const char* const kServeUsage =
    "serve [--db PATH] [--host ADDR] [--port N] [--max-time SEC] [--connections N] "
    "[--threads N] [--searches N] [--searches-per-client N] [--client-header NAME] "
    "[--access-log FILE] [--tt-mb MB] [--cache-mb MB] [--db-load auto|memory|cache] "
    "[--db-max-stones N]";
const char* const kServeDescription =
    "Serves the database over HTTP until interrupted (Ctrl-C or SIGTERM):\n"
    "  GET /                   the position explorer (a page: the board, its value and\n"
    "                          every move's, click a pit to play it)\n"
    "  GET /api/v1/query?rules=R&position=P[&max_time=SEC]\n"
    "                          what `kalah query --rules R --json P` prints; a bad\n"
    "                          parameter is status 400 with {\"error\": \"...\"}\n"
    "  GET /api/v1/analyze?rules=R&position=P[&max_time=SEC]\n"
    "                          the same answer as Server-Sent Events: `answer` each\n"
    "                          time the search proves more, `progress` about once a\n"
    "                          second, `done` with the final answer\n"
    "  GET /api/v1/tables      {db, rules, tables[{rules, pits, max_stones}], max_time}\n"
    "  GET /api/v1/health      {status: \"ok\", tables, searches{running, slots,\n"
    "                          per_client}}\n"
    "Positions beyond the database are searched (the database at the leaves, the\n"
    "analysis cache shared by all queries) for at most --max-time seconds, or a\n"
    "request's max_time when it is less. At most --searches such searches run at once,\n"
    "--searches-per-client of them for one client; a query beyond them is answered\n"
    "503 with Retry-After at once (no queue). Answers from the database never wait\n"
    "for a search. Prints the address it listens on, the analysis cache's size and the\n"
    "search slots, then one line per failed request on stderr (and with --access-log\n"
    "one line per request). SIGINT or SIGTERM: the requests under way are answered,\n"
    "then it exits with status 0.";

// The limits every connection is held to, from serve::HttpLimits.
std::string serve_limits_text() {
  using L = serve::HttpLimits;
  return "Every connection is held to fixed limits: a request's line and headers within " +
         std::to_string(L::kHeaderBytes / 1024) + " KiB and " + std::to_string(L::kHeaderFields) +
         " fields\n(else 431), no request body (413), GET, HEAD and OPTIONS only (405), its "
         "header\nwhole within " +
         std::to_string(L::kHeaderSeconds) +
         " s of the connection's opening or of the previous answer (the\nkeep-alive idle "
         "timeout), " +
         std::to_string(L::kRequestsPerConnection) +
         " requests a connection; byte ranges are ignored.\nOn a public address, put a reverse "
         "proxy in front (docs/SERVING.md): TLS, and\nlimits per client.";
}

// Parses and checks the command line; false when --help was answered.
bool parse_serve_args(int argc, char** argv, ServeArgs& a) {
  po::options_description desc("options");
  add_db_option(desc, a.db_path);
  desc.add_options()("host", po::value(&a.host)->default_value(a.host),
                     "address to listen on (0.0.0.0: every interface)")(
      "port", po::value(&a.port)->default_value(a.port), "port to listen on; 0: any free port")(
      "max-time", po::value(&a.max_time)->default_value(a.max_time),
      "seconds of search per query beyond the database (0 < SEC <= 3600); what it does not "
      "settle is answered as bounds, marked not exact")(
      "connections", po::value(&a.connections)->default_value(a.connections),
      "API requests answered at once, each on a worker thread (1..1024); more wait for a free "
      "one. Connections themselves hold no thread: two threads read and write them all")(
      "threads", po::value(&a.threads)->default_value(a.threads),
      "search threads of each query beyond the database; 0: all cores")(
      "searches", po::value(&a.searches)->default_value(a.searches),
      "searches beyond the database at once, at most half of --connections; 0: the cores "
      "divided by --threads, at least 2")(
      "searches-per-client",
      po::value(&a.searches_per_client)->default_value(a.searches_per_client),
      "searches one client may run at once, 1..--searches; 0: half of --searches, at least 1")(
      "client-header", po::value(&a.client_header),
      "the request header naming the client for --searches-per-client, as a reverse proxy in "
      "front sets it (e.g. X-Real-IP); default: the connection's peer address")(
      "access-log", po::value(&a.access_log),
      "append a line per request to FILE (- : standard output): the Common Log Format (the "
      "client as --client-header names it), then the seconds the answer took")(
      "tt-mb", po::value(&a.tt_mb)->default_value(a.tt_mb),
      "the analysis cache in MiB: one transposition table shared by every query and kept from one "
      "query to the next, so that the positions of a game walked move by move reuse the earlier "
      "ones' proofs; it ages (each query's search displaces earlier queries' entries first) and "
      "takes a 32nd more for that; by default a sixteenth of the memory available at start, "
      "64..1024");
  a.db_load.add_to(desc);
  po::variables_map vm;
  if (!parse_command(argc, argv, kServeUsage,
                     std::string(kServeDescription) + "\n" + serve_limits_text(), desc, {}, vm))
    return false;
  check_range("port", a.port, 0, 65535);
  check_range("connections", a.connections, 1, 1024);
  check_range("threads", a.threads, 0, 256);
  a.threads = threads_or_all_cores(a.threads);
  check_cache_mb("tt-mb", a.tt_mb, 1, 1 << 20);
  if (!(a.max_time > 0 && a.max_time <= 3600)) throw InputError("--max-time must be in (0, 3600]");
  const int most_searches = std::max(1, a.connections / 2);
  check_range("searches", a.searches, 0, most_searches);
  if (a.searches == 0)
    a.searches = std::min(most_searches, std::max(2, threads_or_all_cores(0) / a.threads));
  check_range("searches-per-client", a.searches_per_client, 0, a.searches);
  if (a.searches_per_client == 0) a.searches_per_client = std::max(1, a.searches / 2);
  a.explicit_db = !vm["db"].defaulted();
  return true;
}

// "kalah serve: listening on http://HOST:PORT/ (database ...; analysis cache ...)".
void print_listening(const ServeArgs& a, const api::Database& db, int port) {
  std::string tables;
  for (const api::Table& t : db.tables())
    tables += (tables.empty() ? "" : ", ") + t.rules + " m=" + std::to_string(t.pits) +
              " <= " + std::to_string(t.max_stones);
  std::cout << "kalah serve: listening on http://" << a.host << ":" << port << "/ ("
            << (db.path().empty()
                    ? "no database: search only"
                    : "database " + db.path() + ": " + (tables.empty() ? "no tables" : tables))
            << "; analysis cache " << (db.tt_bytes() >> 20) << " MiB, " << a.threads
            << " search thread" << (a.threads == 1 ? "" : "s") << " a query, " << a.searches
            << " search" << (a.searches == 1 ? "" : "es") << " at once, " << a.searches_per_client
            << " a client)" << std::endl;
}

// Serves until SIGINT or SIGTERM, which stop the server from a thread of their own, not inside a
// handler.
void serve_until_signalled(serve::WebServer& server, sigset_t stop_signals) {
  std::atomic<bool> signalled = false;
  std::thread stopper([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    signalled = true;
    server.stop();
  });
  const bool served = server.listen();
  if (!signalled) pthread_kill(stopper.native_handle(), SIGTERM);  // it stopped on its own
  stopper.join();
  if (!served && !signalled) throw std::runtime_error("the server stopped unexpectedly");
}

int run_serve(int argc, char** argv) {
  ServeArgs a;
  if (!parse_serve_args(argc, argv, a)) return 0;
  const std::size_t tt_bytes = std::size_t(a.tt_mb) << 20;
  const api::Database db = allocate_tt("tt-mb", tt_bytes, [&] {
    return open_api_database(
        a.db_path, a.explicit_db, a.db_load, tt_bytes,
        [](const std::string& line) { std::cerr << "kalah serve: " << line << "\n"; });
  });
  // Blocked in every thread (set before any starts), so that only the stopper receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::ofstream log_file;
  if (!a.access_log.empty() && a.access_log != "-") {
    log_file.open(a.access_log, std::ios::app);
    if (!log_file)
      throw std::runtime_error("cannot open the access log " + a.access_log + " (" +
                               std::strerror(errno) + ")");
  }
  serve::ServerOptions options;
  options.max_time = a.max_time;
  options.threads = a.threads;
  options.connections = a.connections;
  options.searches = a.searches;
  options.searches_per_client = a.searches_per_client;
  options.client_header = a.client_header;
  options.access_log = a.access_log.empty()  ? nullptr
                       : a.access_log == "-" ? &std::cout
                                             : static_cast<std::ostream*>(&log_file);
  serve::WebServer server(db, options);
  print_listening(a, db, server.bind(a.host, a.port));
  serve_until_signalled(server, stop_signals);
  std::cout << "kalah serve: stopped" << std::endl;
  return 0;
}

const RegisterCommand reg{"serve", "the database over HTTP: a JSON API and an explorer page",
                          &run_serve};

}  // namespace
}  // namespace kalah::cli
