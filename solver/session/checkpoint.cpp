// The checkpoint file: a magic line, a JSON line of what was proven, then the TT's words.
#include "solver/session/checkpoint.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <tuple>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "db/xxhash64.hpp"
#include "solver/session/whole_file.hpp"

namespace kalah {

namespace {

constexpr const char* kMagic = "kalah-solve-checkpoint 1";
constexpr std::size_t kChunkWords = std::size_t(1) << 17;  // 1 MiB a read or write
constexpr std::uint64_t kHeaderRoom = 64 << 10;  // the magic and JSON lines, a PV included

nlohmann::ordered_json header_of(const SolveCheckpoint& c, std::uint64_t sum) {
  const SolveResult& r = c.proven;
  nlohmann::ordered_json j;
  j["rules"] = rules_name(c.rules);
  j["position"] = to_string(c.position);
  j["tt_bytes"] = c.tt_bytes;
  j["complete"] = r.complete;
  j["lower"] = r.lower;
  j["upper"] = r.upper;
  j["margin"] = r.margin;
  j["best_moves"] = r.best_moves;
  j["pv"] = r.pv;
  nlohmann::ordered_json moves = nlohmann::ordered_json::array();
  for (const MoveBound& m : r.moves) moves.push_back({m.pit, m.lower, m.upper});
  j["moves"] = moves;
  j["runs"] = c.runs;
  j["nodes"] = c.nodes;
  j["seconds"] = c.seconds;
  j["processes"] = c.processes;
  j["table"] = c.has_tt;
  j["table_xxh64"] = sum;
  return j;
}

SolveCheckpoint from_header(const nlohmann::json& j) {
  SolveCheckpoint c;
  const auto rules = parse_rules(j.at("rules").get<std::string>());
  if (!rules) throw CheckpointError("unknown rule set " + j.at("rules").get<std::string>());
  c.rules = *rules;
  c.position = parse_position(j.at("position").get<std::string>());
  c.tt_bytes = j.at("tt_bytes").get<std::size_t>();
  SolveResult& r = c.proven;
  r.complete = j.at("complete").get<bool>();
  r.lower = j.at("lower").get<int>();
  r.upper = j.at("upper").get<int>();
  r.margin = j.at("margin").get<int>();
  r.best_moves = j.at("best_moves").get<std::vector<int>>();
  r.pv = j.at("pv").get<std::vector<int>>();
  for (const auto& m : j.at("moves")) r.moves.push_back({m.at(0), m.at(1), m.at(2)});
  c.runs = j.at("runs").get<int>();
  c.nodes = j.at("nodes").get<std::uint64_t>();
  c.seconds = j.at("seconds").get<double>();
  c.processes = j.at("processes").get<int>();
  c.has_tt = j.at("table").get<bool>();
  if (r.lower > r.upper) throw CheckpointError("its bounds are empty");
  for (const MoveBound& m : r.moves)
    if (m.lower > m.upper)
      throw CheckpointError("the bounds of pit " + std::to_string(m.pit) + " are empty");
  return c;
}

// Writes the TT's words to fd, each read whole; its XXH64 in *sum. False on failure.
bool write_tt(int fd, const SolveTT& tt, std::uint64_t* sum) {
  Xxh64Stream hash;
  std::vector<std::uint64_t> chunk(kChunkWords);
  for (std::size_t at = 0; at < tt.words(); at += kChunkWords) {
    const std::size_t n = std::min(kChunkWords, tt.words() - at);
    tt.copy_out(at, n, chunk.data());
    hash.update(chunk.data(), n * sizeof(std::uint64_t));
    if (!write_all(fd, chunk.data(), n * sizeof(std::uint64_t))) return false;
  }
  *sum = hash.digest();
  return true;
}

// The header's text (magic line and JSON line).
std::string header_text(const SolveCheckpoint& c, std::uint64_t sum) {
  return std::string(kMagic) + "\n" + header_of(c, sum).dump() + "\n";
}

}  // namespace

std::string checkpoint_temporary(const std::string& path) {
  return path + ".tmp";
}

std::uint64_t checkpoint_bytes(std::size_t tt_bytes) {
  return std::uint64_t(tt_bytes) + kHeaderRoom;
}

SolveCheckpoint new_checkpoint(Rules rules, const Position& p, std::size_t tt_bytes) {
  SolveCheckpoint c;
  c.rules = rules;
  c.position = p;
  c.tt_bytes = tt_bytes;
  std::tie(c.proven.lower, c.proven.upper) = margin_range(p);
  return c;
}

void save_checkpoint(const std::string& path, SolveCheckpoint c, const SolveTT* tt) {
  c.has_tt = tt != nullptr;
  if (tt != nullptr) c.tt_bytes = tt->bytes();
  const std::string tmp = checkpoint_temporary(path);
  const auto failed = [&path, &tmp](int why) {
    return std::runtime_error("cannot write checkpoint " + path + " (through " + tmp + "): " +
                              std::strerror(why) + " (the previous checkpoint, if any, is kept)");
  };
  // The header is written last, over a placeholder of its length: the checksum follows the TT.
  const std::size_t header_len = header_text(c, ~std::uint64_t(0)).size();  // the longest
  const int why = write_through(path, tmp, [&](int fd) {
    std::uint64_t sum = 0;
    if (::lseek(fd, off_t(header_len), SEEK_SET) < 0 || (tt != nullptr && !write_tt(fd, *tt, &sum)))
      return false;
    // A checksum of fewer digits leaves spaces at the end of the JSON line.
    std::string text = header_text(c, sum);
    if (text.size() < header_len) text.insert(text.size() - 1, header_len - text.size(), ' ');
    if (text.size() != header_len) {
      errno = EOVERFLOW;
      return false;
    }
    return ::lseek(fd, 0, SEEK_SET) == 0 && write_all(fd, text.data(), text.size());
  });
  if (why != 0) throw failed(why);
}

SolveCheckpoint load_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CheckpointError("cannot read checkpoint " + path + ": " + std::strerror(errno));
  std::string magic, header;
  std::getline(in, magic);
  if (magic != kMagic)
    throw CheckpointError("checkpoint " + path + " is not a kalah solve checkpoint");
  std::getline(in, header);
  SolveCheckpoint c;
  try {
    c = from_header(nlohmann::json::parse(header));
  } catch (const CheckpointError& e) {
    throw CheckpointError("checkpoint " + path + ": " + e.what());
  } catch (const std::exception& e) {
    throw CheckpointError("checkpoint " + path + " has a malformed header: " + e.what());
  }
  const auto body = in.tellg();
  in.seekg(0, std::ios::end);
  const auto size = std::uint64_t(in.tellg() - body);
  const std::uint64_t want = c.has_tt ? c.tt_bytes : 0;
  if (size != want)
    throw CheckpointError("checkpoint " + path +
                          " is truncated or too long: " + std::to_string(size) +
                          " bytes of transposition table, expected " + std::to_string(want));
  return c;
}

void load_checkpoint_tt(const std::string& path, SolveTT& tt) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  std::getline(in, line);
  std::getline(in, line);
  std::uint64_t sum = 0;
  try {
    sum = nlohmann::json::parse(line).at("table_xxh64").get<std::uint64_t>();
  } catch (const std::exception& e) {
    throw CheckpointError("checkpoint " + path + " has a malformed header: " + e.what());
  }
  Xxh64Stream hash;
  std::vector<std::uint64_t> chunk(kChunkWords);
  for (std::size_t at = 0; at < tt.words(); at += kChunkWords) {
    const std::size_t n = std::min(kChunkWords, tt.words() - at);
    in.read(reinterpret_cast<char*>(chunk.data()), std::streamsize(n * sizeof(std::uint64_t)));
    if (!in) throw CheckpointError("checkpoint " + path + " is truncated");
    hash.update(chunk.data(), n * sizeof(std::uint64_t));
    tt.copy_in(at, n, chunk.data());
  }
  if (hash.digest() != sum)
    throw CheckpointError("checkpoint " + path +
                          " is corrupt: its transposition table's checksum differs");
}

}  // namespace kalah
