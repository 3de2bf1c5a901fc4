// kalah_records: the database's records as the damaged-database test moves them, through the
// format's own code (db/format.hpp), so that no test script encodes the layout on disk.
//
//   kalah_records key table|level|group|book RULES PITS [N [G]]
//       the record's key in hex (book: the prefix of the table's book entries)
//   kalah_records field level-complete|table-complete-through
//       the byte offset of that field in its record's value
//   kalah_records layout DB RULES PITS N
//       "entries E blocks B per-group G": level N's values, blocks and blocks a group record
//   kalah_records positions DB RULES PITS N BLOCK COUNT
//       COUNT positions spread over block BLOCK of level N (storage order; the side to move South,
//       kalahs empty), one a line
//   kalah_records copy FROM TO EDIT...
//       a new database TO holding FROM's records with each EDIT applied in turn:
//         swap SPEC SPEC          two records exchanged (SPEC: level:RULES:PITS:N or
//                                 group:RULES:PITS:N:G)
//         block BSPEC BSPEC       the first block replaced by a copy of the second as FROM holds
//                                 it (BSPEC: block:RULES:PITS:N:BLOCK)
//         from DB SPEC            the record replaced by DB's record under the same key
//
// Bad arguments or a missing record: one line on stderr, exit status 2.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "db/db_error.hpp"
#include "db/format.hpp"
#include "db/lmdb_env.hpp"
#include "db/record_dump.hpp"
#include "db/storage_order.hpp"
#include "engine/position.hpp"

