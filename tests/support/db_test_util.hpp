// Test helpers for the db layer: a self-removing temporary directory, level fillers.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <lmdb.h>
#include <unistd.h>

#include <optional>
#include <string_view>

#include "db/index.hpp"
#include "db/store.hpp"

namespace kalah::test {

// Store options for tests: small blocks, fast compression, two threads.
inline StoreOptions fast_store() {
  StoreOptions o;
  o.block_entries = 4096;
  o.zstd_level = 1;
  o.threads = 2;
  return o;
}

// Store options with blocks of `block_entries` values (zstd level 3, two threads).
inline StoreOptions small_blocks(std::uint32_t block_entries) {
  StoreOptions o;
  o.block_entries = block_entries;
  o.zstd_level = 3;
  o.threads = 2;
  return o;
}

// A fresh directory path under the system temp dir (not created); removed with its contents.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("kalah_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string str() const { return path_.string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Makes the records of `records` (key -> value; nullopt: delete) so in the LMDB environment at
// `path`, created if absent, in one transaction, with plain LMDB past the store's checks.
inline void edit_raw(const std::string& path,
                     const std::map<std::string, std::optional<std::string>>& records) {
  std::filesystem::create_directories(path);
  MDB_env* env;
  MDB_txn* txn;
  MDB_dbi dbi;
  ASSERT_EQ(mdb_env_create(&env), 0);
  ASSERT_EQ(mdb_env_set_mapsize(env, std::size_t(1) << 30), 0);
  ASSERT_EQ(mdb_env_open(env, path.c_str(), 0, 0664), 0);
  ASSERT_EQ(mdb_txn_begin(env, nullptr, 0, &txn), 0);
  ASSERT_EQ(mdb_dbi_open(txn, nullptr, 0, &dbi), 0);
  for (const auto& [key, value] : records) {
    MDB_val k{key.size(), const_cast<char*>(key.data())};
    if (value) {
      MDB_val v{value->size(), const_cast<char*>(value->data())};
      ASSERT_EQ(mdb_put(txn, dbi, &k, &v, 0), 0);
    } else {
      ASSERT_EQ(mdb_del(txn, dbi, &k, nullptr), 0);
    }
  }
  ASSERT_EQ(mdb_txn_commit(txn), 0);
  mdb_env_close(env);
}

// Replaces the record at `key` of the LMDB environment at `path` by `value`, or deletes it when
// there is none, with plain LMDB past the store's checks: how tests make damaged or old
// databases.
inline void edit_raw(const std::string& path, std::string_view key,
                     std::optional<std::string_view> value) {
  std::map<std::string, std::optional<std::string>> records;
  records[std::string(key)] = value ? std::optional<std::string>(*value) : std::nullopt;
  edit_raw(path, records);
}

// The message of the DbError f throws, or "(no DbError)".
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const DbError& e) {
    return e.what();
  }
  return "(no DbError)";
}

// Every record of the LMDB environment at `path`, read with plain LMDB; throws when it cannot be
// read.
inline std::map<std::string, std::string> read_raw(const std::string& path) {
  const auto check = [](int rc) {
    if (rc != 0) throw std::runtime_error(std::string("lmdb: ") + mdb_strerror(rc));
  };
  MDB_env* env;
  MDB_txn* txn;
  MDB_dbi dbi;
  MDB_cursor* cur;
  check(mdb_env_create(&env));
  check(mdb_env_open(env, path.c_str(), MDB_RDONLY, 0664));
  check(mdb_txn_begin(env, nullptr, MDB_RDONLY, &txn));
  check(mdb_dbi_open(txn, nullptr, 0, &dbi));
  check(mdb_cursor_open(txn, dbi, &cur));
  std::map<std::string, std::string> db;
  MDB_val k, v;
  for (int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
       rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
    db[std::string(static_cast<char*>(k.mv_data), k.mv_size)] =
        std::string(static_cast<char*>(v.mv_data), v.mv_size);
  mdb_cursor_close(cur);
  mdb_txn_abort(txn);
  mdb_env_close(env);
  return db;
}

// Uniform random values in [-n, n].
inline std::vector<std::int8_t> random_level(std::uint64_t entries, int n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-n, n);
  std::vector<std::int8_t> v(entries);
  for (auto& x : v) x = std::int8_t(d(rng));
  return v;
}

// A value that depends on the pit counts only (not on any rank), in [-n, n] and of n's parity,
// as every future margin is.
inline int value_of_pits(const Stones* x, int cells, int n) {
  std::uint64_t h = 0x12345;
  for (int i = 0; i < cells; ++i) h = (h ^ x[i]) * 0x100000001B3ULL + std::uint64_t(i);
  h ^= h >> 29;
  return 2 * int(h % std::uint64_t(n + 1)) - n;
}

// Level n of m pits filled with value_of_pits, laid out in rank order by walking next().
inline std::vector<std::int8_t> pits_level(const LevelIndex& idx, int n) {
  std::vector<std::int8_t> v;
  v.reserve(idx.size(n));
  std::vector<Stones> x(idx.cells(), 0);
  idx.unrank(0, n, x.data());
  do v.push_back(std::int8_t(value_of_pits(x.data(), idx.cells(), n)));
  while (idx.next(x.data()));
  return v;
}

// Storage ranks of level n straight from FORMAT.md's definition: all arrangements of n stones
// in 2m cells (own pits 1..m, then opponent's pits 1..m), sorted by the tuple (opponent's pit 1,
// .., opponent's pit m, own pit 1, .., own pit m) ascending.
inline std::map<std::vector<Stones>, std::uint64_t> naive_storage_ranks(int m, int n) {
  std::vector<std::vector<Stones>> all;
  std::vector<Stones> x(2 * m, 0);
  auto rec = [&](auto&& self, int i, int left) -> void {
    if (i == 2 * m - 1) {
      x[i] = Stones(left);
      all.push_back(x);
      return;
    }
    for (int v = 0; v <= left; ++v) {
      x[i] = Stones(v);
      self(self, i + 1, left - v);
    }
  };
  rec(rec, 0, n);
  auto key = [m](const std::vector<Stones>& a) {
    std::vector<Stones> k(a.begin() + m, a.end());
    k.insert(k.end(), a.begin(), a.begin() + m);
    return k;
  };
  std::sort(all.begin(), all.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  std::map<std::vector<Stones>, std::uint64_t> rank;
  for (std::uint64_t r = 0; r < all.size(); ++r) rank[all[r]] = r;
  return rank;
}

}  // namespace kalah::test
