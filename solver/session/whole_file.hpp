// Files written whole or not at all: through a temporary file that is flushed to disk, then
// renamed over the file, so a run killed or failing while writing leaves the previous file.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace kalah {

// Writes all of [data, data + len) to fd; false on failure (errno set).
bool write_all(int fd, const void* data, std::size_t len);

// Creates or truncates `tmp`, lets write(fd) fill it (false on failure, errno set), flushes it to
// disk and renames it over `path`. Returns 0, or the errno of the first failure, after removing
// `tmp`; `path` is then as it was.
int write_through(const std::string& path, const std::string& tmp,
                  const std::function<bool(int fd)>& write);

// `text` written to `path` through path + ".tmp" (write_through). Throws std::runtime_error naming
// the path and the failure.
void write_file_whole(const std::string& path, const std::string& text);

}  // namespace kalah
