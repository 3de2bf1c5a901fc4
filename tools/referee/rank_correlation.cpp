// Rank correlation of a bot's evaluations with exact margins: Spearman's rho and Kendall's tau-b.
#include "tools/referee/rank_correlation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <utility>

#include <boost/math/statistics/bivariate_statistics.hpp>

namespace kalah::referee {
namespace {

void check_sizes(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("rank correlation of unequal samples");
}

// The ranks of v (1-based), ties given their mean rank.
std::vector<double> mean_ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> rank(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double mean = (double(i) + double(j)) / 2 + 1;
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = mean;
    i = j + 1;
  }
  return rank;
}

// Pairs of items tied within each run of equal values of sorted v: the sum of t(t-1)/2.
template <class Equal>
std::uint64_t tied_pairs(std::size_t n, Equal equal) {
  std::uint64_t ties = 0, run = 1;
  for (std::size_t i = 1; i <= n; ++i) {
    if (i < n && equal(i - 1, i)) {
      ++run;
    } else {
      ties += run * (run - 1) / 2;
      run = 1;
    }
  }
  return ties;
}

// Sorts v[lo, hi) ascending by merging, counting the pairs it finds in decreasing order.
std::uint64_t merge_count(std::vector<double>& v, std::vector<double>& scratch, std::size_t lo,
                          std::size_t hi) {
  if (hi - lo < 2) return 0;
  const std::size_t mid = lo + (hi - lo) / 2;
  std::uint64_t swaps = merge_count(v, scratch, lo, mid) + merge_count(v, scratch, mid, hi);
  std::size_t i = lo, j = mid, k = lo;
  while (i < mid && j < hi) {
    if (v[j] < v[i]) {
      swaps += mid - i;
      scratch[k++] = v[j++];
    } else {
      scratch[k++] = v[i++];
    }
  }
  while (i < mid) scratch[k++] = v[i++];
  while (j < hi) scratch[k++] = v[j++];
  std::copy(scratch.begin() + std::ptrdiff_t(lo), scratch.begin() + std::ptrdiff_t(hi),
            v.begin() + std::ptrdiff_t(lo));
  return swaps;
}

}  // namespace

std::optional<double> spearman_rho(const std::vector<double>& x, const std::vector<double>& y) {
  check_sizes(x, y);
  if (x.size() < 2) return std::nullopt;
  const auto constant = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [&](double e) { return e == v[0]; });
  };
  if (constant(x) || constant(y)) return std::nullopt;
  return boost::math::statistics::correlation_coefficient(mean_ranks(x), mean_ranks(y));
}

std::optional<double> kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y) {
  check_sizes(x, y);
  const std::size_t n = x.size();
  if (n < 2) return std::nullopt;
  std::vector<std::pair<double, double>> p(n);
  for (std::size_t i = 0; i < n; ++i) p[i] = {x[i], y[i]};
  std::sort(p.begin(), p.end());
  const std::uint64_t n0 = std::uint64_t(n) * (n - 1) / 2;
  const std::uint64_t tx =
      tied_pairs(n, [&](std::size_t a, std::size_t b) { return p[a].first == p[b].first; });
  const std::uint64_t txy =
      tied_pairs(n, [&](std::size_t a, std::size_t b) { return p[a] == p[b]; });
  std::vector<double> ys(n), scratch(n);
  for (std::size_t i = 0; i < n; ++i) ys[i] = p[i].second;
  // Pairs out of order in y once sorted by x (then y): the discordant pairs.
  const std::uint64_t discordant = merge_count(ys, scratch, 0, n);
  const std::uint64_t ty =
      tied_pairs(n, [&](std::size_t a, std::size_t b) { return ys[a] == ys[b]; });
  if (tx == n0 || ty == n0) return std::nullopt;
  // Concordant - discordant = n0 - tx - ty + txy - 2 * discordant.
  const double s = double(n0) - double(tx) - double(ty) + double(txy) - 2.0 * double(discordant);
  return s / std::sqrt(double(n0 - tx) * double(n0 - ty));
}

}  // namespace kalah::referee
