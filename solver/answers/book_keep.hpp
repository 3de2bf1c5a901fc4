// The solved entries of a book run kept in a file until the book's transaction commits.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/position.hpp"
#include "engine/rules.hpp"

namespace kalah {

// Where build_book keeps the entries of the book of `root` within `plies` under `rules` for the
// database at `db`: a file in the database's directory named after those three,
// "DB/book-<16 hex digits>.kept".
std::string book_keep_path(const std::string& db, Rules rules, const Position& root, int plies);

// A file of solved book entries (2m pit counts and an exact future margin each), written as each
// position is solved, so that a book run whose commit failed (a full disk), or that was killed, is
// finished by running it again without solving those positions again. Made with room for all its
// entries at once: a disk that fills during the solves still takes every entry. Each entry carries
// a checksum of itself, its place and the run it belongs to: one torn or damaged is not read, nor
// any after it. Locked while open (flock): a second run of the same book is refused.
class BookKeep {
 public:
  // Opens the file at `path` of the book of `root` within `plies` under `rules`, with room for
  // `capacity` entries, creating it when absent, and reads the entries it holds. Throws DbError
  // (one line naming the file) when it cannot be made or locked, or belongs to another run.
  BookKeep(std::string path, Rules rules, const Position& root, int plies, int capacity);
  ~BookKeep();  // closes the file; deletes it when it holds no entry
  BookKeep(const BookKeep&) = delete;
  BookKeep& operator=(const BookKeep&) = delete;

  const std::string& path() const { return path_; }
  // Entries in the file: read at the open and kept since.
  int size() const { return written_; }
  // The kept margin of the position with these pit counts.
  std::optional<int> find(const std::vector<Stones>& pits) const;
  // Writes one entry (before returning: it outlives the process). False when it was not written
  // (the file is full or a write failed); then no later entry is written either.
  bool keep(const std::vector<Stones>& pits, int margin);
  // Flushes the file to disk (best effort: the entries written outlive the process anyway).
  void sync() const;
  // Deletes the file: its entries are in the database.
  void remove();

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t run_ = 0;  // the identity of the run (rules, root, plies), in every checksum
  int pits_ = 0;           // 2m pit counts an entry
  int capacity_ = 0;
  int written_ = 0;  // entries in the file, in places 0, 1, ...
  bool failed_ = false;
  std::map<std::vector<Stones>, int> entries_;
};

}  // namespace kalah
