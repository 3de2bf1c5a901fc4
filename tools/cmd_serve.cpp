// `kalah serve`: the database over HTTP, a JSON API and the position explorer page.
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <thread>

#include "command.hpp"
#include "db_open.hpp"
#include "kalah/kalah.hpp"
#include "options.hpp"
#include "web_server.hpp"

namespace kalah::cli {
namespace {

int run_serve(int argc, char** argv) {
  std::string db_path = kDefaultDbPath, host = "127.0.0.1";
  int port = 8080, connections = 32, threads = 0;
  long long tt_mb = serve_tt_mb();
  double max_time = 30;
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
      "connections served at once, each on its own thread (1..1024); more wait their turn")(
      "threads", po::value(&threads)->default_value(threads),
      "search threads of each query beyond the database; 0: all cores")(
      "tt-mb", po::value(&tt_mb)->default_value(tt_mb),
      "the analysis cache in MiB: one transposition table shared by every query and kept from one "
      "query to the next, so that the positions of a game walked move by move reuse the earlier "
      "ones' proofs; by default a sixteenth of this machine's memory, 64..1024");
  db_load.add_to(desc);
  po::variables_map vm;
  if (!parse_command(
          argc, argv,
          "serve [--db PATH] [--host ADDR] [--port N] [--max-time SEC] [--connections N] "
          "[--threads N] [--tt-mb MB] [--cache-mb MB] [--db-load auto|memory|cache] "
          "[--db-max-stones N]",
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
          "Positions beyond the database are searched (the database at the leaves, the\n"
          "analysis cache shared by all queries) for at most --max-time seconds, or a\n"
          "request's max_time when it is less. Prints the address it listens on and the\n"
          "analysis cache's size, then one line per failed request.",
          desc, {}, vm))
    return 0;
  check_range("port", port, 0, 65535);
  check_range("connections", connections, 1, 1024);
  check_range("threads", threads, 0, 256);
  check_memory_mb("tt-mb", tt_mb, 1, 1 << 20);
  if (!(max_time > 0 && max_time <= 3600)) throw InputError("--max-time must be in (0, 3600]");
  const api::Database db = open_api_database(
      db_path, !vm["db"].defaulted(), db_load, std::size_t(tt_mb) << 20,
      [](const std::string& line) { std::cerr << "kalah serve: " << line << "\n"; });

  // SIGINT and SIGTERM stop the server from a thread of their own, not inside a handler.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  WebServer server(db, max_time, threads_or_all_cores(threads), connections);
  const int bound = server.bind(host, port);
  std::string tables;
  for (const api::Table& t : db.tables())
    tables += (tables.empty() ? "" : ", ") + t.rules + " m=" + std::to_string(t.pits) +
              " <= " + std::to_string(t.max_stones);
  std::cout << "kalah serve: listening on http://" << host << ":" << bound << "/ ("
            << (db.path().empty()
                    ? "no database: search only"
                    : "database " + db.path() + ": " + (tables.empty() ? "no tables" : tables))
            << "; analysis cache " << (db.tt_bytes() >> 20) << " MiB, "
            << threads_or_all_cores(threads) << " search thread"
            << (threads_or_all_cores(threads) == 1 ? "" : "s") << " a query)" << std::endl;
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
  std::cout << "kalah serve: stopped" << std::endl;
  return 0;
}

const RegisterCommand reg{"serve", "the database over HTTP: a JSON API and an explorer page",
                          &run_serve};

}  // namespace
}  // namespace kalah::cli
