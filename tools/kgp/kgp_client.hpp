// `kalah kgp`'s connection to a KGP server: the handshake, the command loop, reconnection.
#pragma once

#include <string>

#include "tools/kgp/kgp_player.hpp"

namespace kalah::kgp {

struct ClientOptions {
  std::string host = "localhost";
  std::string port = "2671";
  std::string name = "kalah";  // set info:name
  std::string token;           // set auth:token; empty: none sent
  int retries = 0;             // consecutive failed connections before giving up; 0: never
  int sessions = 0;            // connections to serve before exiting 0; 0: no limit
  bool verbose = false;        // every line sent and received goes to stderr
  PlayerOptions player;
};

// First wait before reconnecting, and the most it doubles to.
inline constexpr double kFirstBackoffSeconds = 0.25;
inline constexpr double kMaxBackoffSeconds = 30;

// Connects, plays every state the server sends, and reconnects when the connection fails or the
// server closes it, waiting kFirstBackoffSeconds, doubled after each failure up to
// kMaxBackoffSeconds (a connection that completed the handshake starts the doubling afresh). A
// failure is a refused or broken connection, or one closed before the server's `kgp` line.
// Returns 0 after `sessions` connections that completed the handshake have ended, 1 after
// `retries` consecutive failures; runs forever when both are 0.
int run_client(const ClientOptions& options);

}  // namespace kalah::kgp
