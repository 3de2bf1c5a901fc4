// libFuzzer target: decode_block on any bytes throws DbError or decodes, and a real block whose
// bytes after the header are overwritten is refused or decodes to exactly its original values.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "db/block_codec.hpp"
#include "db/db_error.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using kalah::fuzz::check;

// Most entries a fuzzed block holds (a database block holds up to 65536).
constexpr std::uint32_t kMaxEntries = 65536;
constexpr std::uint32_t kMaxFramedEntries = 4096;
constexpr std::size_t kFramingControlBytes = 8;

// Decodes stored (bound to place, or unbound when null) into a buffer of `entries` values: true
// with the values, false on DbError; aborts on any other exception.
bool decodes(std::string_view stored, std::uint32_t entries, std::vector<std::int8_t>& out,
             const kalah::BlockPlace* place = nullptr) {
  out.assign(entries, 0);
  try {
    kalah::decode_block(stored, out, place, "fuzz");
    return true;
  } catch (const kalah::DbError&) {
    return false;
  } catch (...) {
    kalah::fuzz::unexpected_exception("decode_block");
  }
}

// Mode (a): the input is the stored block. A block that decodes re-encodes to one that decodes
// to the same values.
void arbitrary_block(std::string_view stored) {
  const std::uint32_t declared = kalah::block_entries_of(stored);
  std::vector<std::int8_t> out;
  if (!decodes(stored, std::min(declared, kMaxEntries), out)) return;
  check(out.size() == declared, "a decoded block fills the count its header declares");
  std::vector<std::int8_t> again;
  check(decodes(kalah::encode_block(out, 1), declared, again) && again == out,
        "the values of a decoded block survive encode_block + decode_block");
}

std::uint32_t le16(const std::uint8_t* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8;
}

// `place` with one field changed: 0 the rule set, 1 the level, 2 the index, 3 the build.
kalah::BlockPlace moved(kalah::BlockPlace place, int field) {
  switch (field) {
    case 0:
      place.table.rules = kalah::Rules((int(place.table.rules) + 1) % 3);
      break;
    case 1:
      place.n = (place.n + 1) % 128;
      break;
    case 2:
      ++place.block;
      break;
    default:
      place.build ^= 1;
  }
  return place;
}

// Mode (b), input: level n, count (2 bytes), zstd level, patch offset (2 bytes), patch length,
// flags, then the patch, then the bytes the values are drawn from (cycled). The block encodes
// count values of level n ([-n, n], n's parity); the patch overwrites its bytes from the offset
// on (the 24-byte header is kept), extending it if it runs past the end. Flags: bit 0 cuts the
// block after the patch, bit 1 decodes into count + 1 entries, bit 2 binds the block to a place
// (rule set from bits 6-7, level n, index = the patch offset, build = count + 1) before the
// patch and decodes it at that place, or with bit 3 at a place that differs in the field bits 4-5
// pick (rule set, level, index, build), which must be refused.
void framed_block(const std::uint8_t* data, std::size_t size) {
  if (size < kFramingControlBytes) return;
  const int n = data[0] % 128;
  const std::uint32_t count = le16(data + 1) % (kMaxFramedEntries + 1);
  const int zstd_level = data[3] % 13 - 3;
  const std::size_t offset = le16(data + 4);
  const std::size_t patch_bytes = std::min<std::size_t>(data[6], size - kFramingControlBytes);
  const bool cut = data[7] & 1, wrong_count = data[7] & 2;
  const std::string_view patch(reinterpret_cast<const char*>(data) + kFramingControlBytes,
                               patch_bytes);
  const std::span<const std::uint8_t> source(data + kFramingControlBytes + patch_bytes,
                                             size - kFramingControlBytes - patch_bytes);

  std::vector<std::int8_t> values(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const int drawn = source.empty() ? 0 : source[i % source.size()] % (n + 1);
    values[i] = std::int8_t(2 * drawn - n);
  }
  std::string block = kalah::encode_block(values, zstd_level);
  check(block.size() >= kalah::kBlockHeaderBytes, "a block holds its header");
  check(kalah::block_entries_of(block) == count, "a block declares the count it was given");
  const bool bound = data[7] & 4, elsewhere = bound && (data[7] & 8);
  const kalah::BlockPlace place{
      {kalah::Rules((data[7] >> 6) % 3), 6}, n, std::uint32_t(offset), count + 1};
  const kalah::BlockPlace read_at = elsewhere ? moved(place, data[7] >> 4 & 3) : place;
  if (bound) kalah::bind_block(block, place, "fuzz");

  std::string stored = block;
  const std::size_t at =
      kalah::kBlockHeaderBytes + offset % (block.size() - kalah::kBlockHeaderBytes + 1);
  if (stored.size() < at + patch.size()) stored.resize(at + patch.size());
  stored.replace(at, patch.size(), patch);
  if (cut) stored.resize(at + patch.size());

  std::vector<std::int8_t> out;
  const bool ok = decodes(stored, wrong_count ? count + 1 : count, out, bound ? &read_at : nullptr);
  if (elsewhere) {
    check(!ok, "a bound block is refused at any other place");
  } else if (wrong_count) {
    check(!ok, "a block is refused for a buffer of another size than its count");
  } else if (stored == block) {
    check(ok && out == values, "an intact block decodes to the values it was encoded from");
  } else {
    check(!ok || out == values, "a corrupted block is refused or decodes to its original values");
  }
}

}  // namespace

// First byte: even, mode (a) on the bytes after it; odd, mode (b).
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  if (data[0] % 2 == 0)
    arbitrary_block(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  else
    framed_block(data + 1, size - 1);
  return 0;
}
