// `kalah bench serve`: queries inside a table through kalah serve's HTTP API from many connections.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "bench.hpp"
#include "db_open.hpp"
#include "options.hpp"
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

int bench_serve(int argc, char** argv) {
  std::string db_path = kDefaultDbPath, rules, beyond;
  int requests = 20000, connections = 32, distinct = 1000, threads = 1;
  long long tt_mb = 256;
  po::options_description desc("options");
  add_db_option(desc, db_path);
  desc.add_options()("rules", po::value(&rules),
                     "the table's rule set (default: the database's first table)")(
      "requests", po::value(&requests)->default_value(requests), "requests in all (1..10^8)")(
      "connections", po::value(&connections)->default_value(connections),
      "client connections at once, each on its own thread (1..1024); the server serves as many")(
      "positions", po::value(&distinct)->default_value(distinct),
      "distinct positions asked, cycled through (1..10^6)")(
      "beyond", po::value(&beyond),
      "ask positions with N (or LO-HI) stones in pits more than the table holds: each a search "
      "through the server's analysis cache, its answer checked against a cold search of its own "
      "(default: positions inside the table)")(
      "threads", po::value(&threads)->default_value(threads),
      "the server's search threads a query (kalah serve --threads; 0: all cores)")(
      "tt-mb", po::value(&tt_mb)->default_value(tt_mb), "the server's analysis cache in MiB");
  po::variables_map vm;
  if (!parse_command(
          argc, argv,
          "bench serve [--db PATH] [--rules R] [--requests N] [--connections C] [--positions N] "
          "[--beyond LO-HI] [--threads N] [--tt-mb MB]",
          "Starts kalah serve's server in this process on a free loopback port, asks\n"
          "GET /api/v1/query for positions of one table's board (fixed seed, kalahs empty;\n"
          "inside the table, or --beyond it) over C keep-alive connections at once, and checks\n"
          "every answer against the library's Answer::to_json (beyond the table: a search with\n"
          "a cache of its own for each position). Prints requests, seconds, requests/s and the\n"
          "process's resident memory after the load beside the analysis cache; the\n"
          "signature is the XXH64 of the expected answers, the same on every run. Exit 1 on a\n"
          "wrong answer.",
          desc, {}, vm))
    return 0;
  check_range("requests", requests, 1, 100'000'000);
  check_range("connections", connections, 1, 1024);
  check_range("positions", distinct, 1, 1'000'000);
  check_range("threads", threads, 0, 256);
  check_memory_mb("tt-mb", tt_mb, 1, 1 << 20);
  const auto [beyond_lo, beyond_hi] = beyond.empty() ? std::pair{-1, -1} : parse_beyond(beyond);
  const api::Database db =
      open_api_database(db_path, true, DbLoadOptions{}, std::size_t(tt_mb) << 20, {});
  std::optional<api::Table> table;
  for (const api::Table& t : db.tables())
    if (!table && (rules.empty() || t.rules == rules)) table = t;
  if (!table)
    throw InputError("database " + db_path + " has no " + (rules.empty() ? "" : rules + " ") +
                     "table");

  const bool inside = beyond_lo < 0;
  const std::vector<std::string> positions =
      inside ? positions_with(*table, 1, std::max(table->max_stones, 1), distinct)
             : positions_with(*table, table->max_stones + beyond_lo, table->max_stones + beyond_hi,
                              distinct);
  std::vector<std::string> targets, expected;
  Xxh64Stream signature;
  for (const std::string& p : positions) {
    targets.push_back("/api/v1/query?" + httplib::detail::params_to_query_str(
                                             {{"rules", table->rules}, {"position", p}}));
    // Beyond the table a cold answer: the analysis cache emptied before each.
    if (!inside) db.clear_cache();
    expected.push_back(db.query(table->rules, p, 0, threads_or_all_cores(threads)).to_json());
    signature.update(expected.back().data(), expected.back().size());
  }

  db.clear_cache();  // the server starts cold
  WebServer server(db, 3600, threads_or_all_cores(threads), connections);
  const int port = server.bind("127.0.0.1", 0);
  std::thread serving([&] { server.listen(); });
  std::atomic<long long> wrong = 0;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> clients;
  for (int c = 0; c < connections; ++c)
    clients.emplace_back([&, c] {
      httplib::Client client("127.0.0.1", port);
      client.set_keep_alive(true);
      client.set_tcp_nodelay(true);
      for (int i = c; i < requests; i += connections) {
        const std::size_t k = std::size_t(i) % targets.size();
        const auto res = client.Get(targets[k]);
        if (!res || res->status != 200 || res->body != expected[k]) ++wrong;
      }
    });
  for (auto& t : clients) t.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  server.stop();
  serving.join();

  long resident_pages = 0;  // the process's resident memory now, the load done
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%*s %ld", &resident_pages) != 1) resident_pages = 0;
    std::fclose(f);
  }
  const long resident_mib = resident_pages * (sysconf(_SC_PAGESIZE) >> 10) >> 10;
  std::printf(
      "%s m=%d <= %d: %d requests (%zu positions %s) on %d connections in %.3f s, %.0f/s, "
      "%lld wrong\nresident memory after the load %ld MiB (analysis cache %zu MiB)\nsignature: "
      "%016llx\n",
      table->rules.c_str(), table->pits, table->max_stones, requests, positions.size(),
      inside ? "inside the table"
             : ("with " + std::to_string(table->max_stones + beyond_lo) + ".." +
                std::to_string(table->max_stones + beyond_hi) + " stones in pits")
                   .c_str(),
      connections, s, requests / s, static_cast<long long>(wrong), resident_mib,
      db.tt_bytes() >> 20, static_cast<unsigned long long>(signature.digest()));
  return wrong ? 1 : 0;
}

const RegisterBenchWorkload reg{
    "serve", "API queries over HTTP, C connections, inside a table or beyond", &bench_serve};

}  // namespace
}  // namespace kalah::cli
