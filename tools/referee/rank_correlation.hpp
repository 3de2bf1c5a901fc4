// Rank correlation of a bot's evaluations with exact margins: Spearman's rho and Kendall's tau-b.
#pragma once

#include <optional>
#include <vector>

namespace kalah::referee {

// Spearman's rho of the pairs (x[i], y[i]): Pearson's correlation (Boost.Math's) of their ranks,
// tied values given the mean of the ranks they span. nullopt when there are fewer than two pairs or
// either side has a single value (the correlation is undefined). Throws std::invalid_argument when
// the sizes differ.
std::optional<double> spearman_rho(const std::vector<double>& x, const std::vector<double>& y);

// Kendall's tau-b of the same pairs: (concordant - discordant) / sqrt((n0 - tx)(n0 - ty)), n0 the
// number of pairs of pairs, tx and ty those tied in x and in y; in O(n log n) (Knight's method).
// nullopt as for spearman_rho.
std::optional<double> kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace kalah::referee
