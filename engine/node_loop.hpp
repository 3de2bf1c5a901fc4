// The node loop shared by the engine's search and the exact solver: a node's moves taken best
// first one at a time, and the fail-soft window their values raise.
#pragma once

namespace kalah {

// A move's key in a MoveQueue: its priority (|priority| < 2^26, the caller's policy: the
// engine's order_rank, the solver's order_key), then its pit (0..15), the higher first.
constexpr int move_key(int priority, int pit) {
  return priority * 16 + pit;
}
constexpr int kNoFloor = -(1 << 30);  // below every move_key

// A node's moves, taken highest key first. The order is built lazily: a node that cuts off after
// its first moves never sorts the rest.
template <int N>
class MoveQueue {
 public:
  static_assert(N <= 16, "a move's key keeps its pit in 4 bits");

  void push(int key) { key_[count_++] = key; }
  int size() const { return count_; }

  // The pit of the k-th move in order, once the 0..k-1-th have been taken.
  int take(int k) {
    int top = k, best = key_[k];
    for (int j = k + 1; j < count_; ++j) {
      if (key_[j] > best) {
        best = key_[j];
        top = j;
      }
    }
    key_[top] = key_[k];
    key_[k] = best;
    return best & 15;
  }

  // The key and pit in the j-th place: the j-th in order for j up to the last move taken,
  // unordered above.
  int key_at(int j) const { return key_[j]; }
  int pit_at(int j) const { return key_[j] & 15; }

 private:
  int key_[N];
  int count_ = 0;
};

// One node's fail-soft window over values for its side to move: a final best <= the caller's
// alpha bounds the value from above, best >= beta bounds it from below, otherwise best is the
// value. alpha rises with best.
struct Window {
  int alpha, beta;
  int best;           // the best value so far (below every value before the first move)
  int best_pit = -1;  // its move, -1 before the first

  // Takes the value v of move `pit`; true when it cuts the node off (v >= beta).
  bool raise(int v, int pit) {
    if (v <= best) return false;
    best = v;
    best_pit = pit;
    if (v <= alpha) return false;
    alpha = v;
    return v >= beta;
  }
};

// The loop of a node: takes the queue's moves from the k-th in order while their key is at least
// `floor` and calls visit(pit) on each, which searches the move, raises the node's Window by its
// value and returns true when that ends the node (Window::raise cut it off, or the search
// stopped). Returns true then; k is left at the number of moves visited (a move under the floor
// is taken, not visited).
template <int N, class VisitMove>
[[gnu::always_inline]] inline bool search_in_order(MoveQueue<N>& queue, int& k, VisitMove&& visit,
                                                   int floor = kNoFloor) {
  for (; k < queue.size(); ++k) {
    const int pit = queue.take(k);
    if (queue.key_at(k) < floor) return false;
    if (visit(pit)) {
      ++k;
      return true;
    }
  }
  return false;
}

}  // namespace kalah
