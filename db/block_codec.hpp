// One stored block: a 24-byte header (two XXH64 checksums, count, codec) + a zstd frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "db/table.hpp"

namespace kalah {

constexpr std::uint8_t kCodecZstdInt8 = 1;  // one zstd frame of the raw int8 values
constexpr std::size_t kBlockHeaderBytes = 24;
constexpr std::size_t kBlockValueSumOffset = 16;  // XXH64 of the block's values, 8 bytes LE

// Where a stored block belongs: its table, level n, index in the level, and the build identity
// of the run that wrote the level (LevelMeta::build). A bound block's first checksum covers
// these 16 bytes (db/FORMAT.md, "Block") before its own, so it is valid at this place only.
struct BlockPlace {
  TableId table;
  int n;
  std::uint32_t block;
  std::uint64_t build;
};

// Compresses values into an unbound block value: its first checksum covers its own bytes alone
// (how blocks are made, and how they travel before the store binds them; db/FORMAT.md,
// "Block"). Reuses a per-thread zstd context; safe to call from several threads at once.
std::string encode_block(std::span<const std::int8_t> values, int zstd_level);

// Binds an unbound block to `place`: checks its first checksum (DbError "WHERE: corrupt block
// (...)" when it fails), then replaces it by the one over the place and the block's bytes.
void bind_block(std::string& stored, const BlockPlace& place, const std::string& where);

// Entry count a block value declares in its header (0 when the value is too short for one).
std::uint32_t block_entries_of(std::string_view stored);

// The header fields of a stored block (db/FORMAT.md, "Block"), as stored: nothing checked but
// the length; nullopt for a value shorter than the header.
struct BlockHeader {
  std::uint64_t checksum;         // the first checksum: over the place (bound) and bytes 8..end
  std::uint32_t entries;          // values in the block
  std::uint8_t codec;             // kCodecZstdInt8
  std::uint32_t reserved;         // bytes 13..15, 0
  std::uint64_t values_checksum;  // XXH64 of the decompressed values
  std::size_t frame_bytes;        // the zstd frame after the header
};
std::optional<BlockHeader> block_header(std::string_view stored);

// What the first checksum of `stored` (at least kBlockHeaderBytes long) must be: XXH64 of the
// place's 16 bytes when place is given (a bound block) and of the block's bytes 8..end. With
// place null it depends on the block's bytes alone (an unbound block, formats 1 and 2).
std::uint64_t block_checksum(std::string_view stored, const BlockPlace* place);

// Decodes a block value into out (out.size() must equal the declared count) and verifies it:
// the first checksum, over `place` when given (a bound block, format 3 on) and the stored bytes
// (so any flipped byte is caught, even one zstd would ignore, and so is a block of another
// place or build), then header, codec, zstd frame, decompressed size and the checksum of the
// values. place null: an unbound block (formats 1 and 2). Throws DbError "WHERE: corrupt block
// (...)" on any mismatch, so a corrupted or misplaced block never yields values.
void decode_block(std::string_view stored, std::span<std::int8_t> out, const BlockPlace* place,
                  const std::string& where);

}  // namespace kalah
