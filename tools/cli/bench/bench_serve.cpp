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

#include "bench.hpp"
#include "db_open.hpp"
#include "options.hpp"
#include "serve_load.hpp"
#include "stopwatch.hpp"
#include "web_server.hpp"
#include "xxhash64.hpp"

namespace kalah::cli {
namespace {

// The request GET /api/v1/query of `position` under `rules`.
std::string query_target(const std::string& rules, const std::string& position) {
  return "/api/v1/query?" +
         httplib::detail::params_to_query_str({{"rules", rules}, {"position", position}});
}

// `count` distinct positions of table t's board (random_positions), as text.
std::vector<std::string> positions_with(const api::Table& t, int lo, int hi, int count) {
  std::vector<std::string> out;
  for (const Position& p : random_positions(*parse_rules(t.rules), t.pits, lo, hi, count))
    out.push_back(to_string(p));
  if (out.empty()) throw InputError("the " + t.rules + " table has no position to query");
  return out;
}

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
    w.targets.push_back(query_target(table.rules, p));
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

// The loopback addresses the load's clients connect from: none (any) for one, else 127.0.0.2 on.
std::vector<std::string> client_sources(int count) {
  std::vector<std::string> out;
  for (int k = 0; count > 1 && k < count; ++k) out.push_back("127.0.0." + std::to_string(2 + k));
  return out;
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

// Seconds a query inside the table may wait for its answer before it counts as failed.
constexpr double kQueryTimeout = 5;

// Queries inside the table due at a.rate a second for a.seconds, on a.connections threads.
LoadResult timed_queries(const ServeBenchArgs& a, const HostPort& to, const ServeWork& w) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now() + std::chrono::milliseconds(100);
  const long long total = std::llround(a.rate * a.seconds);
  const auto timeout =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(kQueryTimeout));
  const std::vector<std::string> sources = client_sources(a.client_addresses);
  std::atomic<long long> next{0};
  std::mutex merge;
  LoadResult all;
  std::vector<std::thread> threads;
  for (int c = 0; c < a.connections; ++c)
    threads.emplace_back([&, c] {
      HttpConnection conn(to, sources.empty() ? "" : sources[std::size_t(c) % sources.size()],
                          kQueryTimeout);
      LoadResult mine;
      for (long long i; (i = next++) < total;) {
        const auto due = start + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(double(i) / a.rate));
        std::this_thread::sleep_until(due);
        if (Clock::now() > due + timeout) {  // its connection was still waiting: not asked
          ++mine.failed;
          continue;
        }
        const std::size_t k = std::size_t(i) % w.targets.size();
        const HttpConnection::Reply r = conn.get(w.targets[k]);
        if (r.status == 200) {
          mine.latencies.push_back(std::chrono::duration<double>(Clock::now() - due).count());
          if (r.body != w.expected[k]) ++mine.wrong;
        } else if (r.status == 503 || r.status == 429) {
          ++mine.refused;
        } else {
          ++mine.failed;
        }
      }
      std::lock_guard lock(merge);
      all.latencies.insert(all.latencies.end(), mine.latencies.begin(), mine.latencies.end());
      all.refused += mine.refused;
      all.failed += mine.failed;
      all.wrong += mine.wrong;
    });
  for (std::thread& t : threads) t.join();
  std::sort(all.latencies.begin(), all.latencies.end());
  return all;
}

