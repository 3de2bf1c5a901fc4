// libkalah's TableProbe: exact margins of binary positions from one table, without parsing.
#include <cstring>
#include <exception>
#include <optional>

#include "solver/library/api/binary_position.hpp"
#include "solver/library/api/table_probe_impl.hpp"

namespace kalah::api {

TableProbe::Impl::Impl(std::shared_ptr<const Store> s, std::shared_ptr<Probe> p, Rules r,
                       int levels)
    : store(std::move(s)),
      probe(std::move(p)),
      rules_name(kalah::rules_name(r)),
      m(probe->table().m),
      max_stones(levels),
      levels(probe->resident() ? &probe->resident_level(0) : nullptr),
      order(&probe->order()) {
  with_rules(r, [&](auto rules) {
    for (int mover = 0; mover < 2; ++mover)
      for (int opp = 0; opp < 2; ++opp)
        game_ends[mover][opp] = decltype(rules)::game_ends(mover != 0, opp != 0);
  });
}

TableProbe::TableProbe(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

namespace {

// The stones in each side's pits of b.
struct PitStones {
  int own = 0, opp = 0;
};
PitStones pit_stones(const BinaryPosition& b) {
  PitStones s;
  for (int i = 0; i < b.pits; ++i) s.own += b.own[i], s.opp += b.opp[i];
  return s;
}

// b's answer when the table need not be read: not covered (another board size, more stones in
// pits than its levels) or the game over (its final margin, as Database::value answers it).
std::optional<ProbeResult> answered_without_table(const TableProbe::Impl& t,
                                                  const BinaryPosition& b, PitStones s) {
  if (t.game_ends[s.own == 0][s.opp == 0])
    return ProbeResult{ProbeResult::Status::kExact, b.own_kalah - b.opp_kalah + s.own - s.opp};
  if (s.own + s.opp > t.max_stones) return ProbeResult{};
  return std::nullopt;
}

// A position located in a resident table: its level and rank, or already answered.
struct Located {
  bool answered;
  ProbeResult result;  // when answered
  const ResidentLevel* level;
  std::uint64_t rank;
  int kd;  // the kalah difference, added to the level's future margin
};

[[gnu::always_inline]] inline Located locate(const TableProbe::Impl& t, const BinaryPosition& b) {
  Located l{true, {}, nullptr, 0, b.own_kalah - b.opp_kalah};
  if (b.pits != t.m) return l;
  const PitStones s = pit_stones(b);
  if (const std::optional<ProbeResult> r = answered_without_table(t, b, s)) {
    l.result = *r;
    return l;
  }
  std::uint8_t cell[2 * kMaxPits + 2] = {};  // Position::cell's layout
  std::memcpy(cell, b.own, std::size_t(t.m));
  std::memcpy(cell + t.m + 1, b.opp, std::size_t(t.m));
  l.answered = false;
  l.level = t.levels + (s.own + s.opp);
  l.rank = t.order->rank_cells(cell, s.own + s.opp);
  return l;
}

ProbeResult read(const Located& l) {
  return l.answered ? l.result
                    : ProbeResult{ProbeResult::Status::kExact, l.kd + l.level->future(l.rank)};
}

// The probe of a table that is not resident: through the block cache, a corrupted block an error.
ProbeResult probe_cached(const TableProbe::Impl& t, const BinaryPosition& b) noexcept {
  if (b.pits != t.m) return {};
  if (const std::optional<ProbeResult> r = answered_without_table(t, b, pit_stones(b))) return *r;
  try {
    const std::optional<int> f = t.probe->future(position_of(b));
    if (!f) return {};
    return {ProbeResult::Status::kExact, b.own_kalah - b.opp_kalah + *f};
  } catch (const std::exception&) {
    return {ProbeResult::Status::kError, 0};
  }
}

}  // namespace

ProbeResult TableProbe::probe(const BinaryPosition& b) const noexcept {
  const Impl& t = *impl_;
  if (t.levels == nullptr) return probe_cached(t, b);
  return read(locate(t, b));
}

void TableProbe::probe(std::span<const BinaryPosition> in,
                       std::span<ProbeResult> out) const noexcept {
  const Impl& t = *impl_;
  const std::size_t count = std::min(in.size(), out.size());
  if (t.levels == nullptr) {
    for (std::size_t i = 0; i < count; ++i) out[i] = probe_cached(t, in[i]);
    return;
  }
  constexpr std::size_t kBatch = 32;  // positions located (and prefetched) before any is read
  Located at[kBatch];
  for (std::size_t first = 0; first < count; first += kBatch) {
    const std::size_t k = std::min(kBatch, count - first);
    for (std::size_t j = 0; j < k; ++j) {
      at[j] = locate(t, in[first + j]);
      if (!at[j].answered) __builtin_prefetch(at[j].level->address(at[j].rank));
    }
    for (std::size_t j = 0; j < k; ++j) out[first + j] = read(at[j]);
  }
}

const std::string& TableProbe::rules() const {
  return impl_->rules_name;
}
int TableProbe::pits() const {
  return impl_->m;
}
int TableProbe::max_stones() const {
  return impl_->max_stones;
}
bool TableProbe::resident() const {
  return impl_->levels != nullptr;
}

}  // namespace kalah::api
