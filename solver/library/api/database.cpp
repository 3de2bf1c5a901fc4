// libkalah's Database: the public probe API over the store, the probe and query_position.
#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "db/db_error.hpp"
#include "db/probe.hpp"
#include "db/store.hpp"
#include "db/table_load.hpp"
#include "engine/describe.hpp"
#include "engine/move.hpp"
#include "kalah/kalah.hpp"
#include "solver/answers/query.hpp"
#include "solver/exhaustive/solve.hpp"
#include "solver/library/api/table_probe_impl.hpp"

namespace kalah::api {
namespace {

// Runs f, turning the layers' errors into Error.
template <class F>
decltype(auto) translated(F&& f) {
  try {
    return f();
  } catch (const InputError& e) {
    throw Error(Error::Kind::kInput, e.what());
  } catch (const DbError& e) {
    throw Error(Error::Kind::kDatabase, e.what());
  }
}

}  // namespace

std::string Value::outcome() const {
  const auto o = decided_outcome(lower, upper);
  return o ? outcome_name(*o) : "";
}

struct Database::Impl {
  std::string path;
  Options options;
  std::shared_ptr<Store> store;
  std::vector<std::pair<TableId, int>> tables;  // with the levels used

  std::mutex tt_mutex;          // guards tt
  std::shared_ptr<SolveTT> tt;  // the analysis cache, made by the first search

  // An analysis cache of `bytes`: aging, each query that searches a generation of its own, so
  // that what past queries proved gives way to the current one's entries first.
  static std::shared_ptr<SolveTT> new_tt(std::size_t bytes) {
    return std::make_shared<SolveTT>(bytes, SolveTT::Aging::kOn);
  }

  // The analysis cache of options.tt_bytes, when that is given.
  void make_tt_now() {
    if (options.tt_bytes > 0) tt = new_tt(options.tt_bytes);
  }

  // The analysis cache, made now (sized to p) when it does not exist yet.
  std::shared_ptr<SolveTT> analysis_tt(Rules r, const Position& p, const Probe* probe) {
    std::lock_guard lock(tt_mutex);
    if (!tt) tt = new_tt(auto_tt_bytes(r, p, probe));
    return tt;
  }

  std::mutex mutex;                                              // guards probes and auto_done
  std::map<std::pair<int, int>, std::shared_ptr<Probe>> probes;  // by (rules code, m)
  std::set<std::pair<int, int>> auto_done;                       // tables kAuto has decided for

  // The probe of table (r, m), made on first use; nullptr when the database has none.
  // pit_stones: of the position about to be searched (Load::kAuto).
  std::shared_ptr<Probe> probe(Rules r, int m, int pit_stones) {
    const auto t = std::find_if(tables.begin(), tables.end(), [&](const auto& x) {
      return x.first == TableId{r, m};
    });
    if (t == tables.end()) return nullptr;
    const std::pair<int, int> key{int(r), m};
    const TableLoad load = table_load();
    std::shared_ptr<Probe> current;
    bool decode = false;  // kAuto: decode the table into memory now
    {
      std::lock_guard lock(mutex);
      auto& p = probes[key];
      if (!p) {
        // kMemory decodes under the lock: every query of the table waits for it anyway.
        const TableLoad first = load == TableLoad::kMemory ? load : TableLoad::kCache;
        if (first == TableLoad::kMemory && options.note)
          options.note("decoding the " + to_string(t->first) + " table into memory");
        p = std::make_shared<Probe>(*store, t->first, options.cache_bytes, first, 0, t->second);
      }
      current = p;
      if (load == TableLoad::kAuto && !p->resident() && !auto_done.count(key)) {
        const TableLoadChoice how =
            resolve_table_load(load, *store, t->first, t->second, options.cache_bytes, pit_stones);
        if (how.by_size) {
          auto_done.insert(key);
          decode = how.load == TableLoad::kMemory;
          if (options.note) options.note(auto_load_note(t->first, how));
        }
      }
    }
    if (!decode) return current;
    // Outside the lock: other queries go on reading through the cache meanwhile.
    auto resident = std::make_shared<Probe>(*store, t->first, 0, TableLoad::kMemory, 0, t->second);
    std::lock_guard lock(mutex);
    probes[key] = resident;
    return resident;
  }