// a.searchers clients asking positions beyond the table one after another until `stop`: the
// answers (200), refusals (503, 429) and failures.
struct SearchCounts {
  std::atomic<std::uint64_t> answered{0}, refused{0}, failed{0};
  std::mutex kept_mutex;
  std::vector<std::pair<std::size_t, std::string>> kept;  // (target index, body), --check of them
};
std::vector<std::thread> start_searchers(const ServeBenchArgs& a, const HostPort& to,
                                         const std::vector<std::string>& targets,
                                         const std::atomic<bool>& stop, SearchCounts& counts) {
  const std::vector<std::string> sources = client_sources(a.client_addresses);
  std::vector<std::thread> threads;
  for (int c = 0; c < a.searchers; ++c)
    threads.emplace_back([&, c, sources] {
      HttpConnection conn(to, sources.empty() ? "" : sources[std::size_t(c) % sources.size()],
                          3700);
      for (std::size_t i = std::size_t(c); !stop; i += std::size_t(a.searchers)) {
        const HttpConnection::Reply r = conn.get(targets[i % targets.size()]);
        const int status = r.status;
        if (status == 200 && a.check > 0) {
          std::lock_guard lock(counts.kept_mutex);
          if (counts.kept.size() < std::size_t(a.check))
            counts.kept.emplace_back(i % targets.size(), r.body);
        }
        (status == 200                    ? counts.answered
         : status == 503 || status == 429 ? counts.refused
                                          : counts.failed)++;
        if (status != 200) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  return threads;
}

// Whether a value the server answered (its JSON's margin, or lower and upper) holds the exact
// margin `truth`.
bool holds(const nlohmann::json& v, int truth) {
  if (!v.is_object()) return false;
  if (v.value("exact", false)) return v.value("margin", nlohmann::json()) == truth;
  return v.value("lower", truth + 1) <= truth && truth <= v.value("upper", truth - 1);
}

// The kept answers against cold searches of the library without a time limit: how many are
// wrong (an exact value that differs, a bound that excludes the truth, another set of moves).
int check_answers(const ServeBenchArgs& a, const api::Database& db, const api::Table& table,
                  const std::vector<std::string>& positions, const SearchCounts& counts) {
  int wrong = 0;
  api::QueryOptions cold;
  cold.max_seconds = 0;
  cold.threads = a.threads;
  for (const auto& [k, body] : counts.kept) {
    db.clear_cache();
    const api::Answer truth = db.query(table.rules, positions[k], cold);
    const nlohmann::json served = nlohmann::json::parse(body, nullptr, false);
    const nlohmann::json moves =
        served.is_object() ? served.value("moves", nlohmann::json::array()) : nlohmann::json();
    bool ok = served.is_object() && served.value("position", "") == truth.position &&
              holds(served, truth.value.lower) && moves.size() == truth.moves.size();
    for (std::size_t m = 0; ok && m < truth.moves.size(); ++m)
      ok = moves[m].value("pit", 0) == truth.moves[m].pit &&
           holds(moves[m], truth.moves[m].value.lower);
    if (!ok) {
      ++wrong;
      std::fprintf(stderr, "kalah bench serve: wrong answer for %s: %s\n", positions[k].c_str(),
                   body.substr(0, 300).c_str());
    }
  }
  return wrong;
}

// The server's resident memory sampled every 5 s while a load runs: the samples after its
// first tenth (the table and cache filled), for how flat it stays.
class RssSampler {
 public:
  RssSampler(int pid, double seconds) : pid_(pid), warm_(seconds / 10) {
    if (pid_ > 0) thread_ = std::thread([this] { run(); });
  }
  ~RssSampler() { stop(); }
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  // After stop(): the first sample after the warm-up and the largest, in MiB (-1: none).
  long first() const { return first_; }
  long max() const { return max_; }

 private:
  void run() {
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::seconds(5), [this] { return stop_; })) {
      if (seconds_since(start) < warm_) continue;
      const long mib = process_rss_mib(pid_);
      if (first_ < 0) first_ = mib;
      max_ = std::max(max_, mib);
    }
  }

  int pid_;
  double warm_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  long first_ = -1, max_ = -1;
  std::thread thread_;
};

// A game walked through the server: plies answered, their seconds, whether each had an exact
// best move, the XXH64 of the positions asked.
struct ServerWalk {
  int plies = 0;
  double seconds = 0;
  bool exact = true, answered = true;
  std::uint64_t signature = 0;
};

// Walks a.walk plies from a.walk_from (each ply the first move the server marks best), after the
// `warm` queries (one inside the table, one search beyond it) so that the table is decoded and
// the analysis cache allocated before the clock starts.
ServerWalk walk_server(const ServeBenchArgs& a, const HostPort& to, const api::Table& table,
                       const std::vector<std::string>& warm) {
  ServerWalk w;
  if (a.walk == 0) return w;
  HttpConnection conn(to, "", 3700);
  for (const std::string& target : warm) w.answered = w.answered && conn.get(target).status == 200;
  std::string position = a.walk_from.empty() ? api::start_position(table.pits, 3) : a.walk_from;
  Xxh64Stream signature;
  const auto start = std::chrono::steady_clock::now();
  while (w.answered && w.plies < a.walk) {
    signature.update(position.data(), position.size());
    const HttpConnection::Reply r = conn.get(query_target(table.rules, position));
    const nlohmann::json answer = nlohmann::json::parse(r.body, nullptr, false);
    w.answered = r.status == 200 && answer.is_object();
    if (!w.answered) break;
    ++w.plies;
    const nlohmann::json moves = answer.value("moves", nlohmann::json::array());
    const auto best = std::find_if(moves.begin(), moves.end(),
                                   [](const nlohmann::json& m) { return m.value("best", false); });
    w.exact = answer.value("exact", false) && (best != moves.end() || moves.empty());
    if (best == moves.end()) break;
    position = best->value("position", "");
  }
  w.seconds = seconds_since(start);
  w.signature = signature.digest();
  return w;
}

// What a load on a running server measured (load_server), besides its timed queries.
struct LoadReport {
  int slow_at_start = 0, slow_at_end = 0;
  unsigned long long slow_reopened = 0;
  long rss_before = -1, rss_after = -1, rss_first = -1, rss_max = -1;
  ServerWalk walked;
  int checked_wrong = 0;
  std::uint64_t signature = 0;  // of the timed queries' answers
};

// Prints the load's figures, one line a part.
void print_load_report(const ServeBenchArgs& a, const api::Table& table, const LoadResult& r,
                       const SearchCounts& searches, const LoadReport& x) {
  const ServerWalk& walked = x.walked;
  std::printf(
      "%s m=%d <= %d at %s: %zu queries inside the table at %g/s for %g s: p50 %.2f ms, p99 "
      "%.2f ms, max %.2f ms; %llu refused, %llu failed, %llu wrong\n"
      "slow clients: %d of %d open at the start, %d at the end (%llu reopened)\n"
      "searches %d-%d beyond the table by %d clients: %llu answered, %llu refused, %llu failed\n"
      "server resident memory: %ld MiB before, %ld MiB after (-1: no --server-pid); sampled "
      "every 5 s after the load's first tenth: %ld MiB first, %ld MiB max\n"
      "walk from %s: %d plies in %.3f s, %s, positions signature %016llx\n"
      "checked against cold searches: %zu answers, %d wrong\n"
      "signature: %016llx\n",
      table.rules.c_str(), table.pits, table.max_stones, a.url.c_str(), r.latencies.size(), a.rate,
      a.seconds, quantile_ms(r.latencies, 0.5), quantile_ms(r.latencies, 0.99),
      quantile_ms(r.latencies, 1), (unsigned long long)r.refused, (unsigned long long)r.failed,
      (unsigned long long)r.wrong, x.slow_at_start, a.slow_clients, x.slow_at_end, x.slow_reopened,
      a.beyond_lo, a.beyond_hi, a.searchers, (unsigned long long)searches.answered,
      (unsigned long long)searches.refused, (unsigned long long)searches.failed, x.rss_before,
      x.rss_after, x.rss_first, x.rss_max,
      a.walk == 0           ? "(no --walk)"
      : a.walk_from.empty() ? "the start, 3 a pit"
                            : a.walk_from.c_str(),
      walked.plies, walked.seconds,
      !walked.answered ? "a query not answered"
      : walked.exact   ? "every answer exact"
                       : "ended at an answer without an exact best move",
      (unsigned long long)walked.signature, searches.kept.size(), x.checked_wrong,
      (unsigned long long)x.signature);
}

// The load of --url: slow clients and searchers running while the timed queries are asked.
int load_server(const ServeBenchArgs& a, const api::Database& db, const api::Table& table) {
  const HostPort to = parse_host_port(a.url);
  ServeBenchArgs inside = a;
  inside.beyond_lo = inside.beyond_hi = -1;  // the timed queries: answers of the table alone
  const ServeWork w = serve_work(
      inside, db, table, positions_with(table, 1, std::max(table.max_stones, 1), a.distinct));
  std::vector<std::string> far, far_targets;  // the searchers' fresh positions
  if (a.searchers > 0)
    far = positions_with(table, table.max_stones + a.beyond_lo, table.max_stones + a.beyond_hi,
                         20000);
  for (const std::string& p : far) far_targets.push_back(query_target(table.rules, p));
  const long rss_before = process_rss_mib(a.server_pid);
  SlowClients slow(to, a.slow_clients, a.slow_interval, client_sources(a.client_addresses));
  std::thread trickle([&] { slow.run(); });
  for (int waited = 0; a.slow_clients > 0 && slow.open() < a.slow_clients && waited < 300; ++waited)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const int slow_at_start = slow.open();
  std::atomic<bool> stop{false};
  SearchCounts searches;
  std::vector<std::thread> searchers = start_searchers(a, to, far_targets, stop, searches);
  RssSampler rss(a.server_pid, a.seconds);
  const LoadResult r = timed_queries(a, to, w);
  rss.stop();
  const int slow_at_end = slow.open();
  stop = true;
  slow.stop();
  for (std::thread& t : searchers) t.join();
  trickle.join();
  const long rss_after = process_rss_mib(a.server_pid);
  const int warm_stones = table.max_stones + 4;
  const ServerWalk walked = walk_server(
      a, to, table,
      {w.targets[0],
       query_target(table.rules, positions_with(table, warm_stones, warm_stones, 1)[0])});
  const int checked_wrong = check_answers(a, db, table, far, searches);
  print_load_report(a, table, r, searches,
                    {slow_at_start, slow_at_end, (unsigned long long)slow.reopened(), rss_before,
                     rss_after, rss.first(), rss.max(), walked, checked_wrong, w.signature});
  return r.wrong || r.failed || checked_wrong || !walked.answered ? 1 : 0;
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
