// RootLedger: the proven bounds of a solve's root and its moves.
#include "solver/exhaustive/root_ledger.hpp"

#include <algorithm>
#include <stdexcept>

namespace kalah::solve_detail {

RootLedger::RootLedger(int n, int kd, const std::function<void(const SolveResult&)>& on_proven,
                       SteadyClock::time_point start)
    : n_(n),
      kd_(kd),
      parity_(n & 1),
      on_proven_(on_proven),
      start_(start),
      lo_(-n),
      hi_(n),
      top_(-n - 1) {}

void RootLedger::open_move(int i, int lower, int upper) {
  std::lock_guard lock(mutex_);
  moves_.push_back({{lower, upper}, i});
}

std::vector<int> RootLedger::move_pits() const {
  std::lock_guard lock(mutex_);
  std::vector<int> pits;
  for (const MoveState& m : moves_) pits.push_back(m.i);
  return pits;
}

void RootLedger::narrow_future(int& lo, int& hi, int lower, int upper) const {
  lo = std::max(lo, round_up(lower - kd_, parity_));
  hi = std::min(hi, round_down(upper - kd_, parity_));
}

bool RootLedger::resume(const SolveResult& r) {
  int opening = -n_;
  {
    std::lock_guard lock(mutex_);
    for (const MoveState& m : moves_) opening = std::max(opening, m.lower);
    narrow_future(lo_, hi_, r.lower, r.upper);
    for (const MoveBound& b : r.moves) {
      if (MoveState* m = find_move(b.pit - 1)) narrow_future(m->lower, m->upper, b.lower, b.upper);
    }
    if (lo_ > hi_) throw std::invalid_argument("solve: the resumed bounds are empty");
    announced_ = proven_so_far();  // the caller has these bounds: no announcement repeats them
  }
  return lo_ > opening;
}

void RootLedger::narrow_root(int lower, int upper) {
  narrow_future(lo_, hi_, lower, upper);
}

int RootLedger::test_beta(int guess) const {
  return round_up(std::clamp(guess, lo_ + 1, hi_), parity_);
}

void RootLedger::record_test(int beta, int r) {
  {
    std::lock_guard lock(mutex_);
    if (r >= beta)
      lo_ = round_up(r, parity_);
    else
      hi_ = round_down(r, parity_);
  }
  announce();
}

void RootLedger::narrow(int i, int level, int r) {
  std::lock_guard lock(mutex_);
  find_move(i)->narrow(r >= level, r, parity_);
}

std::pair<int, int> RootLedger::bounds_of(int i) const {
  std::lock_guard lock(mutex_);
  const MoveState& m = *find_move(i);
  return {m.lower, std::min(m.upper, hi_)};
}

int RootLedger::lower_of(int i) const {
  std::lock_guard lock(mutex_);
  return find_move(i)->lower;
}

void RootLedger::record(int i, int v) {
  std::lock_guard lock(mutex_);
  if (v < std::max(lo_, top_)) return;
  if (v > top_) {
    top_ = v;
    best_moves_.clear();
  }
  best_moves_.push_back(i + 1);
}

void RootLedger::settle() {
  if (top_ < lo_)
    throw std::logic_error("solve: no move achieves the proven bound (TT collision?)");
  {
    std::lock_guard lock(mutex_);
    std::sort(best_moves_.begin(), best_moves_.end());
    lo_ = hi_ = top_;
    settled_ = true;
  }
  announce();
}

void RootLedger::announce() {
  if (!on_proven_) return;
  std::lock_guard lock(mutex_);
  SolveResult so_far = proven_so_far();
  if (announced_ && so_far.lower == announced_->lower && so_far.upper == announced_->upper &&
      so_far.moves == announced_->moves && so_far.best_moves == announced_->best_moves)
    return;
  so_far.seconds = seconds_since(start_);
  on_proven_(so_far);
  announced_ = std::move(so_far);
}

void RootLedger::set_phase(std::string phase) {
  std::lock_guard lock(mutex_);
  phase_ = std::move(phase);
}

RootLedger::Progress RootLedger::progress() const {
  std::lock_guard lock(mutex_);
  return {phase_, lo_, hi_};
}

void RootLedger::fill(SolveResult& r) const {
  std::lock_guard lock(mutex_);
  fill_bounds(r);
  r.best_moves = best_moves_;
}

SolveResult RootLedger::proven_so_far() const {
  SolveResult so_far;
  if (settled_) so_far.best_moves = best_moves_;  // before, the moves recorded may not be best
  fill_bounds(so_far);
  return so_far;
}

// A root margin is at least its lower bound and every move's, at most its upper bound and the
// best of the moves' upper bounds.
void RootLedger::fill_bounds(SolveResult& r) const {
  r.moves.clear();
  for (const MoveState& m : moves_)
    r.moves.push_back({m.i + 1, kd_ + m.lower, kd_ + std::min(m.upper, hi_)});
  const auto [lower, upper] = root_bounds(moves_, lo_, hi_);
  r.lower = kd_ + lower;
  r.upper = kd_ + upper;
}

const RootLedger::MoveState* RootLedger::find_move(int i) const {
  const auto m =
      std::find_if(moves_.begin(), moves_.end(), [i](const MoveState& s) { return s.i == i; });
  return m != moves_.end() ? &*m : nullptr;
}

}  // namespace kalah::solve_detail
