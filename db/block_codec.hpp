// One stored block: a 24-byte header (two XXH64 checksums, count, codec) + a zstd frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kalah {

constexpr std::uint8_t kCodecZstdInt8 = 1;  // one zstd frame of the raw int8 values
constexpr std::size_t kBlockHeaderBytes = 24;
constexpr std::size_t kBlockValueSumOffset = 16;  // XXH64 of the block's values, 8 bytes LE

// Compresses values into a block value (db/FORMAT.md, "Block record"). Reuses a per-thread
// zstd context; safe to call from several threads at once.
std::string encode_block(std::span<const std::int8_t> values, int zstd_level);

// Entry count a block value declares in its header (0 when the value is too short for one).
std::uint32_t block_entries_of(std::string_view stored);

// Decodes a block value into out (out.size() must equal the declared count) and verifies it:
// the checksum of the stored bytes (so any flipped byte is caught, even one zstd would ignore),
// header, codec, zstd frame, decompressed size and the checksum of the values. Throws DbError
// "WHERE: corrupt block (...)" on any mismatch, so a corrupted block never yields values.
void decode_block(std::string_view stored, std::span<std::int8_t> out, const std::string& where);

}  // namespace kalah
