// LMDB file checks by plain reads: the page layout of LMDB 0.9 (data version 1), as mdb.c writes
// it.
#include "db/lmdb_check.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "db/db_error.hpp"

namespace kalah {
namespace {

// mdb.c's on-disk constants (LMDB 0.9, MDB_DATA_VERSION 1, 64-bit page numbers).
constexpr std::uint32_t kMagic = 0xBEEFC0DE;
constexpr std::uint32_t kDataVersion = 1;
constexpr std::size_t kPageHeader = 16;  // pgno (8), pad (2), flags (2), lower (2), upper (2)
constexpr std::size_t kNodeHeader = 8;   // lo (2), hi (2), flags (2), key size (2)
constexpr std::uint16_t kBranch = 0x01, kLeaf = 0x02, kOverflow = 0x04, kMeta = 0x08;
constexpr std::uint16_t kPageKinds = 0x7f;   // branch, leaf, overflow, meta, dirty, leaf2, subpage
constexpr std::uint16_t kBigData = 0x01;     // leaf node: the value is on overflow pages
constexpr std::uint16_t kIntegerKey = 0x08;  // database flag: keys are native unsigned integers
constexpr std::uint64_t kNoRoot = ~std::uint64_t(0);
constexpr int kMaxDepth = 32;  // LMDB's cursor stack
// The meta record, after the page header: magic, version, address, map size, then the free-list
// and main databases' records (48 bytes each), the last page, the transaction id.
constexpr std::size_t kMetaDbs = 24, kDbRecord = 48, kMetaLastPage = 120, kMetaTxnid = 128;
constexpr std::size_t kMetaBytes = kPageHeader + 136;

template <class T>
T load(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// One database's record in a meta page (MDB_db).
struct DbRecord {
  std::uint32_t pad;  // the page size, in the free-list database's record
  std::uint16_t flags, depth;
  std::uint64_t branch_pages, leaf_pages, overflow_pages, entries, root;
};

DbRecord db_record(const std::uint8_t* meta, int which) {
  const std::uint8_t* p = meta + kMetaDbs + kDbRecord * which;
  return {load<std::uint32_t>(p),      load<std::uint16_t>(p + 4),  load<std::uint16_t>(p + 6),
          load<std::uint64_t>(p + 8),  load<std::uint64_t>(p + 16), load<std::uint64_t>(p + 24),
          load<std::uint64_t>(p + 32), load<std::uint64_t>(p + 40)};
}

// The data file, read with pread: a read past its end is an error, never a signal.
class DataFile {
 public:
  explicit DataFile(const std::string& dir) : dir_(dir), path_(dir + "/data.mdb") {
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw DbError(dir + ": cannot read data.mdb: " + std::strerror(errno));
    struct stat st;
    if (::fstat(fd_, &st) != 0)
      throw DbError(dir + ": cannot read data.mdb: " + std::strerror(errno));
    size_ = std::uint64_t(st.st_size);
  }
  ~DataFile() { ::close(fd_); }
  DataFile(const DataFile&) = delete;
  DataFile& operator=(const DataFile&) = delete;

  std::uint64_t size() const { return size_; }
  // Reads out.size() bytes at offset; false when the file ends before.
  bool read(std::uint64_t offset, std::vector<std::uint8_t>& out) const {
    std::size_t done = 0;
    while (done < out.size()) {
      const ssize_t got = ::pread(fd_, out.data() + done, out.size() - done, off_t(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw DbError(dir_ + ": cannot read data.mdb: " + std::strerror(errno));
      if (got == 0) return false;
      done += std::size_t(got);
    }
    return true;
  }
  [[noreturn]] void damaged(const std::string& what) const {
    throw DbError(dir_ + ": damaged LMDB file (data.mdb): " + what);
  }

 private:
  std::string dir_, path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

struct Meta {
  bool valid = false;  // a meta page LMDB accepts
  std::uint64_t txnid = 0, last_page = 0;
  DbRecord free_db{}, main_db{};
};

Meta read_meta(const DataFile& file, std::uint64_t offset) {
  std::vector<std::uint8_t> page(kMetaBytes);
  Meta m;
  if (!file.read(offset, page)) return m;
  const std::uint8_t* meta = page.data() + kPageHeader;
  if (!(load<std::uint16_t>(page.data() + 10) & kMeta) || load<std::uint32_t>(meta) != kMagic ||
      load<std::uint32_t>(meta + 4) != kDataVersion)
    return m;
  m.valid = true;
  m.free_db = db_record(meta, 0);
  m.main_db = db_record(meta, 1);
  m.last_page = load<std::uint64_t>(meta + kMetaLastPage);
  m.txnid = load<std::uint64_t>(meta + kMetaTxnid);
  return m;
}

bool valid_page_size(std::uint32_t psize) {
  return psize >= 512 && psize <= 65536 && (psize & (psize - 1)) == 0;
}

// Both meta pages (the second only when the first names a page size); `psize` gets that size.
std::pair<Meta, Meta> read_metas(const DataFile& file, std::uint32_t& psize) {
  const Meta first = read_meta(file, 0);
  psize = first.valid ? first.free_db.pad : 0;
  if (!first.valid || !valid_page_size(psize)) return {first, {}};
  return {first, read_meta(file, psize)};
}

// The meta page whose databases LMDB reads for snapshot `txnid`.
const Meta& read_by_lmdb(const Meta& first, const Meta& second, std::uint64_t txnid) {
  return txnid & 1 ? second : first;
}

std::string hex(unsigned v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

std::string page_name(std::uint64_t pgno) {
  return "page " + std::to_string(pgno);
}

// LMDB's key order for the database: native unsigned integers, or bytes then length.
int compare_keys(std::string_view a, std::string_view b, bool integer) {
  if (integer && a.size() == 8 && b.size() == 8) {
    const auto x = load<std::uint64_t>(reinterpret_cast<const std::uint8_t*>(a.data()));
    const auto y = load<std::uint64_t>(reinterpret_cast<const std::uint8_t*>(b.data()));
    return x < y ? -1 : x > y;
  }
  const int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  return c != 0 ? c : a.size() < b.size() ? -1 : a.size() > b.size();
}

// What each page of a snapshot holds, as the walks of its two trees find it: a page is used by
// at most one node of one tree, and a page listed free is neither used nor listed twice (a write
// transaction that allocates such a page overwrites live data; LMDB asserts and aborts on it).
class PageMap {
 public:
  explicit PageMap(std::uint64_t last_page) : kind_(last_page + 1, kUnseen) {}

  // Marks page pgno (at most the last page) used; false when it was already used.
  bool use(std::uint64_t pgno) { return take(pgno, kUsed) == kUnseen; }
  // Marks page pgno listed free; "" when it was unseen, else what is wrong with listing it.
  std::string list_free(std::uint64_t pgno) {
    const std::uint8_t was = take(pgno, kFree);
    return was == kUnseen ? ""
           : was == kUsed ? " is listed free but in use"
                          : " is listed free twice";
  }

 private:
  static constexpr std::uint8_t kUnseen = 0, kUsed = 1, kFree = 2;
  std::uint8_t take(std::uint64_t pgno, std::uint8_t kind) {
    const std::uint8_t was = kind_[pgno];
    kind_[pgno] = kind;
    return was;
  }
  std::vector<std::uint8_t> kind_;
};

// Walks one database's tree, checking every page it reaches and tallying what the meta page
// records. Pages it reaches are marked used in `pages`; with page lists, the pages they list are
// kept in `listed_free`.
class TreeWalk {
 public:
  TreeWalk(const DataFile& file, std::uint32_t psize, std::uint64_t last_page, const DbRecord& db,
           const char* name, bool overflow_headers, bool page_lists, PageMap& pages,
           std::vector<std::uint64_t>& listed_free)
      : file_(file),
        psize_(psize),
        last_page_(last_page),
        db_(db),
        name_(name),
        overflow_headers_(overflow_headers),
        page_lists_(page_lists),
        integer_(db.flags & kIntegerKey),
        pages_(pages),
        listed_free_(listed_free) {}

  void run() {
    if (db_.root == kNoRoot) {
      if (db_.depth != 0 || db_.entries != 0 || db_.branch_pages + db_.leaf_pages != 0)
        fail("empty tree with pages or entries recorded");
      return;
    }
    if (db_.depth < 1 || db_.depth > kMaxDepth) fail("tree depth " + std::to_string(db_.depth));
    walk(page_of(db_.root, "the meta page's root"), 1, std::nullopt, std::nullopt);
    if (branch_ != db_.branch_pages || leaf_ != db_.leaf_pages || entries_ != db_.entries)
      fail("the tree has " + std::to_string(branch_) + " branch pages, " + std::to_string(leaf_) +
           " leaf pages and " + std::to_string(entries_) + " entries; its meta page records " +
           std::to_string(db_.branch_pages) + ", " + std::to_string(db_.leaf_pages) + " and " +
           std::to_string(db_.entries));
    if (overflow_headers_ ? overflow_ != db_.overflow_pages : overflow_ > db_.overflow_pages)
      fail("values on " + std::to_string(overflow_) + " overflow pages; the meta page records " +
           std::to_string(db_.overflow_pages));
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    file_.damaged(std::string(name_) + " database: " + what);
  }

  std::uint64_t page_of(std::uint64_t pgno, const std::string& from) const {
    if (pgno < 2 || pgno > last_page_)
      fail(from + " points to page " + std::to_string(pgno) + ", outside pages 2.." +
           std::to_string(last_page_));
    return pgno;
  }

  // Page pgno of the tree at `depth`, read into `page` with its header checked: the offset where
  // its nodes begin (upper) and their number.
  std::pair<std::uint16_t, std::size_t> read_page(std::uint64_t pgno, int depth,
                                                  std::vector<std::uint8_t>& page) const {
    if (!file_.read(pgno * psize_, page)) fail(page_name(pgno) + " is past the end of the file");
    const bool leaf = depth == db_.depth;
    const std::uint16_t kind = load<std::uint16_t>(page.data() + 10) & kPageKinds;
    const std::string where = page_name(pgno);
    if (load<std::uint64_t>(page.data()) != pgno)
      fail(where + " names itself page " + std::to_string(load<std::uint64_t>(page.data())));
    if (kind != (leaf ? kLeaf : kBranch))
      fail(where + " at depth " + std::to_string(depth) + " of " + std::to_string(db_.depth) +
           " has page flags " + hex(kind) + ", not a " + (leaf ? "leaf" : "branch") + " page");
    const std::uint16_t lower = load<std::uint16_t>(page.data() + 12);
    const std::uint16_t upper = load<std::uint16_t>(page.data() + 14);
    if (lower < kPageHeader || lower > upper || upper > psize_ || (lower - kPageHeader) % 2 != 0)
      fail(where + " has free space bounds " + std::to_string(lower) + ".." +
           std::to_string(upper));
    const std::size_t keys = (lower - kPageHeader) / 2;
    if (keys < (leaf ? 1u : 2u)) fail(where + " has " + std::to_string(keys) + " nodes");
    return {upper, keys};
  }

  void walk(std::uint64_t pgno, int depth, std::optional<std::string> low,
            std::optional<std::string> high) {
    if (!pages_.use(pgno)) fail(page_name(pgno) + " is reached twice");
    std::vector<std::uint8_t> page(psize_);
    const auto [upper, keys] = read_page(pgno, depth, page);
    const bool leaf = depth == db_.depth;
    const std::string where = page_name(pgno);
    (leaf ? leaf_ : branch_) += 1;
    std::vector<std::pair<std::string, std::uint64_t>> children;
    std::vector<Extent> extents;  // of the nodes, in the order of their pointers
    std::optional<std::string> previous;
    for (std::size_t i = 0; i < keys; ++i) {
      const std::string node_where = where + " node " + std::to_string(i);
      const std::uint16_t at = load<std::uint16_t>(page.data() + kPageHeader + 2 * i);
      if (at < upper || std::size_t(at) + kNodeHeader > psize_)
        fail(node_where + " at offset " + std::to_string(at) + " is outside the page's nodes");
      const std::uint8_t* node = page.data() + at;
      const std::uint16_t lo = load<std::uint16_t>(node), hi = load<std::uint16_t>(node + 2);
      const std::uint16_t flags = load<std::uint16_t>(node + 4);
      const std::uint16_t ksize = load<std::uint16_t>(node + 6);
      const std::size_t key_end = std::size_t(at) + kNodeHeader + ksize;
      if (key_end > psize_) fail(node_where + "'s key runs past the page");
      const std::string key(reinterpret_cast<const char*>(node + kNodeHeader), ksize);
      // A node's bytes: header, key, then in a leaf its value or overflow page number, padded to
      // an even size (as LMDB places and deletes it).
      const std::size_t node_end = key_end + (!leaf                ? 0
                                              : (flags & kBigData) ? 8
                                                                   : (lo | std::size_t(hi) << 16));
      extents.push_back({at, node_end + (node_end & 1), i});
      if (leaf || i > 0) {
        if (previous && compare_keys(*previous, key, integer_) >= 0)
          fail(node_where + "'s key is not above the previous key");
        if ((low && compare_keys(key, *low, integer_) < 0) ||
            (high && compare_keys(key, *high, integer_) >= 0))
          fail(node_where + "'s key is outside the range its parent gives the page");
        previous = key;
      }
      if (!leaf) {
        const std::uint64_t child = lo | std::uint64_t(hi) << 16 | std::uint64_t(flags) << 32;
        children.emplace_back(i == 0 ? std::string() : key, page_of(child, node_where));
        continue;
      }
      ++entries_;
      check_value(page, key_end, flags, lo | std::uint64_t(hi) << 16, node_where);
    }
    check_disjoint(extents, where);
    for (std::size_t i = 0; i < children.size(); ++i) {
      std::optional<std::string> child_low = i == 0 ? low : std::optional(children[i].first);
      std::optional<std::string> child_high =
          i + 1 < children.size() ? std::optional(children[i + 1].first) : high;
      walk(children[i].second, depth + 1, std::move(child_low), std::move(child_high));
    }
  }

  // The value of a leaf node (`flags`, `size` bytes) after its key, which ends at key_end of
  // `page`: on the page, or on overflow pages inside the file and reached once; a list of free
  // pages checked with page lists.
  void check_value(const std::vector<std::uint8_t>& page, std::size_t key_end, std::uint16_t flags,
                   std::uint64_t size, const std::string& node_where) {
    if (flags & ~kBigData) fail(node_where + " has node flags " + hex(flags));
    if (!(flags & kBigData)) {
      if (key_end + size > psize_) fail(node_where + "'s value runs past the page");
      if (page_lists_) check_page_list(page.data() + key_end, size, node_where);
      return;
    }
    if (key_end + 8 > psize_) fail(node_where + "'s overflow page number runs past the page");
    const std::uint64_t first = page_of(load<std::uint64_t>(page.data() + key_end), node_where);
    const std::uint64_t pages = (kPageHeader - 1 + size) / psize_ + 1;
    if (first + pages - 1 > last_page_)
      fail(node_where + "'s value of " + std::to_string(size) + " bytes on pages from " +
           std::to_string(first) + " runs past the last page " + std::to_string(last_page_));
    const std::uint64_t run = overflow_headers_ ? overflow_pages(first, pages, node_where) : pages;
    for (std::uint64_t p = first; p < first + run; ++p)
      if (!pages_.use(p)) fail(node_where + "'s overflow " + page_name(p) + " is reached twice");
    overflow_ += run;
    if (page_lists_) {
      std::vector<std::uint8_t> value(size);
      if (!file_.read(first * psize_ + kPageHeader, value))
        fail(node_where + "'s value is past the end of the file");
      check_page_list(value.data(), size, node_where);
    }
  }

  // A node's place in its page: bytes [begin, end).
  struct Extent {
    std::size_t begin, end, node;
  };

  // No two nodes of a page share a byte: a write that deletes or moves one moves the bytes below
  // it by its size, which would corrupt an overlapping neighbour (and then LMDB's own pointers).
  void check_disjoint(std::vector<Extent>& extents, const std::string& where) const {
    std::sort(extents.begin(), extents.end(),
              [](const Extent& a, const Extent& b) { return a.begin < b.begin; });
    for (std::size_t k = 1; k < extents.size(); ++k)
      if (extents[k - 1].end > extents[k].begin)
        fail(where + " node " + std::to_string(extents[k - 1].node) + " overlaps node " +
             std::to_string(extents[k].node));
  }

  // A free-list value: a count n, then n page numbers inside the file in descending order, 8 bytes
  // each (LMDB's IDL, which a write transaction merges without checks).
  void check_page_list(const std::uint8_t* value, std::uint64_t size, const std::string& from) {
    const std::uint64_t count = size >= 8 ? load<std::uint64_t>(value) : 0;
    if (size < 8 || size % 8 != 0 || count != size / 8 - 1)
      fail(from + "'s list of free pages is damaged (" + std::to_string(size) + " bytes)");
    for (std::uint64_t i = 1; i <= count; ++i) {
      const std::uint64_t pgno = load<std::uint64_t>(value + 8 * i);
      if (pgno < 2 || pgno > last_page_ ||
          (i > 1 && pgno >= load<std::uint64_t>(value + 8 * i - 8)))
        fail(from + "'s list of free pages is damaged (page " + std::to_string(pgno) + ")");
      listed_free_.push_back(pgno);
    }
  }

  // The page count in the header of the overflow value at `first`, which must hold `pages`.
  std::uint64_t overflow_pages(std::uint64_t first, std::uint64_t pages, const std::string& from) {
    std::vector<std::uint8_t> header(kPageHeader);
    if (!file_.read(first * psize_, header)) fail(from + "'s overflow page is past the end");
    const std::uint32_t count = load<std::uint32_t>(header.data() + 12);
    if (load<std::uint64_t>(header.data()) != first ||
        (load<std::uint16_t>(header.data() + 10) & kPageKinds) != kOverflow || count < pages ||
        first + count - 1 > last_page_)
      fail(from + "'s overflow " + page_name(first) + " has a damaged header");
    return count;
  }

  const DataFile& file_;
  std::uint32_t psize_;
  std::uint64_t last_page_;
  DbRecord db_;
  const char* name_;
  // Whether each value is a list of free pages to check (the free-list database of a writable
  // open, whose write transactions read them).
  bool overflow_headers_, page_lists_, integer_;
  PageMap& pages_;
  std::vector<std::uint64_t>& listed_free_;
  std::uint64_t branch_ = 0, leaf_ = 0, overflow_ = 0, entries_ = 0;
};

}  // namespace

LmdbFileState check_lmdb_meta(const std::string& dir) {
  const DataFile file(dir);
  LmdbFileState state;
  if (file.size() == 0) {
    state.empty = true;
    return state;
  }
  std::uint32_t psize = 0;
  const auto [first, second] = read_metas(file, psize);
  if (first.valid && !valid_page_size(psize))
    file.damaged("its meta page names a page size of " + std::to_string(psize) + " bytes");
  if (!first.valid || !second.valid) return state;  // mdb_env_open refuses it with its own error
  const Meta& newest = second.txnid > first.txnid ? second : first;
  // LMDB reads a snapshot's databases from meta page (transaction id & 1), whatever that page's
  // own id: the newest id must be held there, or a reader walks a tree this check never saw.
  if (read_by_lmdb(first, second, newest.txnid).txnid != newest.txnid)
    file.damaged("the newest transaction " + std::to_string(newest.txnid) +
                 " is not on meta page " + std::to_string(newest.txnid & 1) +
                 ", where LMDB reads it");
  if (newest.last_page < 1 || newest.last_page > file.size() / psize)
    file.damaged("its header names " + std::to_string(newest.last_page + 1) + " pages of " +
                 std::to_string(psize) + " bytes; the file has " + std::to_string(file.size()) +
                 " bytes (truncated?)");
  if (newest.free_db.pad != psize) file.damaged("the meta pages disagree on the page size");
  if (newest.main_db.flags & ~kIntegerKey)
    file.damaged("main database flags " + hex(newest.main_db.flags) +
                 " (a kalah database uses none)");
  // LMDB takes the free-list database's flags from the meta page too, and a write's page
  // allocation asserts (aborts) on one of sorted duplicates.
  if (newest.free_db.flags & ~kIntegerKey)
    file.damaged("free-list database flags " + hex(newest.free_db.flags) +
                 " (LMDB's are integer keys)");
  state.txnid = newest.txnid;
  state.pages = newest.last_page + 1;
  state.page_size = psize;
  return state;
}

bool check_lmdb_tree(const std::string& dir, std::uint64_t txnid, bool overflow_headers) {
  const DataFile file(dir);
  std::uint32_t psize = 0;
  const auto [first, second] = read_metas(file, psize);
  const Meta* meta = &read_by_lmdb(first, second, txnid);
  if (!meta->valid || meta->txnid != txnid) return false;
  if (meta->last_page < 1 || meta->last_page > file.size() / psize)
    file.damaged("its header names " + std::to_string(meta->last_page + 1) +
                 " pages; the file has " + std::to_string(file.size()) + " bytes (truncated?)");
  // A write transaction merges the free-list database's values, lists of free pages, and
  // allocates from them.
  PageMap pages(meta->last_page);
  std::vector<std::uint64_t> listed_free;
  TreeWalk(file, psize, meta->last_page, meta->free_db, "free-list", overflow_headers,
           overflow_headers, pages, listed_free)
      .run();
  TreeWalk(file, psize, meta->last_page, meta->main_db, "main", overflow_headers, false, pages,
           listed_free)
      .run();
  for (const std::uint64_t pgno : listed_free)
    if (const std::string was = pages.list_free(pgno); !was.empty())
      file.damaged("free-list database: " + page_name(pgno) + was);
  return true;
}

}  // namespace kalah
