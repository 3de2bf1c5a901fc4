// Byte layout of every LMDB key and value of a kalah database; db/FORMAT.md is its prose twin.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "db/table.hpp"
#include "engine/position.hpp"

namespace kalah::format {

constexpr std::uint32_t kVersion = 3;
// The version whose book entries carry no checksum (db/FORMAT.md, "Compatibility").
constexpr std::uint32_t kVersionUncheckedBook = 1;
constexpr char kMagic[8] = {'K', 'A', 'L', 'A', 'H', 'D', 'B', '\0'};

// First key byte: the record type. Keys are big-endian and fixed-width per type, so LMDB's
// lexicographic order sorts block groups by (rule set, m, n, group), hence blocks by
// (rule set, m, n, block).
enum Tag : std::uint8_t {
  kHeader = 0x00,
  kTable = 0x01,
  kLevel = 0x02,
  kGroup = 0x03,
  kBook = 0x04
};

// Rule-set code in keys and records: the policy's kCode (engine/rules.hpp has rules_from_code).
std::uint8_t rules_code(Rules r);

// A key of at most 3 + 2 * (2 * kMaxPits) bytes.
struct Key {
  std::array<std::uint8_t, 3 + 4 * kMaxPits> bytes{};
  std::size_t size = 0;
  std::string_view view() const { return {reinterpret_cast<const char*>(bytes.data()), size}; }
};

Key header_key();
Key table_key(TableId t);
Key level_key(TableId t, int n);
// Key of the record holding block group g of level n (blocks g*G .. g*G+G-1, G per level record).
Key group_key(TableId t, int n, std::uint32_t g);
// Prefix shared by the group keys of one level, and by the book keys of one table.
Key group_prefix(TableId t, int n);
Key book_prefix(TableId t);
Key book_key(TableId t, std::span<const Stones> pits);

// What a key names: the inverse of the key functions above. table, n, group and pits are set as
// the record type has them (n for level and group records, group for group records, the 2m pit
// counts for book entries). nullopt for a key that no key function makes: an unknown type, an
// unknown rule-set code, m outside 1..kMaxPits, a length wrong for its type.
struct KeyFields {
  Tag tag = kHeader;
  TableId table{Rules(0), 0};
  int n = 0;
  std::uint32_t group = 0;
  std::vector<Stones> pits;
};
std::optional<KeyFields> decode_key(std::string_view key);

// Header record: magic, format version.
constexpr std::size_t kHeaderBytes = 16;
std::string encode_header();
// Format version of a header value; nullopt when the magic is wrong.
std::optional<std::uint32_t> decode_header(std::string_view v);

// The highest level a table holds: a level's number is one byte of its keys.
constexpr int kMaxLevel = 255;

// Table record: the table and N, the highest level such that levels 0..N are complete (-1: none).
// decode_table refuses an N outside -1..kMaxLevel. encode_table writes kVersion as the writer's
// format version (format_version is not read); decode_table returns the stored one.
struct TableRecord {
  TableId table;
  int complete_through;
  std::uint32_t format_version = kVersion;
};
constexpr std::size_t kTableBytes = 8;
// The byte of a table record's value where complete_through (int16) starts.
constexpr std::size_t kTableCompleteThroughByte = 6;
std::string encode_table(const TableRecord& r);
std::optional<TableRecord> decode_table(std::string_view v);

// Level record of level n of table t: 64 bytes ending in the level's build identity and an XXH64
// of the record's key and bytes before it (kFirstBoundFormat on); 48 bytes, without either, as
// formats 1 and 2 wrote it. encode_level writes m as format kVersion (m.format_version is not
// read). decode_level returns nullopt for a damaged record: a bad checksum (the record changed,
// or stored under another table's or level's key), a size or version that do not agree, counts
// that do not fit.
constexpr std::size_t kLevelBytes = 64, kLevelBytesUnbound = 48;
// The byte of a level record's value that marks the level complete (1) or not (0).
constexpr std::size_t kLevelCompleteByte = 40;
std::string encode_level(TableId t, int n, const LevelMeta& m);
std::optional<LevelMeta> decode_level(TableId t, int n, std::string_view v);
// The record checksum of a level record that decode_level accepts (bytes 56..63 of a 64-byte
// record); 0 for a 48-byte one, which has none.
std::uint64_t stored_level_record_checksum(std::string_view v);

// Block-group record: `count` blocks from blocks[first], stored back to back after a table of
// count+1 offsets (db/FORMAT.md).
std::string encode_group(const std::vector<std::string>& blocks, std::size_t first,
                         std::size_t count);
// Block j of a group record that must hold `count` blocks; nullopt when the record's count or
// offsets are inconsistent (a damaged record).
std::optional<std::string_view> block_in_group(std::string_view group, std::uint32_t j,
                                               std::uint32_t count);
// The count + 1 offsets of a group record (block j occupies [offsets[j], offsets[j + 1])), count
// read from the record; nullopt when the count, the reserved field or the offsets are
// inconsistent (the checks of block_in_group, and offsets that never decrease).
std::optional<std::vector<std::uint32_t>> group_offsets(std::string_view group);

// Book value of the entry at `key`: the exact future margin, int16 little-endian, then XXH64 of
// the key and those two bytes.
std::string encode_book_value(std::string_view key, int margin);
struct BookValue {
  enum Status { kChecked, kUnchecked, kCorrupt };
  Status status;  // kUnchecked: a version-1 entry (no checksum), whose margin is not to be trusted
  int margin;
};
BookValue decode_book_value(std::string_view key, std::string_view v);
// The checksum a checked book value stores (bytes 2..9); 0 for an unchecked one.
std::uint64_t book_value_checksum(std::string_view v);

// Little-endian field access for record values.
void put_le(std::string& out, std::uint64_t v, int bytes);
std::uint64_t get_le(std::string_view v, std::size_t offset, int bytes);
// Big-endian field access for keys.
std::uint64_t get_be(std::string_view v, std::size_t offset, int bytes);

}  // namespace kalah::format
