// Move narration: records a move through play_move's trace hooks and words it.
#include "engine/describe.hpp"

#include "engine/move.hpp"

namespace kalah {

namespace {

struct StoryTrace {
  MoveStory* story;
  void relay(int own_pit) { story->relays.push_back(own_pit + 1); }
  void capture(int opp_pit, int stones) { story->captures.emplace_back(opp_pit + 1, stones); }
  void capture_opposite(int own_pit, int stones) {
    story->opposite_pit = own_pit + 1;
    story->opposite_stones = stones;
  }
  void extra_turn() { story->extra_turn = true; }
};

}  // namespace

int MoveStory::captured() const {
  int n = opposite_stones;
  for (const auto& c : captures) n += c.second;
  return n;
}

MoveStory play_and_describe(Rules rules, Position& p, int pit_1based) {
  // Same checks as the run-time play_move: validate on a copy first, then replay with the trace.
  Position check = p;
  play_move(rules, check, pit_1based);
  MoveStory story;
  story.mover = p.mover;
  story.pit = pit_1based;
  with_rules(rules, [&](auto r) { play_move<decltype(r)>(p, pit_1based - 1, StoryTrace{&story}); });
  return story;
}

std::string describe(const MoveStory& s, int m) {
  const char me = side_letter(s.mover);
  const char opp = side_letter(other(s.mover));
  std::vector<std::string> parts;
  for (int r : s.relays) parts.push_back("relay from pit " + std::to_string(r));
  if (!s.captures.empty()) {
    std::string c = "captures ";
    for (std::size_t i = 0; i < s.captures.size(); ++i) {
      if (i > 0) c += i + 1 == s.captures.size() ? " and " : ", ";
      c += std::to_string(s.captures[i].second) + " from " + opp +
           std::to_string(s.captures[i].first);
    }
    parts.push_back(c);
  }
  if (s.opposite_pit > 0) {
    const int facing = m + 1 - s.opposite_pit;
    std::string c =
        "captures " + std::to_string(s.opposite_stones) + " (pit " + std::to_string(s.opposite_pit);
    if (s.opposite_stones > 1) {
      c += std::string(" and ") + opp + "'s opposite pit " + std::to_string(facing) + ")";
    } else {
      c += std::string("; ") + opp + "'s opposite pit " + std::to_string(facing) + " is empty)";
    }
    parts.push_back(c);
  }
  if (s.extra_turn) parts.push_back("extra turn");
  std::string out = std::string(1, me) + " plays " + std::to_string(s.pit);
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? ": " : ", ") + parts[i];
  return out;
}

}  // namespace kalah
