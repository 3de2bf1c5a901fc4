// `kalah bench serve`: queries inside a table through kalah serve's HTTP API from many connections.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include <nlohmann/json.hpp>

#include "db/xxhash64.hpp"
#include "engine/stopwatch.hpp"
#include "tools/cli/bench/bench.hpp"
#include "tools/cli/bench/bench_serve.hpp"
#include "tools/cli/bench/serve_load.hpp"
#include "tools/cli/db_open.hpp"
#include "tools/cli/options.hpp"
#include "tools/serve/http_api.hpp"
#include "tools/serve/web_server.hpp"

namespace kalah::cli {

// The request GET /api/v1/query of `position` under `rules`.
std::string query_target(const std::string& rules, const std::string& position) {
  return "/api/v1/query?rules=" + serve::encode_query_component(rules) +
         "&position=" + serve::encode_query_component(position);
}

// `count` distinct positions of table t's board (random_positions), as text.
std::vector<std::string> positions_with(const api::Table& t, int lo, int hi, int count) {
  std::vector<std::string> out;
  for (const Position& p : random_positions(*parse_rules(t.rules), t.pits, lo, hi, count))
    out.push_back(to_string(p));
  if (out.empty()) throw InputError("the " + t.rules + " table has no position to query");
  return out;
}

// Beyond the table each expected answer is a cold search: the analysis cache emptied before it.
ServeWork serve_work(const ServeBenchArgs& a, const api::Database& db, const api::Table& table,
                     const std::vector<std::string>& positions) {
  ServeWork w;
  Xxh64Stream signature;
  for (const std::string& p : positions) {
    w.targets.push_back(query_target(table.rules, p));
    // Beyond the table a cold answer: the analysis cache emptied before each.
    if (a.beyond_lo >= 0) db.clear_cache();
    w.expected.push_back(db.query(table.rules, p, 0, a.threads).to_json());
    signature.update(w.expected.back().data(), w.expected.back().size());
  }
  w.signature = signature.digest();
  return w;
}

// The server's resident memory in MiB (VmRSS of /proc/PID/status), or -1.
long process_rss_mib(int pid) {
  if (pid <= 0) return -1;
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/status").c_str(), "r");
  if (f == nullptr) return -1;
  long kib = -1;
  char line[256];
  while (std::fgets(line, sizeof line, f) != nullptr)
    if (std::sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
  std::fclose(f);
  return kib < 0 ? -1 : kib >> 10;
}

namespace {

const char* const kServeBenchUsage =
    "bench serve [--db PATH] [--rules R] [--requests N] [--connections C] [--positions N] "
    "[--beyond LO-HI] [--threads N] [--tt-mb MB] | [--url HOST:PORT [--rate R] [--seconds S] "
    "[--slow-clients N [--slow-interval SEC]] [--searchers N] [--client-addresses N] "
    "[--server-pid PID] [--check N] [--walk PLIES [--walk-from POSITION]]]";
const char* const kServeBenchDescription =
    "Starts kalah serve's server in this process on a free loopback port, asks\n"
    "GET /api/v1/query for positions of one table's board (fixed seed, kalahs empty;\n"
    "inside the table, or --beyond it) over C keep-alive connections at once, and checks\n"
    "every answer against the library's Answer::to_json (beyond the table: a search with\n"
    "a cache of its own for each position). Prints requests, seconds, requests/s and the\n"
    "process's resident memory after the load beside the analysis cache; the\n"
    "signature is the XXH64 of the expected answers, the same on every run. Exit 1 on a\n"
    "wrong answer.\n"
    "With --url, a load against a server already running there (kalah serve, or a proxy\n"
    "in front of it, serving --db's table): --slow-clients connections that each send a\n"
    "request line and then one header byte every --slow-interval seconds (each one the\n"
    "server drops is opened again), --searchers clients each asking fresh positions\n"
    "--beyond the table (default 16-24) one after another, and queries inside the table\n"
    "due at --rate a second for --seconds over C connections, each checked against the\n"
    "library. Prints the inside queries' latency from the moment each was due (p50, p99,\n"
    "max), how many were refused (503, 429) or failed (no reply 5 s after it was sent,\n"
    "or not sent 5 s after it was due), the slow clients held open, the searches answered\n"
    "and refused, and with --server-pid the server's resident memory before and after.\n"
    "Clients connect from --client-addresses loopback addresses (127.0.0.2 on), so that a\n"
    "proxy's limits a client see several. --check N: the first N searches answered are\n"
    "searched again afterwards by the library, cold and without a time limit; every value the\n"
    "server gave as exact must equal it and every bound must hold it. --walk PLIES: after\n"
    "the load (--seconds 0: none), one query inside the table and one search 4 stones beyond\n"
    "it (so that the table is decoded and the cache allocated before the clock starts), a\n"
    "game is walked through the server from --walk-from, each ply's position queried and its\n"
    "first move marked best played, until PLIES, the game's end or an answer without an\n"
    "exact best move; prints its plies, seconds and the signature of its positions (equal\n"
    "signatures: the same game). Exit 1 on a wrong or failed query inside the table, a checked\n"
    "answer that is wrong, or a walk query not answered.";

// The options of `kalah bench serve`, bound to a (and --beyond to `beyond`).
void add_serve_bench_options(po::options_description& desc, ServeBenchArgs& a,
                             std::string& beyond) {
  add_db_option(desc, a.db_path);
  desc.add_options()("rules", po::value(&a.rules),
                     "the table's rule set (default: the database's first table)")(
      "requests", po::value(&a.requests)->default_value(a.requests), "requests in all (1..10^8)")(
      "connections", po::value(&a.connections)->default_value(a.connections),
      "client connections at once, each on its own thread (1..1024); the server serves as many")(
      "positions", po::value(&a.distinct)->default_value(a.distinct),
      "distinct positions asked, cycled through (1..10^6)")(
      "beyond", po::value(&beyond),
      "ask positions with N (or LO-HI) stones in pits more than the table holds: each a search "
      "through the server's analysis cache, its answer checked against a cold search of its own "
      "(default: positions inside the table)")(
      "threads", po::value(&a.threads)->default_value(a.threads),
      "the server's search threads a query (kalah serve --threads; 0: all cores)")(
      "tt-mb", po::value(&a.tt_mb)->default_value(a.tt_mb), "the server's analysis cache in MiB")(
      "url", po::value(&a.url), "load a server running at HOST:PORT instead")(
      "rate", po::value(&a.rate)->default_value(a.rate),
      "--url: queries inside the table a second (0 < R <= 100000)")(
      "seconds", po::value(&a.seconds)->default_value(a.seconds),
      "--url: how long the load runs (0 <= S <= 86400; 0 with --walk alone)")(
      "slow-clients", po::value(&a.slow_clients)->default_value(a.slow_clients),
      "--url: connections trickling a request that never ends (0..60000)")(
      "slow-interval", po::value(&a.slow_interval)->default_value(a.slow_interval),
      "--url: seconds between a slow client's bytes (0 < SEC <= 3600)")(
      "searchers", po::value(&a.searchers)->default_value(a.searchers),
      "--url: clients asking fresh positions beyond the table, one after another (0..1024)")(
      "client-addresses", po::value(&a.client_addresses)->default_value(a.client_addresses),
      "--url: loopback addresses the clients connect from, 127.0.0.2 on (1..250)")(
      "server-pid", po::value(&a.server_pid), "--url: the server's process, for its memory")(
      "check", po::value(&a.check)->default_value(a.check),
      "--url: searches answered that are checked against a cold search afterwards (0..100000)")(
      "walk", po::value(&a.walk)->default_value(a.walk),
      "--url: plies of a game walked through the server after the load (0..200)")(
      "walk-from", po::value(&a.walk_from),
      "--url: the walk's first position (default: the table's board with 3 stones a pit)");
}

// Checks the options of a load on a running server (--url).
void check_url_load_args(const po::variables_map& vm, const ServeBenchArgs& a) {
  if (!(a.rate > 0 && a.rate <= 100000)) throw InputError("--rate must be in (0, 100000]");
  if (!(a.seconds >= 0 && a.seconds <= 86400)) throw InputError("--seconds must be in [0, 86400]");
  if (!(a.slow_interval > 0 && a.slow_interval <= 3600))
    throw InputError("--slow-interval must be in (0, 3600]");
  check_range("slow-clients", a.slow_clients, 0, 60000);
  check_range("searchers", a.searchers, 0, 1024);
  check_range("client-addresses", a.client_addresses, 1, 250);
  check_range("check", a.check, 0, 100000);
  check_range("walk", a.walk, 0, 200);
  refuse_unless(vm, "walk-from", a.walk > 0, "needs --walk");
}

// Parses and checks the command line; false when --help was answered.
bool parse_serve_bench_args(int argc, char** argv, ServeBenchArgs& a) {
  std::string beyond;
  po::options_description desc("options");
  add_serve_bench_options(desc, a, beyond);
  po::variables_map vm;
  if (!parse_command(argc, argv, kServeBenchUsage, kServeBenchDescription, desc, {}, vm))
    return false;
  check_range("requests", a.requests, 1, 100'000'000);
  check_range("connections", a.connections, 1, 1024);
  check_range("positions", a.distinct, 1, 1'000'000);
  check_range("threads", a.threads, 0, 256);
  a.threads = threads_or_all_cores(a.threads);
  check_cache_mb("tt-mb", a.tt_mb, 1, 1 << 20);
  if (!beyond.empty()) std::tie(a.beyond_lo, a.beyond_hi) = parse_beyond("beyond", beyond);
  if (a.url.empty()) {
    for (const char* o : {"rate", "seconds", "slow-clients", "slow-interval", "searchers",
                          "client-addresses", "server-pid", "check", "walk", "walk-from"})
      refuse_unless(vm, o, false, "applies only to --url");
    return true;
  }
  check_url_load_args(vm, a);
  if (beyond.empty()) std::tie(a.beyond_lo, a.beyond_hi) = std::pair(16, 24);
  return true;
}

// Serves the requests from a.connections clients at once, the server cold at the start; returns
// the seconds taken and counts the wrong answers.
double serve_requests(const ServeBenchArgs& a, const api::Database& db, const ServeWork& w,
                      std::atomic<long long>& wrong) {
  db.clear_cache();  // the server starts cold
  serve::ServerOptions options;
  options.max_time = 3600;
  options.threads = a.threads;
  options.connections = a.connections;
  options.searches = options.searches_per_client = a.connections;  // every request answered
  serve::WebServer server(db, options);
  const int port = server.bind("127.0.0.1", 0);
  std::thread serving([&] { server.listen(); });
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> clients;
  for (int c = 0; c < a.connections; ++c)
    clients.emplace_back([&, c] {
      HttpConnection client(HostPort{"127.0.0.1", port}, "", 3600);
      for (int i = c; i < a.requests; i += a.connections) {
        const std::size_t k = std::size_t(i) % w.targets.size();
        const HttpConnection::Reply res = client.get(w.targets[k]);
        if (res.status != 200 || res.body != w.expected[k]) ++wrong;
      }
    });
  for (auto& t : clients) t.join();
  const double s = seconds_since(start);
  server.stop();
  serving.join();
  return s;
}

int bench_serve(int argc, char** argv) {
  ServeBenchArgs a;
  if (!parse_serve_bench_args(argc, argv, a)) return 0;
  const api::Database db =
      open_api_database(a.db_path, true, DbLoadOptions{}, std::size_t(a.tt_mb) << 20, {});
  std::optional<api::Table> table;
  for (const api::Table& t : db.tables())
    if (!table && (a.rules.empty() || t.rules == a.rules)) table = t;
  if (!table)
    throw InputError("database " + a.db_path + " has no " + (a.rules.empty() ? "" : a.rules + " ") +
                     "table");
  if (!a.url.empty()) return load_server(a, db, *table);
  const bool inside = a.beyond_lo < 0;
  const int lo = inside ? 1 : table->max_stones + a.beyond_lo;
  const int hi = inside ? std::max(table->max_stones, 1) : table->max_stones + a.beyond_hi;
  const std::vector<std::string> positions = positions_with(*table, lo, hi, a.distinct);
  const ServeWork w = serve_work(a, db, *table, positions);
  std::atomic<long long> wrong = 0;
  const double s = serve_requests(a, db, w, wrong);
  std::printf(
      "%s m=%d <= %d: %d requests (%zu positions %s) on %d connections in %.3f s, %.0f/s, "
      "%lld wrong\nresident memory after the load %ld MiB (analysis cache %zu MiB)\nsignature: "
      "%016llx\n",
      table->rules.c_str(), table->pits, table->max_stones, a.requests, positions.size(),
      inside
          ? "inside the table"
          : ("with " + std::to_string(lo) + ".." + std::to_string(hi) + " stones in pits").c_str(),
      a.connections, s, a.requests / s, static_cast<long long>(wrong), process_rss_mib(getpid()),
      db.tt_bytes() >> 20, static_cast<unsigned long long>(w.signature));
  return wrong ? 1 : 0;
}

const RegisterBenchWorkload reg{
    "serve", "API queries over HTTP, C connections, inside a table or beyond", &bench_serve};

}  // namespace
}  // namespace kalah::cli
