// BookKeep: a book run's solved entries in a file made whole at the start, each entry checksummed.
#include "solver/answers/book_keep.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "db/db_error.hpp"
#include "db/xxhash64.hpp"

namespace kalah {
namespace {

// File layout, little-endian: the header (magic, version, pits an entry, capacity, the run's
// identity), then `capacity` entries of kEntryHead + 2 * pits bytes: the checksum (XXH64 of the
// rest of the entry, seeded with the run's identity plus the entry's place), the margin (int32),
// the pit counts (uint16 each). An entry never written is zeros, which fail the checksum.
constexpr std::array<char, 8> kMagic{'K', 'A', 'L', 'A', 'H', 'B', 'K', 'P'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeader = 32;
constexpr std::size_t kEntryHead = 12;

void put_le(unsigned char* at, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) at[i] = static_cast<unsigned char>(v >> (8 * i));
}
std::uint64_t get_le(const unsigned char* at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= std::uint64_t(at[i]) << (8 * i);
  return v;
}

std::string run_text(Rules rules, const Position& root, int plies) {
  return std::string(rules_name(rules)) + " " + to_string(root) + " plies " + std::to_string(plies);
}

std::uint64_t run_identity(Rules rules, const Position& root, int plies) {
  const std::string text = run_text(rules, root, plies);
  return xxh64(text.data(), text.size());
}

// Calls io (pread or pwrite) until all len bytes at offset `at` are read or written; false on an
// error or at the end of the file (errno set when there was an error).
template <class Io, class Byte>
bool all_at(Io io, int fd, Byte* data, std::size_t len, off_t at) {
  while (len > 0) {
    const ssize_t n = io(fd, data, len, at);
    if (n <= 0) return false;
    data += n;
    len -= std::size_t(n);
    at += n;
  }
  return true;
}

bool read_all(int fd, unsigned char* data, std::size_t len, off_t at) {
  return all_at(::pread, fd, data, len, at);
}
bool write_all_at(int fd, const unsigned char* data, std::size_t len, off_t at) {
  return all_at(::pwrite, fd, data, len, at);
}

}  // namespace

std::string book_keep_path(const std::string& db, Rules rules, const Position& root, int plies) {
  char name[40];
  std::snprintf(name, sizeof name, "book-%016llx.kept",
                static_cast<unsigned long long>(run_identity(rules, root, plies)));
  return (std::filesystem::path(db) / name).string();
}

BookKeep::BookKeep(std::string path, Rules rules, const Position& root, int plies, int capacity)
    : path_(std::move(path)),
      run_(run_identity(rules, root, plies)),
      pits_(2 * root.m),
      capacity_(capacity) {
  bool made = false;  // this open creates the file: a failure removes it
  const auto fail = [&](const std::string& what, int err) {
    if (made) ::unlink(path_.c_str());
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    throw DbError(path_ + ": " + what + (err ? std::string(": ") + std::strerror(err) : ""));
  };
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("cannot keep the book's solved positions", errno);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EWOULDBLOCK)
      fail("in use by another run of the same book (" + run_text(rules, root, plies) + ")", 0);
    fail("cannot lock the file of the book's solved positions", err);
  }
  const std::size_t entry = kEntryHead + 2 * std::size_t(pits_);
  const std::size_t bytes = kHeader + std::size_t(capacity_) * entry;
  struct stat st;
  if (::fstat(fd_, &st) != 0) fail("cannot read the book's solved positions", errno);
  std::array<unsigned char, kHeader> head{};
  if (std::size_t(st.st_size) >= kHeader && !read_all(fd_, head.data(), head.size(), 0))
    fail("cannot read the book's solved positions", errno);
  const bool no_head = head == std::array<unsigned char, kHeader>{};
  if (!no_head &&
      (std::memcmp(head.data(), kMagic.data(), kMagic.size()) != 0 ||
       get_le(&head[8], 4) != kVersion || get_le(&head[12], 4) != std::uint64_t(pits_) ||
       get_le(&head[16], 4) != std::uint64_t(capacity_) || get_le(&head[24], 8) != run_))
    fail("not the solved positions of this book (" + run_text(rules, root, plies) + "): remove it",
         0);
  if (no_head || std::size_t(st.st_size) < bytes) {  // new, or its making was cut short
    made = true;
    std::memcpy(head.data(), kMagic.data(), kMagic.size());
    put_le(&head[8], kVersion, 4);
    put_le(&head[12], std::uint64_t(pits_), 4);
    put_le(&head[16], std::uint64_t(capacity_), 4);
    put_le(&head[24], run_, 8);
    if (::ftruncate(fd_, 0) != 0) fail("cannot keep the book's solved positions", errno);
    if (const int err = ::posix_fallocate(fd_, 0, off_t(bytes)); err != 0)
      fail("cannot make room for the book's solved positions", err);
    if (!write_all_at(fd_, head.data(), head.size(), 0) || ::fdatasync(fd_) != 0)
      fail("cannot keep the book's solved positions", errno);
    return;
  }
  std::vector<unsigned char> body(bytes - kHeader);
  if (!read_all(fd_, body.data(), body.size(), kHeader))
    fail("cannot read the book's solved positions", errno);
  for (int i = 0; i < capacity_; ++i) {
    const unsigned char* e = &body[std::size_t(i) * entry];
    if (get_le(e, 8) != xxh64(e + 8, entry - 8, run_ + std::uint64_t(i))) break;
    std::vector<Stones> pits(static_cast<std::size_t>(pits_));
    for (std::size_t p = 0; p < pits.size(); ++p)
      pits[p] = Stones(get_le(e + kEntryHead + 2 * p, 2));
    entries_.emplace(std::move(pits), int(std::int32_t(std::uint32_t(get_le(e + 8, 4)))));
    written_ = i + 1;
  }
}

BookKeep::~BookKeep() {
  if (fd_ < 0) return;
  if (written_ == 0) ::unlink(path_.c_str());
  ::close(fd_);
}

std::optional<int> BookKeep::find(const std::vector<Stones>& pits) const {
  const auto it = entries_.find(pits);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

bool BookKeep::keep(const std::vector<Stones>& pits, int margin) {
  if (failed_ || fd_ < 0 || written_ >= capacity_ || pits.size() != std::size_t(pits_)) {
    failed_ = true;
    return false;
  }
  const std::size_t entry = kEntryHead + 2 * std::size_t(pits_);
  std::vector<unsigned char> e(entry);
  put_le(&e[8], std::uint32_t(std::int32_t(margin)), 4);
  for (std::size_t p = 0; p < pits.size(); ++p) put_le(&e[kEntryHead + 2 * p], pits[p], 2);
  const int place = written_;
  put_le(e.data(), xxh64(&e[8], entry - 8, run_ + std::uint64_t(place)), 8);
  if (!write_all_at(fd_, e.data(), e.size(), off_t(kHeader + std::size_t(place) * entry))) {
    failed_ = true;
    return false;
  }
  ++written_;
  entries_.emplace(pits, margin);
  return true;
}

void BookKeep::sync() const {
  if (fd_ >= 0) ::fdatasync(fd_);
}

void BookKeep::remove() {
  ::unlink(path_.c_str());
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace kalah
