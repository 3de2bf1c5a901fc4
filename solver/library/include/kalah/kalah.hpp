// libkalah: exact values of Kalah positions from a solved database, for engines and tools.
//
// Positions are written in the notation of docs/RULES.md ("s1,..,sm,SK/n1,..,nm,NK X": South's
// pits and kalah, North's pits and kalah, X the side to move); rule sets by name ("wetherell",
// "kalah", "kalah-empty-capture"). A margin is the final score of the side to move minus the
// opponent's under perfect play by both, counting the stones already in the kalahs. Every
// function reports failure by throwing kalah::api::Error; none returns a guessed value.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// Symbols of the shared library (libkalah.so) that callers may use; the rest stays inside.
#define KALAH_API __attribute__((visibility("default")))

namespace kalah::api {

// What went wrong, in one line (what()). kInput: a malformed position, an unknown rule set, an
// illegal move or a bad option. kDatabase: a missing, unreadable or corrupted database.
class KALAH_API Error : public std::runtime_error {
 public:
  enum class Kind { kInput, kDatabase };
  Error(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// A margin for the side to move: exact when lower == upper, else only proven bounds
// (lower <= margin <= upper; a search ran out of time).
struct KALAH_API Value {
  int lower = 0, upper = 0;
  bool exact() const { return lower == upper; }
  // "win", "draw" or "loss" when the bounds decide it, else "" (undecided).
  std::string outcome() const;
};

// One legal move of the queried position.
struct MoveValue {
  int pit = 0;           // 1..m, of the side to move
  Value value;           // for the side to move in the queried position
  bool best = false;     // exact and equal to the position's exact value
  bool again = false;    // the mover moves again after it
  std::string position;  // the position after the move
  std::string explain;   // what the move did: relays, captures, extra turn (one line)
};

// A position's value and the value of each of its legal moves.
struct KALAH_API Answer {
  std::string position;          // the queried position, normalised
  std::string rules;             // the rule set's name
  Value value;                   // over: the final margin, exact
  bool over = false;             // the game is over: no moves
  std::string source;            // "database", "database + search", "search" or "rules" (over)
  std::vector<MoveValue> moves;  // legal moves, ascending pit
  // The answer as one JSON object (no newline): what `kalah query --json` prints, keys position,
  // rules, margin, outcome, exact, over, source, moves[{pit, margin, outcome, exact, best, again,
  // position, explain}]; a margin that is only bounded is null, with lower and upper.
  std::string to_json() const;
};

// One table of a database: exact values of every position of `pits` pits a side with at most
// max_stones stones in pits, under `rules`.
struct Table {
  std::string rules;
  int pits = 0;
  int max_stones = -1;
};

struct Options {
  // Memory for decoded values of each table, in bytes: the LRU cache of decompressed blocks, or
  // the limit on decoding a whole table into memory.
  std::size_t cache_bytes = std::size_t(256) << 20;
  // How tables are held. kCache: blocks decoded on demand through the LRU cache. kMemory: a table
  // is decoded whole into memory when first used, whatever cache_bytes says. kAuto: the cache,
  // switched to memory (when it fits cache_bytes) at the first query that searches 8 or more stones
  // beyond the table.
  enum class Load { kAuto, kCache, kMemory } load = Load::kAuto;
  // >= 0: use only levels 0..max_stones of each table (what a smaller table would answer).
  int max_stones = -1;
  // Called with a one-line note when a table is decoded into memory (kAuto, kMemory).
  std::function<void(const std::string&)> note;
  // The analysis cache: a transposition table of the bounds that searches prove, kept by the
  // Database and shared by all its queries and threads, so that a query reuses what earlier ones
  // proved (the positions of a game asked one after another, a position asked again). Its entries
  // are proven bounds of arrangements of pits under one rule set, true wherever they are reached
  // from, so a warm cache changes how long a query takes, never its answer. It ages: each query
  // that searches is a generation, and its entries displace those of earlier queries before its
  // own, so a cache that has served many other positions holds as much for a new game as a fresh
  // one. In bytes, rounded down to a power of two and allocated whole when the Database is made,
  // with a 32nd more (tt_bytes / 32) for the generations; 0: sized to the position of the first
  // query that searches (as `kalah solve --tt-mb 0` sizes its table) and allocated then.
  std::size_t tt_bytes = 0;
};

// How Database::query searches beyond the tables.
struct QueryOptions {
  double max_seconds = 10;  // of search in all; 0: no limit. What it does not settle is bounds.
  int threads = 1;          // search threads; 0: all cores
  // Gets the search's one-line status now and then.
  std::function<void(const std::string&)> progress;
  // Gets the answer so far each time the search proves more of it: once the value and the best
  // moves are exact, then each time another move's value is. Called from the search's threads, one
  // call at a time; not called when the tables answer without a search.
  std::function<void(const Answer& so_far)> on_proven;
  // When set, the search stops once *cancel is true; the answer then holds what was proven.
  const std::atomic<bool>* cancel = nullptr;
};

// A position in binary form for TableProbe::probe: the side to move's pits own[0..pits) (pit 1
// first, as the notation numbers them), the opponent's pits opp[0..pits), and the two kalahs.
struct BinaryPosition {
  int pits = 6;  // m, 1..12
  std::uint8_t own[12] = {};
  std::uint8_t opp[12] = {};
  int own_kalah = 0, opp_kalah = 0;
};

// p in the notation, the side to move as S (pits 1..12, kalahs 0..65535): to name a binary
// position to Database::value or query, or in a message.
KALAH_API std::string notation(const BinaryPosition& p);

// What TableProbe::probe found: the exact margin for the side to move, or why there is none.
struct ProbeResult {
  // kNotCovered: another board size than the table's, or more stones in pits than its levels.
  // kError: the table could not be read (a corrupted block: only when it is not resident).
  enum class Status : std::uint8_t { kExact, kNotCovered, kError };
  Status status = Status::kNotCovered;
  int margin = 0;  // kExact only
  bool exact() const { return status == Status::kExact; }
};

// One table of a Database made ready for probing at search leaves: made once by
// Database::table_probe, then probed with binary positions. A probe parses nothing, allocates
// nothing and, with the table resident (decoded into memory), takes no lock: any number of
// threads may probe one TableProbe at once. Copies share the table, which stays valid after the
// Database is gone. Positions above the table's levels are not covered (the book is not read).
class KALAH_API TableProbe {
 public:
  struct Impl;
  explicit TableProbe(std::shared_ptr<const Impl> impl);

  ProbeResult probe(const BinaryPosition& p) const noexcept;
  // out[i] = probe(in[i]) for i < min(in.size(), out.size()). With the table resident, the
  // positions' memory reads overlap (each is prefetched before the first is read): where an engine
  // has several leaves at once (a node's children), this is the faster call.
  void probe(std::span<const BinaryPosition> in, std::span<ProbeResult> out) const noexcept;

  const std::string& rules() const;
  int pits() const;
  int max_stones() const;  // the last level answered
  bool resident() const;   // decoded into memory: probes read it without locks

 private:
  std::shared_ptr<const Impl> impl_;
};

// A read-only database. Thread-safe: any number of threads may call its const members at once.
class KALAH_API Database {
 public:
  // No database: every value comes from search.
  Database();
  // No database, with options (tt_bytes; the others concern tables).
  explicit Database(Options options);
  // Opens the database directory at `path` read-only. Throws Error(kDatabase) when it is missing
  // or is not a kalah database.
  explicit Database(const std::string& path, Options options = {});
  ~Database();
  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;

  const std::string& path() const;  // "" without a database
  std::vector<Table> tables() const;
  // The table for (rules, pits), if the database holds one.
  std::optional<Table> table(std::string_view rules, int pits) const;

  // The exact margin of `position` from the database alone; nullopt when the database does not
  // cover it (no table for its rule set and board size, or more stones in pits than the table).
  // A game that is over has its final margin.
  std::optional<int> value(std::string_view rules, std::string_view position) const;

  // The table for (rules, pits) ready for binary probes, nullopt when the database holds none. It
  // is decoded into memory now unless Options::load is kCache or (kAuto) it does not fit
  // Options::cache_bytes; then probes read through the block cache. Throws Error(kInput) for an
  // unknown rule set, Error(kDatabase) when decoding finds a corrupted block.
  std::optional<TableProbe> table_probe(std::string_view rules, int pits) const;

  // The position's value and every move's: from the database where it covers every move, else by
  // one exhaustive search with the database at the leaves (the value and the best moves first, as
  // `kalah solve` proves them, then each other move's value), through the analysis cache (Options::
  // tt_bytes). What the time does not settle is reported as the bounds proven, never a guess.
  Answer query(std::string_view rules, std::string_view position,
               const QueryOptions& options) const;
  // The same with QueryOptions{max_seconds, threads, progress}.
  Answer query(std::string_view rules, std::string_view position, double max_seconds = 10,
               int threads = 1, const std::function<void(const std::string&)>& progress = {}) const;
  // query()'s answer when it needs no search (the database values every move, or the game is
  // over); nullopt when query() would search. Throws as query() does.
  std::optional<Answer> lookup(std::string_view rules, std::string_view position) const;

  // The analysis cache's size in bytes (its entries; the generations take a 32nd more); 0 until
  // the first search allocates it.
  std::size_t tt_bytes() const;
  // Empties the analysis cache: the next query searches as a freshly opened Database would (for
  // benchmarks and for checking that a warm cache answers as a cold one). Queries under way
  // finish with the cache they started with.
  void clear_cache() const;

  // Frees the database's reader slots left by processes that were killed while it was open
  // (LMDB keeps them until every process has closed the database; 1022 of them make every new
  // read fail) and returns how many it freed: 0 without a database, or when the database is read
  // without its lock file. Opening a database does the same; a reader that stays open for long
  // (a server) calls this now and then, e.g. once a minute: it is one pass over the slots, safe
  // from any thread at any time, beside queries. Throws Error(kDatabase) when the lock file
  // cannot be read.
  std::size_t clear_stale_readers() const;

  // The pits (1..m) of the moves that keep the position's exact value: query()'s best moves.
  // Empty when the game is over or the value could not be settled within max_seconds.
  std::vector<int> best_moves(std::string_view rules, std::string_view position,
                              double max_seconds = 10) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The position after playing `pit` (1..m) of the side to move. Throws Error(kInput) when the
// position is malformed, over, or the pit is empty or out of range.
KALAH_API std::string play(std::string_view rules, std::string_view position, int pit);

// The start position of `pits` pits a side with `stones` each, South to move.
KALAH_API std::string start_position(int pits, int stones);

// Positions drawn inside a table as `kalah referee` draws them (docs/REFEREE.md): the stones in
// pits uniform in min_stones..max_stones, spread over the 2 x pits pits with every arrangement
// that leaves both sides' pits non-empty equally likely (so no rule set's game is over), the side
// to move's kalah and the opponent's splitting the rest of 2 x pits x stones (none when there are
// more in pits), neither holding more than half of all stones.
struct DrawOptions {
  int pits = 6;             // 1..12
  std::size_t count = 100;  // positions
  int min_stones = 2;       // stones in pits, 2 <= min_stones <= max_stones <= 255
  int max_stones = 20;
  int stones = 4;          // stones a pit at the start
  std::uint64_t seed = 1;  // the same seed, the same positions (as the referee's --seed)
};

// The positions of `options`, deterministic in them. Throws Error(kInput) for options out of range.
KALAH_API std::vector<BinaryPosition> draw_positions(const DrawOptions& options);

// The rule sets' names, in the order `kalah --help` lists them.
KALAH_API std::vector<std::string> rule_sets();

// This library's version, "MAJOR.MINOR".
KALAH_API std::string version();

}  // namespace kalah::api
