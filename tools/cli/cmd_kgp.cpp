// `kalah kgp`: a client of the Kalah Game Protocol, playing the states a KGP server sends.
#include <cstdlib>

#include "tools/cli/command.hpp"
#include "tools/cli/db_open.hpp"
#include "tools/cli/options.hpp"
#include "tools/kgp/kgp_client.hpp"

namespace kalah::cli {
namespace {

const char* const kKgpUsage =
    "kgp [HOST[:PORT]] [--name NAME] [--token TOKEN] [--db PATH] [--move-time SEC] "
    "[--retries N] [--sessions N] [--tt-mb MB] [--threads N] [--verbose]";

std::string kgp_description() {
  return "Connects to a Kalah Game Protocol server (KGP 1, freeplay mode; default\n"
         "localhost:2671; [ADDR]:PORT for an IPv6 address), names itself (set info:name),\n"
         "sends set auth:token from --token or the environment variable KGP_TOKEN, answers\n"
         "ping, and plays every state the server sends as South, under the kalah rules\n"
         "(docs/RULES.md, \"KGP's game\"): boards of 1..12 pits. A state inside the\n"
         "database's table (--db, default " +
         std::string(kDefaultDbPath) +
         " when it exists) gets its exact best\n"
         "move at once. Otherwise the engine deepens one ply at a time for half of\n"
         "--move-time, sending `move P` after each depth whose move differs from the last\n"
         "sent, then the solver tries to prove the best move in the time left. `yield`\n"
         "follows a proven move or the end of --move-time, the last move sent once more\n"
         "before it; `stop` ends the thinking at once. Malformed lines are logged on stderr\n"
         "and ignored. When the connection fails or the server closes it, the client\n"
         "reconnects after 0.25 s, doubling the wait after each failed connection up to\n"
         "30 s.";
}

// HOST[:PORT] or [ADDR]:PORT into options; throws InputError for an empty host or a bad port.
void parse_server(const std::string& server, kgp::ClientOptions& o) {
  std::string host = server, port = o.port;
  if (!server.empty() && server.front() == '[') {
    const auto close = server.find(']');
    if (close == std::string::npos) throw InputError("unterminated [ in '" + server + "'");
    host = server.substr(1, close - 1);
    const std::string rest = server.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') throw InputError("expected :PORT after ] in '" + server + "'");
      port = rest.substr(1);
    }
  } else if (const auto colon = server.rfind(':'); colon != std::string::npos) {
    host = server.substr(0, colon);
    port = server.substr(colon + 1);
  }
  if (host.empty()) throw InputError("no host in '" + server + "'");
  char* end = nullptr;
  const long p = std::strtol(port.c_str(), &end, 10);
  if (port.empty() || *end != '\0' || p < 1 || p > 65535)
    throw InputError("port must be 1..65535, got '" + port + "'");
  o.host = host;
  o.port = std::to_string(p);
}

struct KgpArgs {
  std::string server = "localhost:2671";
  int tt_mb = 64;
  int threads = 1;
  kgp::ClientOptions client;
};

void add_kgp_options(po::options_description& desc, KgpArgs& a) {
  kgp::ClientOptions& c = a.client;
  add_db_option(desc, c.player.db);
  desc.add_options()("server", po::value(&a.server)->default_value(a.server),
                     "HOST[:PORT] of the KGP server")(
      "name", po::value(&c.name)->default_value(c.name), "the name sent as info:name")(
      "token", po::value(&c.token),
      "sent as auth:token (default: the environment variable KGP_TOKEN; none when both are "
      "unset or empty)")("move-time",
                         po::value(&c.player.move_time)->default_value(c.player.move_time),
                         "seconds of thinking per state, 0.01..3600")(
      "retries", po::value(&c.retries)->default_value(c.retries),
      "exit 1 after this many consecutive failed connections; 0: retry forever")(
      "sessions", po::value(&c.sessions)->default_value(c.sessions),
      "exit 0 after this many connections that got the server's kgp line have ended; 0: no "
      "limit")("tt-mb", po::value(&a.tt_mb)->default_value(a.tt_mb),
               "the engine's transposition table, and the solver's, each in MiB")(
      "threads", po::value(&a.threads)->default_value(a.threads), "solver threads, 0: all cores")(
      "verbose", po::bool_switch(&c.verbose), "log every line sent and received on stderr");
}

// Parses and checks the command line; false when --help was answered.
bool parse_kgp_args(int argc, char** argv, KgpArgs& a) {
  po::options_description desc("options");
  add_kgp_options(desc, a);
  po::positional_options_description pos;
  pos.add("server", 1);
  po::variables_map vm;
  if (!parse_command(argc, argv, kKgpUsage, kgp_description(), desc, pos, vm)) return false;
  kgp::ClientOptions& c = a.client;
  parse_server(a.server, c);
  if (c.name.empty()) throw InputError("--name must not be empty");
  if (!vm.count("token"))
    if (const char* env = std::getenv("KGP_TOKEN")) c.token = env;
  check_seconds("move-time", c.player.move_time);
  check_range("retries", c.retries, 0, 1000000);
  check_range("sessions", c.sessions, 0, 1000000);
  check_memory_mb("tt-mb", a.tt_mb, 1, 65536);
  check_range("threads", a.threads, 0, 256);
  c.player.threads = threads_or_all_cores(a.threads);
  c.player.tt_bytes = std::size_t(a.tt_mb) << 20;
  c.player.explicit_db = !vm["db"].defaulted();
  if (c.player.explicit_db) require_db(c.player.db);
  return true;
}

int run_kgp(int argc, char** argv) {
  KgpArgs a;
  if (!parse_kgp_args(argc, argv, a)) return 0;
  return kgp::run_client(a.client);
}

const RegisterCommand reg{"kgp", "play on a Kalah Game Protocol (KGP) server", &run_kgp};

}  // namespace
}  // namespace kalah::cli