  // The library's Load as the layers' TableLoad.
  TableLoad table_load() const {
    switch (options.load) {
      case Options::Load::kCache:
        return TableLoad::kCache;
      case Options::Load::kMemory:
        return TableLoad::kMemory;
      case Options::Load::kAuto:
        break;
    }
    return TableLoad::kAuto;
  }

  // "the T table is decoded into memory (N MiB; the limit is L MiB)", or why it is not.
  std::string auto_load_note(TableId t, const TableLoadChoice& how) const {
    const bool decoded = how.load == TableLoad::kMemory;
    return "the " + to_string(t) + " table is " +
           (decoded ? "decoded into memory (" : "read through a block cache (decoded it needs ") +
           std::to_string(how.decoded_bytes >> 20) + " MiB; the limit is " +
           std::to_string(options.cache_bytes >> 20) + " MiB)";
  }
};

Database::Database() : impl_(std::make_unique<Impl>()) {}

Database::Database(Options options) : Database() {
  impl_->options = std::move(options);
  impl_->make_tt_now();
}

Database::Database(const std::string& path, Options options) : Database() {
  translated([&] {
    if (options.max_stones < -1) throw InputError("max_stones must be >= -1");
    impl_->path = path;
    impl_->options = std::move(options);
    impl_->store = std::make_shared<Store>(path, false);
    for (const TableId& t : impl_->store->tables()) {
      int n = impl_->store->complete_through(t);
      if (impl_->options.max_stones >= 0) n = std::min(n, impl_->options.max_stones);
      impl_->tables.emplace_back(t, n);
    }
    impl_->make_tt_now();
  });
}

Database::~Database() = default;
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&&) noexcept = default;

const std::string& Database::path() const {
  return impl_->path;
}

std::vector<Table> Database::tables() const {
  std::vector<Table> out;
  for (const auto& [t, n] : impl_->tables)
    out.push_back({std::string(rules_name(t.rules)), t.m, n});
  return out;
}

std::optional<Table> Database::table(std::string_view rules, int pits) const {
  for (const Table& t : tables())
    if (t.rules == rules && t.pits == pits) return t;
  return std::nullopt;
}

std::optional<int> Database::value(std::string_view rules, std::string_view position) const {
  return translated([&]() -> std::optional<int> {
    const Rules r = parse_rules_name(rules);
    const Position p = parse_position(position);
    if (is_over(r, p)) return final_margin(p);
    const auto probe = impl_->probe(r, p.m, 0);
    return probe ? probe->margin(p) : std::nullopt;
  });
}

std::optional<TableProbe> Database::table_probe(std::string_view rules, int pits) const {
  return translated([&]() -> std::optional<TableProbe> {
    const Rules r = parse_rules_name(rules);
    const auto probe = impl_->probe(r, pits, kReachesEverywhere);
    if (!probe) return std::nullopt;
    const auto t = std::find_if(impl_->tables.begin(), impl_->tables.end(), [&](const auto& x) {
      return x.first == TableId{r, pits};
    });
    return TableProbe(std::make_shared<const TableProbe::Impl>(impl_->store, probe, r, t->second));
  });
}

