// zstd compression of blocks with per-thread contexts and verified decompression.
#include "db/block_codec.hpp"

#include <zstd.h>

#include <memory>

#include "db/db_error.hpp"
#include "db/format.hpp"
#include "db/xxhash64.hpp"

namespace kalah {
namespace {

struct CctxFree {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DctxFree {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

ZSTD_CCtx* thread_cctx() {
  thread_local std::unique_ptr<ZSTD_CCtx, CctxFree> ctx(ZSTD_createCCtx());
  return ctx.get();
}
ZSTD_DCtx* thread_dctx() {
  thread_local std::unique_ptr<ZSTD_DCtx, DctxFree> ctx(ZSTD_createDCtx());
  return ctx.get();
}

void put_stored_checksum(std::string& stored, std::uint64_t sum) {
  for (int i = 0; i < 8; ++i) stored[std::size_t(i)] = char(std::uint8_t(sum >> (8 * i)));
}

}  // namespace

std::uint64_t block_checksum(std::string_view stored, const BlockPlace* place) {
  if (!place) return xxh64(stored.data() + 8, stored.size() - 8);
  std::uint8_t bytes[16] = {format::rules_code(place->table.rules), std::uint8_t(place->table.m),
                            std::uint8_t(place->n), 0};
  for (int i = 0; i < 4; ++i) bytes[4 + i] = std::uint8_t(place->block >> (8 * i));
  for (int i = 0; i < 8; ++i) bytes[8 + i] = std::uint8_t(place->build >> (8 * i));
  Xxh64Stream h;
  h.update(bytes, sizeof bytes);
  h.update(stored.data() + 8, stored.size() - 8);
  return h.digest();
}

std::string encode_block(std::span<const std::int8_t> values, int zstd_level) {
  std::string out;
  format::put_le(out, 0, 8);  // stored-bytes checksum, filled in below
  format::put_le(out, values.size(), 4);
  format::put_le(out, kCodecZstdInt8, 1);
  format::put_le(out, 0, 3);
  format::put_le(out, xxh64(values.data(), values.size()), 8);
  const std::size_t bound = ZSTD_compressBound(values.size());
  out.resize(kBlockHeaderBytes + bound);
  const std::size_t n = ZSTD_compressCCtx(thread_cctx(), out.data() + kBlockHeaderBytes, bound,
                                          values.data(), values.size(), zstd_level);
  if (ZSTD_isError(n))
    throw DbError(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
  out.resize(kBlockHeaderBytes + n);
  put_stored_checksum(out, block_checksum(out, nullptr));
  return out;
}

void bind_block(std::string& stored, const BlockPlace& place, const std::string& where) {
  if (stored.size() < kBlockHeaderBytes)
    throw DbError(where + ": corrupt block (value shorter than its header)");
  if (block_checksum(stored, nullptr) != format::get_le(stored, 0, 8))
    throw DbError(where + ": corrupt block (checksum of the stored bytes does not match)");
  put_stored_checksum(stored, block_checksum(stored, &place));
}

std::uint32_t block_entries_of(std::string_view stored) {
  const auto header = block_header(stored);
  return header ? header->entries : 0;
}

std::optional<BlockHeader> block_header(std::string_view stored) {
  if (stored.size() < kBlockHeaderBytes) return std::nullopt;
  return BlockHeader{format::get_le(stored, 0, 8),
                     std::uint32_t(format::get_le(stored, 8, 4)),
                     std::uint8_t(format::get_le(stored, 12, 1)),
                     std::uint32_t(format::get_le(stored, 13, 3)),
                     format::get_le(stored, kBlockValueSumOffset, 8),
                     stored.size() - kBlockHeaderBytes};
}

void decode_block(std::string_view stored, std::span<std::int8_t> out, const BlockPlace* place,
                  const std::string& where) {
  if (stored.size() < kBlockHeaderBytes)
    throw DbError(where + ": corrupt block (value shorter than its header)");
  if (block_checksum(stored, place) != format::get_le(stored, 0, 8))
    throw DbError(where + (place
                               ? ": corrupt or misplaced block (its checksum over its table, "
                                 "level, index, build and bytes does not match)"
                               : ": corrupt block (checksum of the stored bytes does not match)"));
  if (block_entries_of(stored) != out.size())
    throw DbError(where + ": corrupt block (declares " + std::to_string(block_entries_of(stored)) +
                  " entries, expected " + std::to_string(out.size()) + ")");
  if (format::get_le(stored, 12, 1) != kCodecZstdInt8)
    throw DbError(where + ": unknown block codec " + std::to_string(format::get_le(stored, 12, 1)));
  const std::size_t n =
      ZSTD_decompressDCtx(thread_dctx(), out.data(), out.size(), stored.data() + kBlockHeaderBytes,
                          stored.size() - kBlockHeaderBytes);
  if (ZSTD_isError(n))
    throw DbError(where + ": corrupt block (zstd: " + ZSTD_getErrorName(n) + ")");
  if (n != out.size())
    throw DbError(where + ": corrupt block (decompressed " + std::to_string(n) + " of " +
                  std::to_string(out.size()) + " entries)");
  if (xxh64(out.data(), out.size()) != format::get_le(stored, kBlockValueSumOffset, 8))
    throw DbError(where + ": corrupt block (checksum of the values does not match)");
}

}  // namespace kalah
