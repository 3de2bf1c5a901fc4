// Every record of a database decoded and checked, in key order: what `kalah dump` prints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "db/table.hpp"
#include "engine/position.hpp"

namespace kalah {

// The fields of each record type as db/FORMAT.md lays them out. A field that differs between two
// builds of the same table (DumpOptions::without_builds) is an optional, absent then.
struct HeaderDump {
  std::uint32_t version;
};

struct TableDump {
  TableId table;
  std::uint32_t format_version;  // of the writer
  int complete_through;          // -1: no level complete
};

struct LevelDump {
  TableId table;
  int n;
  LevelMeta meta;  // meta.build is 0 for a level of format 1 or 2, and without_builds
  std::optional<std::uint64_t> build;            // bound levels only
  std::optional<std::uint64_t> record_checksum;  // bound levels only
};

struct BlockDump {
  std::uint32_t block;                    // index in the level
  std::uint32_t offset;                   // in the group record
  std::uint32_t bytes;                    // stored bytes: header and zstd frame
  std::optional<std::uint64_t> checksum;  // the first checksum, over the place and bytes 8..end
  std::uint32_t entries;
  int codec;
  std::uint64_t values_checksum;
  // XXH64 of bytes 8..end: the block's content without its place, the same in two builds that
  // stored the same values the same way (the first checksum of an unbound block).
  std::uint64_t content_checksum;
};

struct GroupDump {
  TableId table;
  int n;
  std::uint32_t group;
  std::vector<BlockDump> blocks;
};

struct BookDump {
  TableId table;
  std::vector<Stones> pits;  // 2m counts, side to move first
  int margin;
  bool checked;            // false: an entry of format 1, without a checksum (not used by readers)
  std::uint64_t checksum;  // 0 when unchecked
};

struct DumpRecord {
  std::string key;  // the key's bytes
  std::size_t value_bytes;
  std::variant<HeaderDump, TableDump, LevelDump, GroupDump, BookDump> fields;
};

struct DumpOptions {
  // Leave out what differs between two builds of the same table (each level's build identity and
  // record checksum, each block's first checksum), so that two builds dump the same.
  bool without_builds = false;
};

// The key as lower-case hex, as mdb_dump prints it.
std::string key_hex(std::string_view key);

// Opens the database at `path` read-only (DbError "no database at PATH ..." when there is none)
// and calls fn for each record in key order, decoded and checked as its readers check it: the
// header's magic and version, each key against its type, the table record against its key, each
// level record's size, counts and checksum over its key (decode_level), each group record's
// offsets and its place among the level's blocks, each block's header, entry count and first
// checksum over its place (bound levels) or bytes (levels of format 1 or 2), each book entry's
// checksum. Values are not decompressed (kalah verify checks them), and missing records are not
// looked for. At the first record that fails, throws DbError "PATH: record KEYHEX (WHAT):
// REASON", one line, after fn has been called for every record before it.
void dump_records(const std::string& path, const DumpOptions& options,
                  const std::function<void(const DumpRecord&)>& fn);

}  // namespace kalah
