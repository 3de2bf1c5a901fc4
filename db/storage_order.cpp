// StorageOrder: the file format's significance order (db/FORMAT.md, "Storage order").
#include "db/storage_order.hpp"

#include <array>

namespace kalah {

namespace {

// The opponent's pits 1..m, then the side to move's pits 1..m, most significant first.
std::array<int, 2 * kMaxPits> storage_order(int m) {
  std::array<int, 2 * kMaxPits> order{};
  for (int k = 0; k < m && k < kMaxPits; ++k) {
    order[k] = m + k;  // opponent's pit k+1
    order[m + k] = k;  // own pit k+1
  }
  return order;
}

}  // namespace

StorageOrder::StorageOrder(int m, int max_stones)
    : Arrangements(m, max_stones, storage_order(m).data(), "StorageOrder") {
  for (int k = 0; k < m_; ++k) {
    board_cell_[k] = m_ + 1 + k;
    board_cell_[m_ + k] = k;
  }
}

}  // namespace kalah
