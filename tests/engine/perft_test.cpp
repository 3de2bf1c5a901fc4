// Perft: leaf counts of the move tree from start positions, engine vs a naive generator from
// RULES.md.
//
// perft(p, d) counts the leaves of the move tree of p cut at d plies: every move is one ply (a
// kalah-rules extra turn too, so the same player may own consecutive plies), and a position where
// the game is over (RULES.md natural end: wetherell when the side to move has no stone in its
// pits, kalah rules when either side has none; wetherell's "more than half" shortcut does not end
// the tree) is a leaf at whatever depth it is reached. perft(p, 0) = 1. A checksum of the leaf
// boards (sum of a hash of each leaf, side to move included) is compared as well, so a generator
// that reaches the right number of wrong positions is caught too.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "engine/move.hpp"
#include "engine/ordering.hpp"

namespace kalah {
namespace {

// ---------------------------------------------------------------------------------------------
// The naive reference: an absolute board (S's pits, S's kalah, N's pits, N's kalah), stones moved
// one at a time, rules transcribed from RULES.md without the engine's shortcuts.

struct NaiveBoard {
  int m = 6;
  std::vector<int> pits[2];  // pits[side][i]: that side's pit i+1
  int kalah[2] = {0, 0};
  int to_move = 0;  // 0 = S, 1 = N
};

// A place on the board along the counter-clockwise path: a side's pit (0..m-1) or kalah (m).
struct Spot {
  int side;
  int index;
};

Spot next_spot(const NaiveBoard& b, Spot s, int mover) {
  // After a side's pit m comes its kalah, after a kalah the other side's pit 1; the opponent's
  // kalah is never sown into.
  while (true) {
    if (s.index < b.m) {
      ++s.index;
    } else {
      s = {1 - s.side, 0};
    }
    if (s.index == b.m && s.side != mover) continue;
    return s;
  }
}

int& at(NaiveBoard& b, Spot s) {
  return s.index == b.m ? b.kalah[s.side] : b.pits[s.side][s.index];
}

int side_stones(const NaiveBoard& b, int side) {
  int n = 0;
  for (int v : b.pits[side]) n += v;
  return n;
}

// Plays pit (0-based) of the side to move.
void naive_play(Rules rules, NaiveBoard& b, int pit) {
  const int me = b.to_move, opp = 1 - me;
  Spot from{me, pit};
  bool again = false;
  while (true) {
    int hand = at(b, from);
    at(b, from) = 0;
    Spot s = from;
    bool reached_opponent = false;
    int before_last = 0;
    while (hand > 0) {
      s = next_spot(b, s, me);
      before_last = at(b, s);
      ++at(b, s);
      --hand;
      if (s.side == opp && s.index < b.m) reached_opponent = true;
    }
    if (rules == Rules::kWetherell) {
      if (s.side == me && s.index < b.m && before_last > 0 && reached_opponent) {
        from = s;  // relay
        continue;
      }
      if (s.side == opp && s.index < b.m) {
        for (int j = s.index; j >= 0; --j) {
          const int v = b.pits[opp][j];
          if (v != 2 && v != 3) break;
          b.kalah[me] += v;
          b.pits[opp][j] = 0;
        }
      }
    } else {
      if (s.side == me && s.index == b.m) {
        again = true;
      } else if (s.side == me && before_last == 0) {
        // Own pit i (1-based) faces the opponent's pit m+1-i.
        const int facing = b.m - 1 - s.index;
        if (rules == Rules::kKalahEmptyCapture || b.pits[opp][facing] > 0) {
          b.kalah[me] += 1 + b.pits[opp][facing];
          b.pits[me][s.index] = 0;
          b.pits[opp][facing] = 0;
        }
      }
    }
    break;
  }
  if (!again) b.to_move = opp;
}

bool naive_over(Rules rules, const NaiveBoard& b) {
  if (rules == Rules::kWetherell) return side_stones(b, b.to_move) == 0;
  return side_stones(b, 0) == 0 || side_stones(b, 1) == 0;
}

std::uint64_t leaf_hash(int m, const int* south, int sk, const int* north, int nk, int to_move) {
  std::uint64_t h = 1469598103934665603ull ^ std::uint64_t(to_move);
  auto mix = [&](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  for (int i = 0; i < m; ++i) mix(std::uint64_t(south[i]));
  mix(std::uint64_t(sk) + 1000);
  for (int i = 0; i < m; ++i) mix(std::uint64_t(north[i]) + 2000);
  mix(std::uint64_t(nk) + 3000);
  return h ^ (h >> 29);
}

struct Perft {
  std::uint64_t leaves = 0;
  std::uint64_t checksum = 0;
  friend bool operator==(const Perft&, const Perft&) = default;
};

void naive_perft(Rules rules, const NaiveBoard& b, int depth, Perft& out) {
  if (depth == 0 || naive_over(rules, b)) {
    ++out.leaves;
    out.checksum +=
        leaf_hash(b.m, b.pits[0].data(), b.kalah[0], b.pits[1].data(), b.kalah[1], b.to_move);
    return;
  }
  for (int pit = 0; pit < b.m; ++pit) {
    if (b.pits[b.to_move][pit] == 0) continue;
    NaiveBoard c = b;
    naive_play(rules, c, pit);
    naive_perft(rules, c, depth - 1, out);
  }
}

// ---------------------------------------------------------------------------------------------
// The engine: the search's move generator (ordered_children, which applies play_move<R>).

void add_leaf(const Position& p, Perft& out) {
  int south[kMaxPits], north[kMaxPits];
  for (int i = 0; i < p.m; ++i) {
    south[i] = p.side_pit(Side::kSouth, i);
    north[i] = p.side_pit(Side::kNorth, i);
  }
  ++out.leaves;
  out.checksum += leaf_hash(p.m, south, p.side_kalah(Side::kSouth), north,
                            p.side_kalah(Side::kNorth), p.mover == Side::kSouth ? 0 : 1);
}

template <class R>
void engine_perft(const Position& p, int depth, Perft& out) {
  if (depth == 0 || is_over<R>(p)) {
    add_leaf(p, out);
    return;
  }
  Child children[kMaxPits];
  const int n = ordered_children<R>(p, -1, children);
  for (int i = 0; i < n; ++i) engine_perft<R>(children[i].pos, depth - 1, out);
}

Perft engine_perft(Rules rules, const Position& p, int depth) {
  Perft out;
  with_rules(rules, [&](auto r) { engine_perft<decltype(r)>(p, depth, out); });
  return out;
}

NaiveBoard naive_start(int m, int k) {
  NaiveBoard b;
  b.m = m;
  b.pits[0].assign(m, k);
  b.pits[1].assign(m, k);
  return b;
}

// Leaf counts for depths 1..6 from the 6-pit starts, computed once by naive_perft and frozen here:
// a change that moved the engine and this test's naive code together would still be caught.
struct Frozen {
  Rules rules;
  int k;
  std::array<std::uint64_t, 6> leaves;
};
constexpr Frozen kFrozen[] = {
    {Rules::kWetherell, 3, {6, 36, 183, 939, 4422, 21121}},
    {Rules::kWetherell, 4, {6, 36, 186, 973, 4823, 24142}},
    {Rules::kKalah, 3, {6, 35, 182, 904, 4243, 19418}},
    {Rules::kKalah, 4, {6, 35, 185, 942, 4690, 23233}},
    {Rules::kKalahEmptyCapture, 3, {6, 35, 182, 904, 4231, 19276}},
    {Rules::kKalahEmptyCapture, 4, {6, 35, 185, 942, 4685, 23169}},
};

TEST(Perft, EngineMatchesNaiveGeneratorAndFrozenCounts) {
  for (const Frozen& f : kFrozen) {
    const Position p = start_position(6, f.k);
    const NaiveBoard b = naive_start(6, f.k);
    for (int d = 1; d <= 6; ++d) {
      Perft naive;
      naive_perft(f.rules, b, d, naive);
      const Perft engine = engine_perft(f.rules, p, d);
      EXPECT_EQ(engine.leaves, naive.leaves) << rules_name(f.rules) << " k=" << f.k << " d=" << d;
      EXPECT_EQ(engine.checksum, naive.checksum)
          << rules_name(f.rules) << " k=" << f.k << " d=" << d;
      EXPECT_EQ(naive.leaves, f.leaves[d - 1]) << rules_name(f.rules) << " k=" << f.k << " d=" << d;
    }
  }
}

// Small and large boards, long laps (many stones) and games that end inside the horizon.
TEST(Perft, EngineMatchesNaiveGeneratorOnOtherBoards) {
  struct Case {
    int m, k, depth;
  };
  const Case cases[] = {{1, 1, 8}, {1, 5, 8},  {2, 2, 10}, {3, 1, 10}, {3, 9, 5},
                        {4, 2, 7}, {5, 12, 4}, {12, 1, 4}, {12, 30, 3}};
  for (Rules rules : {Rules::kWetherell, Rules::kKalah, Rules::kKalahEmptyCapture}) {
    for (const Case& c : cases) {
      Perft naive;
      naive_perft(rules, naive_start(c.m, c.k), c.depth, naive);
      const Perft engine = engine_perft(rules, start_position(c.m, c.k), c.depth);
      EXPECT_EQ(engine, naive) << rules_name(rules) << " m=" << c.m << " k=" << c.k
                               << " depth=" << c.depth << ": " << engine.leaves << " vs "
                               << naive.leaves;
    }
  }
}

}  // namespace
}  // namespace kalah