namespace {

// The Answer of a query of p under r (source: what answered it).
Answer answer_of(Rules r, const Position& p, const QueryAnswer& q, bool with_database) {
  Answer a;
  a.position = to_string(p);
  a.rules = std::string(rules_name(r));
  a.value = {q.value.lower, q.value.upper};
  a.over = q.over;
  a.source = q.used_solver ? (with_database ? "database + search" : "search")
             : q.over      ? "rules"
                           : "database";
  for (const MoveAnswer& m : q.moves) {
    Position c = p;
    const MoveStory story = play_and_describe(r, c, m.pit);
    a.moves.push_back({m.pit,
                       {m.value.lower, m.value.upper},
                       m.best,
                       m.again,
                       to_string(c),
                       describe(story, p.m)});
  }
  return a;
}

}  // namespace

Answer Database::query(std::string_view rules, std::string_view position,
                       const QueryOptions& options) const {
  return translated([&] {
    const Rules r = parse_rules_name(rules);
    const Position p = parse_position(position);
    if (!(options.max_seconds >= 0)) throw InputError("max_seconds must be >= 0");
    const int threads = options.threads > 0
                            ? options.threads
                            : int(std::max(1u, std::thread::hardware_concurrency()));
    const auto probe = impl_->probe(r, p.m, p.pit_stones());
    QuerySearchOptions qo;
    qo.max_seconds = options.max_seconds;
    qo.threads = threads;
    qo.progress = options.progress;
    qo.cancel = options.cancel;
    std::shared_ptr<SolveTT> tt;  // kept for the query, whatever clear_cache() does
    qo.tt = [&] {                 // the query's search starts a generation
      tt = impl_->analysis_tt(r, p, probe.get());
      tt->new_generation();
      return tt.get();
    };
    if (options.on_proven)
      qo.on_proven = [&](const QueryAnswer& so_far) {
        options.on_proven(answer_of(r, p, so_far, probe != nullptr));
      };
    return answer_of(r, p, query_position(r, p, probe.get(), qo), probe != nullptr);
  });
}

Answer Database::query(std::string_view rules, std::string_view position, double max_seconds,
                       int threads, const std::function<void(const std::string&)>& progress) const {
  QueryOptions options;
  options.max_seconds = max_seconds;
  options.threads = threads;
  options.progress = progress;
  return query(rules, position, options);
}

std::optional<Answer> Database::lookup(std::string_view rules, std::string_view position) const {
  return translated([&]() -> std::optional<Answer> {
    const Rules r = parse_rules_name(rules);
    const Position p = parse_position(position);
    const auto probe = impl_->probe(r, p.m, p.pit_stones());
    const std::optional<QueryAnswer> a = answer_without_search(r, p, probe.get());
    if (!a) return std::nullopt;
    return answer_of(r, p, *a, probe != nullptr);
  });
}

void Database::clear_cache() const {
  std::lock_guard lock(impl_->tt_mutex);
  if (impl_->tt) impl_->tt = Impl::new_tt(impl_->tt->bytes());
}

std::size_t Database::clear_stale_readers() const {
  return translated(
      [&]() -> std::size_t { return impl_->store ? impl_->store->clear_stale_readers() : 0; });
}

std::size_t Database::tt_bytes() const {
  std::lock_guard lock(impl_->tt_mutex);
  return impl_->tt ? impl_->tt->bytes() : 0;
}

std::vector<int> Database::best_moves(std::string_view rules, std::string_view position,
                                      double max_seconds) const {
  std::vector<int> out;
  for (const MoveValue& m : query(rules, position, max_seconds).moves)
    if (m.best) out.push_back(m.pit);
  return out;
}

std::string play(std::string_view rules, std::string_view position, int pit) {
  return translated([&] {
    Position p = parse_position(position);
    play_move(parse_rules_name(rules), p, pit);
    return to_string(p);
  });
}

std::string start_position(int pits, int stones) {
  return translated([&] { return to_string(kalah::start_position(pits, stones)); });
}

std::string version() {
  return KALAH_VERSION;
}

std::vector<std::string> rule_sets() {
  std::vector<std::string> out;
  for_each_rules([&](Rules r) { out.emplace_back(rules_name(r)); });
  return out;
}

}  // namespace kalah::api
