// Runs the `kalah` binary from a test: a shell line with stdin, its exit code, stdout and stderr.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kalah::test {

struct CliResult {
  int status = -1;  // exit code, or -1 when the process did not exit normally
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A new empty file under the test's temporary directory.
inline std::string temp_path(const char* what) {
  std::string t = ::testing::TempDir() + "kalah_cli_" + what + "_XXXXXX";
  std::vector<char> buf(t.begin(), t.end());
  buf.push_back('\0');
  const int fd = mkstemp(buf.data());
  EXPECT_GE(fd, 0);
  close(fd);
  return buf.data();
}

// A path under the test's temporary directory where nothing exists yet.
inline std::string fresh_path(const char* what) {
  const std::string p = temp_path(what);
  std::remove(p.c_str());
  return p;
}

// Runs `shell_command` (a shell line; KALAH is replaced by the binary's path) with `input` on
// stdin.
inline CliResult run_cli(std::string shell_command, const std::string& input = "") {
  const std::string binary = "'" KALAH_BINARY "'";
  for (std::size_t at; (at = shell_command.find("KALAH")) != std::string::npos;)
    shell_command.replace(at, 5, binary);
  const std::string in = temp_path("in"), out = temp_path("out"), err = temp_path("err");
  std::ofstream(in) << input;
  const std::string line = "(" + shell_command + ") <" + in + " >" + out + " 2>" + err;
  const int rc = std::system(line.c_str());
  CliResult r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::remove(in.c_str());
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

inline int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// How many times `part` (not empty) occurs in text, not overlapping.
inline int count_occurrences(const std::string& text, const std::string& part) {
  int n = 0;
  for (std::size_t at = 0; (at = text.find(part, at)) != std::string::npos; at += part.size()) ++n;
  return n;
}

}  // namespace kalah::test
