// Files written whole or not at all: through a temporary file that is flushed to disk, then
// renamed over the file, so a run killed or failing while writing leaves the previous file.
#include "solver/session/whole_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace kalah {

bool write_all(int fd, const void* data, std::size_t len) {
  const char* p = static_cast<const char*>(data);
  while (len > 0) {
    const ssize_t w = ::write(fd, p, len);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    len -= std::size_t(w);
  }
  return true;
}

int write_through(const std::string& path, const std::string& tmp,
                  const std::function<bool(int fd)>& write) {
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  const bool written = write(fd) && ::fsync(fd) == 0;
  int why = written ? 0 : errno != 0 ? errno : EIO;
  if (::close(fd) != 0 && why == 0) why = errno;
  if (why == 0 && std::rename(tmp.c_str(), path.c_str()) == 0) return 0;
  if (why == 0) why = errno;
  ::unlink(tmp.c_str());
  return why;
}

void write_file_whole(const std::string& path, const std::string& text) {
  if (const int why = write_through(
          path, path + ".tmp", [&text](int fd) { return write_all(fd, text.data(), text.size()); }))
    throw std::runtime_error(path + ": " + std::strerror(why));
}

}  // namespace kalah
