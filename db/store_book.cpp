// Store's opening book: exact margins of single positions, each entry checksummed with its key.
#include <string>
#include <vector>

#include "db/format.hpp"
#include "db/lmdb_env.hpp"
#include "db/store.hpp"
#include "db/store_header.hpp"

namespace kalah {

std::string book_pits_text(std::span<const Stones> pits) {
  std::string out;
  for (const Stones s : pits) {
    if (!out.empty()) out += ',';
    out += std::to_string(s);
  }
  return out;
}

std::string Store::corrupt_book_entry(TableId t, std::span<const Stones> pits) const {
  return path_ + ": " + to_string(t) + " book entry of pits " + book_pits_text(pits) +
         " fails its checksum (a damaged database)";
}

void Store::put_book(TableId t, const std::vector<std::pair<std::vector<Stones>, int>>& entries) {
  if (!env_->writable()) throw DbError(path_ + ": database opened read-only");
  LmdbTxn txn(*env_, true);
  raise_header(txn);  // checksummed entries need a reader of the version that checks them
  if (!txn.get(format::table_key(t).view()))
    txn.put(format::table_key(t).view(), format::encode_table({t, -1}));
  for (const auto& [pits, margin] : entries) {
    if (pits.size() != std::size_t(2 * t.m))
      throw DbError(path_ + ": book entry for " + to_string(t) + " needs " +
                    std::to_string(2 * t.m) + " pit counts, got " + std::to_string(pits.size()));
    if (margin < -32768 || margin > 32767)
      throw DbError(path_ + ": book margin " + std::to_string(margin) + " out of range");
    const format::Key key = format::book_key(t, pits);
    txn.put(key.view(), format::encode_book_value(key.view(), margin));
  }
  txn.commit();
}

std::optional<int> Store::get_book(TableId t, std::span<const Stones> pits) const {
  if (pits.size() != std::size_t(2 * t.m)) return std::nullopt;
  LmdbTxn txn(*env_, false);
  const format::Key key = format::book_key(t, pits);
  const auto v = txn.get(key.view());
  if (!v) return std::nullopt;
  const format::BookValue value = format::decode_book_value(key.view(), *v);
  if (value.status == format::BookValue::kCorrupt) throw DbError(corrupt_book_entry(t, pits));
  if (value.status == format::BookValue::kUnchecked) return std::nullopt;
  return value.margin;
}

BookSize Store::book_size(TableId t) const {
  LmdbTxn txn(*env_, false);
  BookSize size;
  txn.scan(format::book_prefix(t).view(), [&](std::string_view, std::string_view value) {
    ++(value.size() == 2 ? size.unchecked : size.entries);
    return true;
  });
  return size;
}

std::vector<std::pair<std::vector<Stones>, int>> Store::book_entries(TableId t) const {
  LmdbTxn txn(*env_, false);
  std::vector<std::pair<std::vector<Stones>, int>> out;
  txn.scan(format::book_prefix(t).view(), [&](std::string_view key, std::string_view value) {
    auto fields = format::decode_key(key);
    if (!fields)
      throw DbError(path_ + ": " + to_string(t) + " book key of " + std::to_string(key.size()) +
                    " bytes (a damaged database)");
    std::vector<Stones> pits = std::move(fields->pits);
    const format::BookValue v = format::decode_book_value(key, value);
    if (v.status == format::BookValue::kCorrupt) throw DbError(corrupt_book_entry(t, pits));
    if (v.status == format::BookValue::kChecked) out.emplace_back(std::move(pits), v.margin);
    return true;
  });
  return out;
}

}  // namespace kalah
