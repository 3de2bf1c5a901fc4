// Checks an LMDB data file with plain reads before LMDB trusts it: its size against its meta page
// and the structure of its B-trees, so damage LMDB would crash on is a DbError instead.
#pragma once

#include <cstdint>
#include <string>

namespace kalah {

// What check_lmdb_meta found in DIR/data.mdb.
struct LmdbFileState {
  bool empty = false;       // the file has 0 bytes (a new environment)
  std::uint64_t txnid = 0;  // the newest meta page's transaction id
  std::uint64_t pages = 0;  // pages the newest meta page says are in use (last page + 1)
  std::uint32_t page_size = 0;
};

// Reads the two meta pages of DIR/data.mdb. Throws DbError "DIR: ..." when the file cannot be
// read, is shorter than the pages its newest meta page says are in use, holds its newest
// transaction on the other meta page than the one LMDB reads it from (id & 1), or names a page
// size or root page that cannot be. Meta pages LMDB itself refuses (bad magic, version) pass
// unchanged: mdb_env_open reports them.
LmdbFileState check_lmdb_meta(const std::string& dir);

// Walks the main and free-list B-trees of the snapshot with transaction id `txnid`, as recorded
// on the meta page LMDB reads it from (id & 1; the caller holds a read transaction on it, so no
// writer reuses its pages) with plain reads: every page a key lookup or cursor walk reaches is in
// the file, of the kind its depth requires, names itself, has its nodes inside it and its keys in
// order within its parent's range; every value stored on overflow pages lies inside the file; no
// page is reached twice; the counts match the meta page's. With `overflow_headers` the first page
// of every overflow value is read and checked too (what a write transaction's delete trusts), and
// so is every list of free pages in the free-list database (what a write transaction merges and
// allocates from): no page listed there is in use or listed twice. Returns false when the meta
// page of `txnid` was overwritten meanwhile (the caller retries with a newer transaction); throws
// DbError "DIR: damaged LMDB file: ..." on damage.
bool check_lmdb_tree(const std::string& dir, std::uint64_t txnid, bool overflow_headers);

}  // namespace kalah
