// `kalah referee`: the server side of the Kalah Game Protocol, grading each bot that connects.
#pragma once

#include <cstddef>
#include <string>

#include "tools/referee/grading.hpp"
#include "tools/referee/position_source.hpp"

namespace kalah::referee {

struct RefereeOptions {
  std::string host = "127.0.0.1";  // the address to listen on
  std::string port = "2671";       // "0": a free port, printed
  SourceOptions source;
  double move_time = 1;       // seconds a state or a problem waits for the bot's answer
  double search_seconds = 1;  // the grader's search a position beyond the table, and the games'
  std::size_t tt_bytes = std::size_t(64) << 20;  // each session's solver table (beyond the table)
  double handshake_time = 10;                    // seconds from the connection to the bot's `mode`
  int sessions = 0;          // exit after this many sessions have ended; 0: until a signal
  int max_sessions = 64;     // sessions at once; more connections are refused with an error
  int max_malformed = 1000;  // a session ends after this many malformed lines
  bool json = false;         // reports as one JSON object a line
  std::string report_file;   // each report appended here too; empty: none
};

// Listens, prints "kalah referee: listening on HOST:PORT" on stdout, and serves each connection
// on a thread of its own: `kgp 1 0 0`, the bot's `mode` (freeplay, eval or verify), the source's
// positions one at a time (docs/REFEREE.md), `goodbye`; when a session ends its report is printed
// on stdout and appended to report_file. A bot's bad lines, silence or disconnection end or
// mark its own session only. SIGINT and SIGTERM end every session (reported) and return 0.
// Returns 0 after `sessions` sessions, 1 when the address cannot be listened on or the report
// file cannot be written.
int run_referee(Tables& tables, const RefereeOptions& options);

}  // namespace kalah::referee
