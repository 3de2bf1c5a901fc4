// Grading one move against exact values: the database's table, or a bounded search beyond it.
#include "tools/referee/grading.hpp"

#include <algorithm>

namespace kalah::referee {

Tables::Tables(const std::string& db, Rules rules) : rules_(rules), store_(db, false) {}

std::vector<int> Tables::sizes() const {
  std::vector<int> out;
  for (const TableId& t : store_.tables())
    if (t.rules == rules_) out.push_back(t.m);
  std::sort(out.begin(), out.end());
  return out;
}

ExactOracle* Tables::oracle(int m) {
  std::lock_guard lock(mutex_);
  auto [it, added] = probes_.try_emplace(m);
  if (added) {
    const std::vector<int> held = sizes();
    if (std::find(held.begin(), held.end(), m) != held.end())
      it->second = std::make_unique<Probe>(store_, TableId{rules_, m});
  }
  return it->second.get();
}

int Tables::max_stones(int m) {
  const ExactOracle* o = oracle(m);
  return o ? o->max_stones() : -1;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kGraded:
      return "graded";
    case Verdict::kNoMove:
      return "no move";
    case Verdict::kIllegal:
      return "illegal";
  }
  return "?";
}

Grader::Grader(Tables& tables, double search_seconds, std::size_t tt_bytes,
               const std::atomic<bool>* cancel)
    : tables_(tables), search_seconds_(search_seconds), tt_bytes_(tt_bytes), cancel_(cancel) {}
Grader::~Grader() = default;

QueryAnswer Grader::values(const Position& p) {
  ExactOracle* oracle = tables_.oracle(p.m);
  QuerySearchOptions o;
  o.max_seconds = search_seconds_;
  o.cancel = cancel_;
  o.tt = [this] {
    if (!tt_) tt_ = std::make_unique<SolveTT>(tt_bytes_);
    return tt_.get();
  };
  return query_position(tables_.rules(), p, oracle, o);
}

MoveGrade Grader::grade(const Position& p, std::optional<int> pit) {
  return grade(p, pit, values(p));
}

MoveGrade Grader::grade(const Position& p, std::optional<int> pit, const QueryAnswer& a) {
  MoveGrade g;
  g.position = p;
  g.pit = pit.value_or(0);
  g.best = a.value;
  for (const MoveAnswer& m : a.moves)
    if (m.best) g.best_pits.push_back(m.pit);
  if (!pit) {
    g.verdict = Verdict::kNoMove;
    return g;
  }
  const auto chosen = std::find_if(a.moves.begin(), a.moves.end(),
                                   [&](const MoveAnswer& m) { return m.pit == *pit; });
  if (chosen == a.moves.end()) {
    g.verdict = Verdict::kIllegal;
    return g;
  }
  g.chosen = chosen->value;
  g.proven = g.chosen.exact() && g.best.exact();
  return g;
}

}  // namespace kalah::referee
