// `kalah bench serve --url`: a timed load on a running server with slow clients, searchers and a
// walk, its memory sampled.
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
#include "tools/serve/web_server.hpp"

namespace kalah::cli {
namespace {

// The loopback addresses the load's clients connect from: none (any) for one, else 127.0.0.2 on.
std::vector<std::string> client_sources(int count) {
  std::vector<std::string> out;
  for (int k = 0; count > 1 && k < count; ++k) out.push_back("127.0.0." + std::to_string(2 + k));
  return out;
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

}  // namespace

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

}  // namespace kalah::cli