namespace {

using namespace kalah;
using Records = std::map<std::string, std::string>;

int number(const std::string& s) {
  std::size_t used = 0;
  const int v = std::stoi(s, &used);
  if (used != s.size() || v < 0) throw std::invalid_argument("not a count: " + s);
  return v;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  for (std::size_t colon; (colon = s.find(':', at)) != std::string::npos; at = colon + 1)
    parts.push_back(s.substr(at, colon - at));
  parts.push_back(s.substr(at));
  return parts;
}

TableId table_of(const std::string& rules, const std::string& pits) {
  return {parse_rules_name(rules), number(pits)};
}

// The key a SPEC names: level:RULES:PITS:N or group:RULES:PITS:N:G.
std::string key_of(const std::string& spec) {
  const std::vector<std::string> f = split(spec);
  if (f.size() == 4 && f[0] == "level")
    return std::string(format::level_key(table_of(f[1], f[2]), number(f[3])).view());
  if (f.size() == 5 && f[0] == "group")
    return std::string(
        format::group_key(table_of(f[1], f[2]), number(f[3]), std::uint32_t(number(f[4]))).view());
  throw std::invalid_argument("not a record: " + spec);
}

Records read_all(const std::string& path) {
  const LmdbEnv env(path, false, 0);
  const LmdbTxn txn(env, false);
  Records records;
  txn.scan("", [&records](std::string_view k, std::string_view v) {
    records.emplace(std::string(k), std::string(v));
    return true;
  });
  return records;
}

const std::string& record(const Records& r, const std::string& key) {
  const auto it = r.find(key);
  if (it == r.end()) throw std::invalid_argument("no record under key " + key_hex(key));
  return it->second;
}

LevelMeta level_of(const Records& r, TableId t, int n) {
  const std::optional<LevelMeta> m =
      format::decode_level(t, n, record(r, std::string(format::level_key(t, n).view())));
  if (!m) throw std::invalid_argument("level " + std::to_string(n) + ": a damaged level record");
  return *m;
}

// Block b of level n: the group record holding it and its place there.
struct BlockPlace {
  std::string key;
  std::uint32_t index, count;  // its index in the group, the group's blocks
};
BlockPlace place_of(const Records& r, TableId t, int n, std::uint32_t b) {
  const LevelMeta m = level_of(r, t, n);
  if (b >= m.blocks)
    throw std::invalid_argument("level " + std::to_string(n) + " has no block " +
                                std::to_string(b));
  const std::uint32_t g = b / m.blocks_per_group;
  const std::uint32_t count = std::min(m.blocks_per_group, m.blocks - g * m.blocks_per_group);
  return {std::string(format::group_key(t, n, g).view()), b % m.blocks_per_group, count};
}

std::string block_of(const Records& r, const BlockPlace& p) {
  const std::optional<std::string_view> block =
      format::block_in_group(record(r, p.key), p.index, p.count);
  if (!block) throw std::invalid_argument("a damaged group record");
  return std::string(*block);
}

// The block a BSPEC (block:RULES:PITS:N:BLOCK) names.
BlockPlace block_spec(const Records& r, const std::string& spec) {
  const std::vector<std::string> f = split(spec);
  if (f.size() != 5 || f[0] != "block") throw std::invalid_argument("not a block: " + spec);
  return place_of(r, table_of(f[1], f[2]), number(f[3]), std::uint32_t(number(f[4])));
}

void copy(const std::vector<std::string>& a) {
  const Records from = read_all(a.at(0));
  Records to = from;
  for (std::size_t i = 2; i < a.size(); i += 3) {
    const std::string& edit = a[i];
    const std::string& x = a.at(i + 1);
    const std::string& y = a.at(i + 2);
    if (edit == "swap") {
      record(from, key_of(x)), record(from, key_of(y));  // both must exist
      std::swap(to[key_of(x)], to[key_of(y)]);
    } else if (edit == "block") {
      const BlockPlace dst = block_spec(from, x);
      const std::string stored = block_of(from, block_spec(from, y));
      std::vector<std::string> blocks;
      for (std::uint32_t j = 0; j < dst.count; ++j)
        blocks.push_back(block_of(to, {dst.key, j, dst.count}));
      blocks[dst.index] = stored;
      to[dst.key] = format::encode_group(blocks, 0, blocks.size());
    } else if (edit == "from") {
      to[key_of(y)] = record(read_all(x), key_of(y));
    } else {
      throw std::invalid_argument("unknown edit: " + edit);
    }
  }
  std::uint64_t bytes = 0;
  for (const auto& [k, v] : to) bytes += k.size() + v.size();
  const LmdbEnv env(a.at(1), true, 4 * bytes + (std::uint64_t(64) << 20));
  LmdbTxn txn(env, true);
  for (const auto& [k, v] : to) txn.put(k, v);
  txn.commit();
}

void positions(const std::vector<std::string>& a) {
  const Records r = read_all(a.at(0));
  const TableId t = table_of(a.at(1), a.at(2));
  const int n = number(a.at(3));
  const std::uint32_t b = std::uint32_t(number(a.at(4)));
  const int count = number(a.at(5));
  const LevelMeta m = level_of(r, t, n);
  if (b >= m.blocks || count < 1) throw std::invalid_argument("no such block, or no positions");
  const std::uint64_t first = std::uint64_t(b) * m.block_entries;
  const std::uint64_t last = std::min<std::uint64_t>(first + m.block_entries, m.entries) - 1;
  const StorageOrder order(t.m, n);
  for (int i = 0; i < count; ++i) {
    const std::uint64_t rank = first + (last - first) * i / std::max(count - 1, 1);
    Stones x[2 * kMaxPits];
    order.unrank(rank, n, x);
    Position p;
    p.m = t.m;
    for (int k = 0; k < t.m; ++k) {
      p.own_pit(k) = x[k];
      p.opp_pit(k) = x[t.m + k];
    }
    std::cout << to_string(p) << '\n';
  }
}

void run(const std::vector<std::string>& a) {
  const std::string& what = a.at(0);
  const std::vector<std::string> rest(a.begin() + 1, a.end());
  if (what == "key") {
    const std::string& kind = rest.at(0);
    const TableId t = table_of(rest.at(1), rest.at(2));
    format::Key k;
    if (kind == "table")
      k = format::table_key(t);
    else if (kind == "level")
      k = format::level_key(t, number(rest.at(3)));
    else if (kind == "group")
      k = format::group_key(t, number(rest.at(3)), std::uint32_t(number(rest.at(4))));
    else if (kind == "book")
      k = format::book_prefix(t);
    else
      throw std::invalid_argument("unknown key kind: " + kind);
    std::cout << key_hex(k.view()) << '\n';
  } else if (what == "field") {
    const std::string& field = rest.at(0);
    if (field == "level-complete")
      std::cout << format::kLevelCompleteByte << '\n';
    else if (field == "table-complete-through")
      std::cout << format::kTableCompleteThroughByte << '\n';
    else
      throw std::invalid_argument("unknown field: " + field);
  } else if (what == "layout") {
    const LevelMeta m =
        level_of(read_all(rest.at(0)), table_of(rest.at(1), rest.at(2)), number(rest.at(3)));
    std::cout << "entries " << m.entries << " blocks " << m.blocks << " per-group "
              << m.blocks_per_group << '\n';
  } else if (what == "positions") {
    positions(rest);
  } else if (what == "copy") {
    copy(rest);
  } else {
    throw std::invalid_argument("unknown command: " + what);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2)
      throw std::invalid_argument("usage: kalah_records key|field|layout|positions|copy ...");
    run(std::vector<std::string>(argv + 1, argv + argc));
    return 0;
  } catch (const std::out_of_range&) {
    std::fprintf(stderr, "kalah_records: too few arguments\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kalah_records: %s\n", e.what());
  }
  return 2;
}
