// `kalah bench serve`: queries inside a table through kalah serve's HTTP API from many connections.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>
#include <random>
#include <set>
#include <thread>
#include <tuple>

#include "bench.hpp"
#include "db_open.hpp"
#include "options.hpp"
#include "stopwatch.hpp"
#include "web_server.hpp"
#include "xxhash64.hpp"

namespace kalah::cli {
namespace {

// `count` distinct positions of table t's board that are not over, drawn from a fixed seed:
// lo..hi stones in pits spread over both sides, kalahs empty.
std::vector<std::string> positions_with(const api::Table& t, int lo, int hi, int count) {
  std::mt19937_64 rng(20261125);
  std::vector<std::string> out;
  std::set<std::string> seen;
  const Rules rules = *parse_rules(t.rules);
  for (int tries = 0; int(out.size()) < count && tries < 100 * count; ++tries) {
    Position p;
    p.m = t.pits;
    const int n = lo + int(rng() % std::uint64_t(hi - lo + 1));
    for (int s = 0; s < n; ++s) p.cell[rng() % 2 ? rng() % t.pits : t.pits + 1 + rng() % t.pits]++;
    if (game_finished(rules, p)) continue;
    if (seen.insert(to_string(p)).second) out.push_back(to_string(p));
  }
  if (out.empty()) throw InputError("the " + t.rules + " table has no position to query");
  return out;
}

// --beyond "LO-HI" (or "N"): stones in pits beyond the table's levels, 0 <= LO <= HI <= 64.
std::pair<int, int> parse_beyond(const std::string& text) {
  int lo = -1, hi = -1;
  char dash = 0, extra = 0;
  const int got = std::sscanf(text.c_str(), "%d%c%d%c", &lo, &dash, &hi, &extra);
  if (got == 1) hi = lo;
  if (!((got == 1 || (got == 3 && dash == '-')) && 0 <= lo && lo <= hi && hi <= 64))
    throw InputError("--beyond must be N or LO-HI with 0 <= LO <= HI <= 64, not '" + text + "'");
  return {lo, hi};
}

// What the command line asked for, checked.
struct ServeBenchArgs {
  std::string db_path = kDefaultDbPath, rules;
  int requests = 20000, connections = 32, distinct = 1000, threads = 1;
  long long tt_mb = 256;
  int beyond_lo = -1, beyond_hi = -1;  // -1: positions inside the table
};

const char* const kServeBenchUsage =
    "bench serve [--db PATH] [--rules R] [--requests N] [--connections C] [--positions N] "
    "[--beyond LO-HI] [--threads N] [--tt-mb MB]";
const char* const kServeBenchDescription =
    "Starts kalah serve's server in this process on a free loopback port, asks\n"
    "GET /api/v1/query for positions of one table's board (fixed seed, kalahs empty;\n"
    "inside the table, or --beyond it) over C keep-alive connections at once, and checks\n"
    "every answer against the library's Answer::to_json (beyond the table: a search with\n"
    "a cache of its own for each position). Prints requests, seconds, requests/s and the\n"
    "process's resident memory after the load beside the analysis cache; the\n"
    "signature is the XXH64 of the expected answers, the same on every run. Exit 1 on a\n"
    "wrong answer.";

// Parses and checks the command line; false when --help was answered.
bool parse_serve_bench_args(int argc, char** argv, ServeBenchArgs& a) {
  std::string beyond;
  po::options_description desc("options");
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
      "tt-mb", po::value(&a.tt_mb)->default_value(a.tt_mb), "the server's analysis cache in MiB");
  po::variables_map vm;
  if (!parse_command(argc, argv, kServeBenchUsage, kServeBenchDescription, desc, {}, vm))
    return false;
  check_range("requests", a.requests, 1, 100'000'000);
  check_range("connections", a.connections, 1, 1024);
  check_range("positions", a.distinct, 1, 1'000'000);
  check_range("threads", a.threads, 0, 256);
  a.threads = threads_or_all_cores(a.threads);
  check_memory_mb("tt-mb", a.tt_mb, 1, 1 << 20);
  if (!beyond.empty()) std::tie(a.beyond_lo, a.beyond_hi) = parse_beyond(beyond);
  return true;
}

// The requests and their expected answers (beyond the table each a cold search), and the XXH64
// of the answers.
struct ServeWork {
  std::vector<std::string> targets, expected;
  std::uint64_t signature = 0;
};

ServeWork serve_work(const ServeBenchArgs& a, const api::Database& db, const api::Table& table,
                     const std::vector<std::string>& positions) {
  ServeWork w;
  Xxh64Stream signature;
  for (const std::string& p : positions) {
    w.targets.push_back("/api/v1/query?" + httplib::detail::params_to_query_str(
                                               {{"rules", table.rules}, {"position", p}}));
    // Beyond the table a cold answer: the analysis cache emptied before each.
    if (a.beyond_lo >= 0) db.clear_cache();
    w.expected.push_back(db.query(table.rules, p, 0, a.threads).to_json());
    signature.update(w.expected.back().data(), w.expected.back().size());
  }
  w.signature = signature.digest();
  return w;
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
      httplib::Client client("127.0.0.1", port);
      client.set_keep_alive(true);
      client.set_tcp_nodelay(true);
      for (int i = c; i < a.requests; i += a.connections) {
        const std::size_t k = std::size_t(i) % w.targets.size();
        const auto res = client.Get(w.targets[k]);
        if (!res || res->status != 200 || res->body != w.expected[k]) ++wrong;
      }
    });
  for (auto& t : clients) t.join();
  const double s = seconds_since(start);
  server.stop();
  serving.join();
  return s;
}

// The process's resident memory now, in MiB.
long resident_mib() {
  long resident_pages = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%*s %ld", &resident_pages) != 1) resident_pages = 0;
    std::fclose(f);
  }
  return resident_pages * (sysconf(_SC_PAGESIZE) >> 10) >> 10;
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
      a.connections, s, a.requests / s, static_cast<long long>(wrong), resident_mib(),
      db.tt_bytes() >> 20, static_cast<unsigned long long>(w.signature));
  return wrong ? 1 : 0;
}

const RegisterBenchWorkload reg{
    "serve", "API queries over HTTP, C connections, inside a table or beyond", &bench_serve};

}  // namespace
}  // namespace kalah::cli
