// RootSplit: the root's moves settled by tests run elsewhere.
#include "solver/exhaustive/mpi/root_split.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "engine/move.hpp"

namespace kalah {

RootSplit::RootSplit(Rules rules, const Position& root, int guess, const SolveResult* resume)
    : rules_(rules) {
  if (is_over(rules, root))
    throw std::invalid_argument("the game is over: there is nothing to split");
  for (int pit = 1; pit <= root.m; ++pit) {
    if (root.own_pit(pit - 1) == 0) continue;
    Position c = root;
    const bool again = play_move(rules, c, pit);
    auto [lo, hi] = margin_range(c);
    if (is_over(rules, c)) lo = hi = final_margin(c);
    if (!again) std::tie(lo, hi) = std::pair(-hi, -lo);
    moves_.push_back({{lo, hi}, pit, c, again});
  }
  // Every move's margin has the root's parity, which the opening bounds have.
  level_ = round_up(guess, moves_.front().lower & 1);
  if (resume != nullptr) {
    for (const MoveBound& b : resume->moves) {
      for (Move& m : moves_) {
        if (m.pit != b.pit) continue;
        m.lower = std::max(m.lower, b.lower);
        m.upper = std::min(m.upper, b.upper);
        if (m.lower > m.upper) throw std::invalid_argument("the resumed bounds are empty");
      }
    }
  }
}

int RootSplit::best_lower() const {
  return root_bounds(moves_).first;
}

bool RootSplit::open(const Move& m) const {
  return m.lower < m.upper && m.upper >= best_lower();
}

int RootSplit::test_level() {
  const auto [best, upper] = root_bounds(moves_);
  if (best == upper) return best;  // the root's margin is known: the others are tested against it
  if (level_ > upper) level_ = upper;
  if (level_ <= best) level_ = best + 2;
  return level_;
}

std::optional<RootSplit::Job> RootSplit::next(int worker) {
  const int level = test_level();
  Move* pick = nullptr;
  for (Move& m : moves_) {
    if (m.busy || !open(m) || m.lower >= level || m.upper < level) continue;
    if (m.worker == worker) {
      pick = &m;
      break;
    }
    if (pick == nullptr || m.upper > pick->upper) pick = &m;
  }
  if (pick == nullptr) return std::nullopt;
  Move& m = *pick;
  m.busy = true;
  m.worker = worker;
  m.level = level;
  // again: v is the child's margin; else v >= level means the child's margin <= -level.
  return Job{m.pit, level, m.child, m.again ? level : 1 - level};
}

void RootSplit::record(const Job& job, const TestResult& t) {
  Move& m =
      *std::find_if(moves_.begin(), moves_.end(), [&](const Move& x) { return x.pit == job.pit; });
  m.busy = false;
  if (t.stopped) return;
  // The child's bound as a bound on v.
  m.narrow(m.again ? t.at_least : !t.at_least, m.again ? t.bound : -t.bound, m.lower & 1);
  if (m.lower > m.upper)
    throw std::logic_error("root split: pit " + std::to_string(m.pit) +
                           " has empty bounds (TT collision?)");
}

bool RootSplit::done() const {
  return std::none_of(moves_.begin(), moves_.end(), [this](const Move& m) { return open(m); });
}

SolveResult RootSplit::result() const {
  SolveResult r;
  std::tie(r.lower, r.upper) = root_bounds(moves_);
  for (const Move& m : moves_) r.moves.push_back({m.pit, m.lower, m.upper});
  if (done()) {
    r.complete = true;
    r.margin = r.lower;
    r.upper = r.lower;
    for (const Move& m : moves_)
      if (m.lower == m.upper && m.lower == r.margin) r.best_moves.push_back(m.pit);
  }
  return r;
}

std::string RootSplit::status() const {
  std::string s = moves_text(result()), testing;
  for (const Move& m : moves_)
    if (m.busy)
      testing += (testing.empty() ? "; testing pit " : ", pit ") + std::to_string(m.pit) +
                 " >= " + std::to_string(m.level);
  return s + testing;
}

}  // namespace kalah
