// What `kalah bench serve`'s two loads share: the arguments, the queries and their expected
// answers; the load on a running server (--url) is in bench_serve_url.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kalah/kalah.hpp"
#include "tools/cli/options.hpp"

namespace kalah::cli {

// What the command line asked for, checked.
struct ServeBenchArgs {
  std::string db_path = kDefaultDbPath, rules;
  int requests = 20000, connections = 32, distinct = 1000, threads = 1;
  long long tt_mb = 256;
  int beyond_lo = -1, beyond_hi = -1;  // -1: positions inside the table
  // The load against a running server (--url): none when url is empty.
  std::string url;
  double rate = 200, seconds = 60, slow_interval = 10;
  int slow_clients = 0, searchers = 0, client_addresses = 1, server_pid = 0, check = 0;
  int walk = 0;           // plies of the game walked after the load
  std::string walk_from;  // its first position (default: the start with 3 stones a pit)
};

// The requests and their expected answers (beyond the table each a cold search), and the XXH64
// of the answers.
struct ServeWork {
  std::vector<std::string> targets, expected;
  std::uint64_t signature = 0;
};

// The request GET /api/v1/query of `position` under `rules`.
std::string query_target(const std::string& rules, const std::string& position);

// `count` distinct positions of table t's board with lo..hi stones in pits (random_positions), as
// text; InputError when there is none.
std::vector<std::string> positions_with(const api::Table& t, int lo, int hi, int count);

// The queries of `positions` and db's answers to them (a.beyond_lo >= 0: each a cold search).
ServeWork serve_work(const ServeBenchArgs& a, const api::Database& db, const api::Table& table,
                     const std::vector<std::string>& positions);

// The resident memory of process pid in MiB (VmRSS of /proc/PID/status), or -1.
long process_rss_mib(int pid);

// The load of --url on a running server, its figures printed: the exit status (1 on a wrong or
// failed query inside the table, a checked answer that is wrong, or a walk query not answered).
int load_server(const ServeBenchArgs& a, const api::Database& db, const api::Table& table);

}  // namespace kalah::cli
