// `kalah bench serve`: queries inside a table through kalah serve's HTTP API from many connections.
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

// `count` distinct positions of table t that are not over, drawn from a fixed seed: 1..max_stones
// stones in pits spread over both sides, kalahs empty.
std::vector<std::string> positions_inside(const api::Table& t, int count) {
  std::mt19937_64 rng(20261125);
  std::vector<std::string> out;
  std::set<std::string> seen;
  const Rules rules = *parse_rules(t.rules);
  for (int tries = 0; int(out.size()) < count && tries < 100 * count; ++tries) {
    Position p;
    p.m = t.pits;
    const int n = 1 + int(rng() % std::uint64_t(std::max(t.max_stones, 1)));
    for (int s = 0; s < n; ++s) p.cell[rng() % 2 ? rng() % t.pits : t.pits + 1 + rng() % t.pits]++;
    if (game_finished(rules, p)) continue;
    if (seen.insert(to_string(p)).second) out.push_back(to_string(p));
  }
  if (out.empty()) throw InputError("the " + t.rules + " table has no position to query");
  return out;
}

int bench_serve(int argc, char** argv) {
  std::string db_path = kDefaultDbPath, rules;
  int requests = 20000, connections = 32, distinct = 1000;
  po::options_description desc("options");
  add_db_option(desc, db_path);
  desc.add_options()("rules", po::value(&rules),
                     "the table's rule set (default: the database's first table)")(
      "requests", po::value(&requests)->default_value(requests), "requests in all (1..10^8)")(
      "connections", po::value(&connections)->default_value(connections),
      "client connections at once, each on its own thread (1..1024); the server serves as many")(
      "positions", po::value(&distinct)->default_value(distinct),
      "distinct positions asked, cycled through (1..10^6)");
  po::variables_map vm;
  if (!parse_command(
          argc, argv,
          "bench serve [--db PATH] [--rules R] [--requests N] [--connections C] [--positions N]",
          "Starts kalah serve's server in this process on a free loopback port, asks\n"
          "GET /api/v1/query for positions inside one table (fixed seed, kalahs empty) over C\n"
          "keep-alive connections at once, and checks every answer against the library's\n"
          "Answer::to_json. Prints requests, seconds and requests/s; the signature is the\n"
          "XXH64 of the expected answers, the same on every run. Exit 1 on a wrong answer.",
          desc, {}, vm))
    return 0;
  check_range("requests", requests, 1, 100'000'000);
  check_range("connections", connections, 1, 1024);
  check_range("positions", distinct, 1, 1'000'000);
  const api::Database db = open_api_database(db_path, true, DbLoadOptions{}, 0, {});
  std::optional<api::Table> table;
  for (const api::Table& t : db.tables())
    if (!table && (rules.empty() || t.rules == rules)) table = t;
  if (!table)
    throw InputError("database " + db_path + " has no " + (rules.empty() ? "" : rules + " ") +
                     "table");

  const std::vector<std::string> positions = positions_inside(*table, distinct);
  std::vector<std::string> targets, expected;
  Xxh64Stream signature;
  for (const std::string& p : positions) {
    targets.push_back("/api/v1/query?" + httplib::detail::params_to_query_str(
                                             {{"rules", table->rules}, {"position", p}}));
    expected.push_back(db.query(table->rules, p, 0).to_json());
    signature.update(expected.back().data(), expected.back().size());
  }

  WebServer server(db, 10, 1, connections);
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

  std::printf(
      "%s m=%d <= %d: %d requests (%zu positions) on %d connections in %.3f s, %.0f/s, "
      "%lld wrong\nsignature: %016llx\n",
      table->rules.c_str(), table->pits, table->max_stones, requests, positions.size(), connections,
      s, requests / s, static_cast<long long>(wrong),
      static_cast<unsigned long long>(signature.digest()));
  return wrong ? 1 : 0;
}

const RegisterBenchWorkload reg{"serve", "API queries inside a table over HTTP, C connections",
                                &bench_serve};

}  // namespace
}  // namespace kalah::cli
