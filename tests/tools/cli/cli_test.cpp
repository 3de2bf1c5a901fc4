// The `kalah` binary end to end: move, play, tree, bench, usage errors and every --help.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/cli_run.hpp"

namespace {

using kalah::test::contains;
using kalah::test::count_lines;
using kalah::test::temp_path;
using Result = kalah::test::CliResult;

Result run(const std::string& shell_command, const std::string& input = "") {
  return kalah::test::run_cli(shell_command, input);
}

// Drops the seconds of the engine's move lines ("..., 0.03 s]").
std::string without_timings(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    // ", " digits-and-dots " s]" -> "]"
    std::size_t j = i + 2;
    if (s.compare(i, 2, ", ") == 0) {
      while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
      if (j > i + 2 && s.compare(j, 3, " s]") == 0) {
        out += ']';
        i = j + 3;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

TEST(CliMove, PrintsTheResultingPosition) {
  // Worked examples of RULES.md; POSITION as one argument and as BOARD SIDE.
  Result r = run("KALAH move '3,3,3,3,3,3,0/3,3,3,3,3,3,0 S' 5");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "3,3,3,3,0,4,1/4,3,3,3,3,3,0 N\n");
  EXPECT_EQ(r.err, "");
  r = run("KALAH move 6,0,0,0,0,8,0/0,3,3,3,3,3,0 S 6");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "0,1,1,1,1,1,4/0,4,4,4,4,4,0 N\n");
  r = run("KALAH move '3,3,3,3,3,3,0/3,3,3,3,3,3,0 N' 4 --rules wetherell");
  EXPECT_EQ(r.out, "3,3,3,3,3,3,0/3,3,3,0,4,4,1 S\n");
  // Kalah rules: the extra turn keeps the mover.
  r = run("KALAH move --rules kalah '3,3,3,3,3,3,0/3,3,3,3,3,3,0 S' 4");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "3,3,3,0,4,4,1/3,3,3,3,3,3,0 S\n");
  // --explain words what happened.
  r = run("KALAH move '1,0,2,1,0,10,2/1,5,4,5,1,4,4 S' 6 --explain");
  EXPECT_EQ(r.out, "2,1,0,2,1,1,3/2,6,5,6,2,5,4 N\nS plays 6: relay from pit 3\n");
  r = run("KALAH move '0,0,0,0,1,5,10/1,2,1,2,5,1,8 S' 6 --explain");
  EXPECT_TRUE(contains(r.out, "captures 3 from N4, 2 from N3, 3 from N2 and 2 from N1")) << r.out;
  r = run("KALAH move --rules kalah '3,1,0,3,3,3,0/3,3,3,3,3,3,0 S' 2 --explain");
  EXPECT_TRUE(contains(r.out, "captures 4 (pit 3 and N's opposite pit 4)")) << r.out;
}

TEST(CliMove, BadInputIsOneLineOnStderrAndExit2) {
  const char* bad[] = {
      "KALAH move '3,3,3,3,3,3,0/3,3,3,3,3,3 S' 1",              // malformed: N lacks its kalah
      "KALAH move '3,3,3,3,3,3,0/3,3,3,3,3,3,0' 1",              // no side to move
      "KALAH move '3,3,x,3,3,3,0/3,3,3,3,3,3,0 S' 1",            // not an integer
      "KALAH move '3,3,3,3,3,3,0/3,3,3,3,3,3,0 S' 0",            // pit out of range
      "KALAH move '3,3,3,3,3,3,0/3,3,3,3,3,3,0 S' 7",            // pit out of range
      "KALAH move '3,3,3,3,3,3,0/3,3,3,3,3,3,0 S' two",          // pit not a number
      "KALAH move '0,3,3,3,3,3,0/3,3,3,3,3,3,0 S' 1",            // empty pit
      "KALAH move '0,0,0,0,0,0,10/1,2,0,0,0,3,9 S' 1",           // game over
      "KALAH move '3,3,3,3,3,3,0/3,3,3,3,3,3,0 S' 1 --rules x",  // unknown rule set
      "KALAH move '3,3,3,3,3,3,0/3,3,3,3,3,3,0 S'",              // missing pit
      "KALAH move 3,3,3,3,3,3,0/3,3,3,3,3,3,0 Q 1",              // neither S nor N
      "KALAH move"};
  for (const char* cmd : bad) {
    const Result r = run(cmd);
    EXPECT_EQ(r.status, 2) << cmd;
    EXPECT_EQ(r.out, "") << cmd;
    EXPECT_EQ(count_lines(r.err), 1) << cmd << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "error")) << cmd << ": " << r.err;
  }
}

TEST(CliPlay, SelfPlayFinishesAGameForEveryRuleSet) {
  for (const char* rules : {"wetherell", "kalah", "kalah-empty-capture"}) {
    const Result r = run(std::string("KALAH play --self --depth 3 --seed 7 --rules ") + rules);
    EXPECT_EQ(r.status, 0) << rules << ": " << r.err;
    EXPECT_TRUE(contains(r.out, "Game over: ")) << rules;
    EXPECT_TRUE(contains(r.out, "Result: ")) << rules;
    EXPECT_TRUE(contains(r.out, "N's pits")) << rules;
    EXPECT_TRUE(contains(r.out, "depth 3") || contains(r.out, "exact")) << rules;
  }
  // The same seed plays the same game; --no-random too (timings aside).
  EXPECT_EQ(without_timings(run("KALAH play --self --depth 4 --seed 3").out),
            without_timings(run("KALAH play --self --depth 4 --seed 3").out));
  const Result a = run("KALAH play --self --depth 4 --no-random --stones 4");
  EXPECT_EQ(without_timings(a.out),
            without_timings(run("KALAH play --self --depth 4 --no-random --stones 4").out));
  EXPECT_TRUE(contains(a.out, "lowest pit among equal moves"));
}

TEST(CliPlay, PipedMovesIllegalInputHelpAndQuit) {
  const Result r =
      run("KALAH play --depth 2 --no-random", "foo\n9\n\nhelp\n1\n1\nboard\nquit\n2\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "'foo' is not a pit number")) << r.out;
  EXPECT_TRUE(contains(r.out, "pit 9 is outside 1..6")) << r.out;
  EXPECT_TRUE(contains(r.out, "Other commands:")) << r.out;
  EXPECT_TRUE(contains(r.out, "S plays 1")) << r.out;
  EXPECT_TRUE(contains(r.out, "pit 1 of S is empty")) << r.out;  // the second "1"
  EXPECT_TRUE(contains(r.out, "N plays ")) << r.out;
  EXPECT_TRUE(contains(r.out, "You quit")) << r.out;
  EXPECT_FALSE(contains(r.out, "S plays 2")) << "input after quit was read";
}

TEST(CliPlay, EndOfInputQuitsCleanly) {
  Result r = run("KALAH play --depth 2", "");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "end of input")) << r.out;
  r = run("KALAH play --depth 2 --first computer --no-random", "1\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "end of input")) << r.out;
  EXPECT_LT(r.out.find("N plays"), r.out.find("S plays 1")) << r.out;  // the computer began
}

TEST(CliPlay, HumanGameRunsToTheEnd) {
  // Cycling through all pits always offers a legal move: the game must end with a result.
  std::string moves;
  for (int i = 0; i < 200; ++i) moves += std::to_string(1 + i % 6) + "\n";
  for (const char* rules : {"wetherell", "kalah"}) {
    const Result r = run(std::string("KALAH play --depth 1 --no-random --rules ") + rules, moves);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "Game over: ")) << rules << r.out.substr(r.out.size() - 400);
    EXPECT_TRUE(contains(r.out, "Result: ")) << rules;
  }
}

TEST(CliPlay, StartsFromAGivenPosition) {
  const Result r = run("KALAH play --self --depth 2 --position '0,0,0,0,1,5,10/1,2,1,2,5,1,8 S'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "S plays 6: captures")) << r.out;
  EXPECT_TRUE(contains(r.out, "Result: S wins")) << r.out;
}

TEST(CliTree, TextShowsValuesBoundsAndPrunedMoves) {
  const Result r = run("KALAH tree --depth 3");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "pruned")) << r.out;
  EXPECT_TRUE(contains(r.out, ">= ")) << r.out;
  EXPECT_TRUE(contains(r.out, "<= ")) << r.out;
  EXPECT_TRUE(contains(r.out, "evaluation")) << r.out;
  EXPECT_TRUE(contains(r.out, "depth 3: value")) << r.out;
  const Result two = run(std::string("KALAH tree ") + "3,3,3,3,3,3,0/3,3,3,3,3,3,0 S --depth 3");
  EXPECT_EQ(two.out, r.out);
  // An ended game shows as a leaf.
  const Result end = run("KALAH tree --pits 2 --stones 1 --depth 8 --rules kalah");
  EXPECT_TRUE(contains(end.out, "game over")) << end.out;
  EXPECT_TRUE(contains(end.out, "extra turn")) << end.out;
  EXPECT_TRUE(contains(end.out, "(exact game margin)")) << end.out;
}

TEST(CliTree, DotRendersWithGraphviz) {
  ASSERT_EQ(std::system("command -v dot >/dev/null 2>&1"), 0)
      << "graphviz 'dot' is missing (tools/setup.sh installs it)";
  const Result r = run("KALAH tree --depth 3 --format dot | dot -Tsvg");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "<svg")) << r.err;
  const Result k = run("KALAH tree --depth 4 --rules kalah --format dot | dot -Tsvg");
  EXPECT_EQ(k.status, 0) << k.err;
}

TEST(CliTree, RefusesHugeTreesUnlessAllowed) {
  Result r = run("KALAH tree --depth 12");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--max-nodes")) << r.err;
  EXPECT_EQ(count_lines(r.err), 1);
  r = run("KALAH tree --depth 4 --max-nodes 10");
  EXPECT_EQ(r.status, 2);
  r = run("KALAH tree --depth 2 --max-nodes 1000000");
  EXPECT_EQ(r.status, 0);
}

TEST(CliDatabase, PlayAndTreeUseTheDatabaseExactly) {
  const std::string db = temp_path("db");
  std::remove(db.c_str());  // gen creates the directory
  const Result gen = run("KALAH gen --max-stones 8 --threads 1 --quiet --db " + db);
  ASSERT_EQ(gen.status, 0) << gen.err;
  // 8 stones in pits: every position the search reaches is inside the database.
  const std::string pos = " --position '0,0,1,0,2,3,10/1,0,0,0,1,0,18 S'";
  const Result play = run("KALAH play --self --depth 3 --no-random --db " + db + pos);
  EXPECT_EQ(play.status, 0) << play.err;
  EXPECT_TRUE(contains(play.out, "database: " + db)) << play.out;
  EXPECT_TRUE(contains(play.out, "exact;")) << play.out;
  EXPECT_TRUE(contains(play.out, "database hits")) << play.out;
  EXPECT_FALSE(contains(play.out, "depth 3;")) << play.out;
  // The engine reads the table through the block cache. The exact player holds it as --db-load
  // auto would: through the cache for a game that starts inside the table, decoded into memory
  // for one that starts 8 stones in pits beyond it.
  EXPECT_TRUE(contains(play.out, "read through a block cache")) << play.out;
  const Result exact = run("KALAH play --self --exact --no-random --threads 1 --db " + db + pos);
  EXPECT_EQ(exact.status, 0) << exact.err;
  EXPECT_TRUE(contains(exact.out, "stones in pits, read through a block cache")) << exact.out;
  const Result beyond = run("KALAH play --self --exact --no-random --threads 1 --db " + db +
                            " --position '2,2,2,2,2,2,9/2,2,1,0,1,0,9 S'");
  EXPECT_EQ(beyond.status, 0) << beyond.err;
  EXPECT_TRUE(contains(beyond.out, "stones in pits, loaded into memory")) << beyond.out;
  const Result tree = run("KALAH tree '0,0,1,0,2,3,10/1,0,0,0,1,0,18 S' --depth 2 --db " + db);
  EXPECT_EQ(tree.status, 0) << tree.err;
  EXPECT_TRUE(contains(tree.out, "  database")) << tree.out;
  EXPECT_TRUE(contains(tree.out, "(exact game margin)")) << tree.out;
  // A --db that does not exist is an error, not a silent search without it.
  EXPECT_NE(run("KALAH play --self --depth 2 --db " + db + "-missing").status, 0);
  std::system(("rm -rf '" + db + "'").c_str());
}

// A solve far enough beyond the table to decode it, whose decoded table is over --cache-mb, says
// that it reads the table block by block; one whose table fits decodes it and says nothing.
TEST(CliDatabase, SolveSaysWhenTheTableDoesNotFitTheMemoryAllowed) {
  const std::string db = temp_path("load-note-db");
  std::system(("rm -rf '" + db + "'").c_str());
  ASSERT_EQ(run("KALAH gen --max-stones 12 --threads 1 --quiet --db " + db).status, 0);
  // 24 stones in pits: 12 beyond the table, which takes 2 MiB decoded.
  const std::string solve = "KALAH solve --stones 2 --threads 1 --max-time 1 --db " + db;
  const Result tight = run(solve + " --cache-mb 1");
  EXPECT_TRUE(contains(tight.err,
                       "note: decoded, the table takes 2 MiB, more than the 1 MiB "
                       "allowed for database values"))
      << tight.err;
  EXPECT_TRUE(contains(tight.out, "(block cache)")) << tight.out;
  const Result room = run(solve + " --cache-mb 64");
  EXPECT_FALSE(contains(room.err, "note:")) << room.err;
  EXPECT_TRUE(contains(room.out, "loaded into memory")) << room.out;
  std::system(("rm -rf '" + db + "'").c_str());
}

// solve's and query's progress: on with --progress (stderr is no terminal here), off with --quiet,
// not both.
TEST(CliSearch, ProgressOnRequestQuietOtherwise) {
  const std::string db = temp_path("progress-db");
  std::system(("rm -rf '" + db + "'").c_str());
  ASSERT_EQ(run("KALAH gen --pits 2 --max-stones 8 --threads 1 --quiet --db " + db).status, 0);
  const std::string solve = "KALAH solve --pits 2 --stones 2 --db " + db;
  const Result loud = run(solve + " --progress");
  EXPECT_EQ(loud.status, 0) << loud.err;
  EXPECT_TRUE(contains(loud.err, "opening the database at " + db)) << loud.err;
  EXPECT_TRUE(contains(loud.out, "margin:")) << loud.out;
  const Result quiet = run(solve + " --quiet");
  EXPECT_EQ(quiet.status, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  EXPECT_EQ(run(solve).err, "");  // stderr is no terminal: quiet by default
  const Result both = run(solve + " --progress --quiet");
  EXPECT_EQ(both.status, 2);
  EXPECT_EQ(count_lines(both.err), 1) << both.err;
  // query: 16 stones in pits, 8 beyond the table, loads it into memory first and says so.
  const std::string query = "KALAH query --rules wetherell '4,4,0/4,4,0 S' --db " + db;
  const Result qloud = run(query + " --progress");
  EXPECT_EQ(qloud.status, 0) << qloud.err;
  EXPECT_TRUE(contains(qloud.err, "the wetherell m=2 table is decoded into memory")) << qloud.err;
  const Result qquiet = run(query + " --quiet");
  EXPECT_EQ(qquiet.status, 0) << qquiet.err;
  EXPECT_EQ(qquiet.err, "");
  EXPECT_EQ(qquiet.out, qloud.out);
  EXPECT_EQ(run(query).err, "");
  EXPECT_EQ(run(query + " --progress -q").status, 2);
  std::system(("rm -rf '" + db + "'").c_str());
}

// The generator workload's signature (a checksum of every value) is the same on 1 and 2 threads.
TEST(CliBench, GenSignatureIsIndependentOfThreads) {
  const Result one = run("KALAH bench gen --max-stones 8 --threads 1");
  const Result two = run("KALAH bench gen --max-stones 8 --threads 2");
  ASSERT_EQ(one.status, 0) << one.err;
  ASSERT_EQ(two.status, 0) << two.err;
  const auto sig = [](const std::string& out) { return out.substr(out.rfind("signature")); };
  EXPECT_EQ(sig(one.out), sig(two.out));
  EXPECT_EQ(run("KALAH bench gen --max-stones 25").status, 2);
}

// More threads than the machine's cores run as many as the cores: gen, bench gen and verify do
// their work without a warning from the thread library.
TEST(CliBench, MoreThreadsThanCoresWorkWithoutAWarning) {
  const std::string many = std::to_string(std::thread::hardware_concurrency() + 8);
  const std::string db = temp_path("many-threads-db");
  std::remove(db.c_str());  // gen creates the directory
  const Result bench = run("KALAH bench gen --max-stones 12 --threads " + many);
  const Result gen = run("KALAH gen --max-stones 12 --quiet --threads " + many + " --db " + db);
  const Result verify = run("KALAH verify --threads " + many + " --db " + db);
  for (const Result* r : {&bench, &gen, &verify}) {
    EXPECT_EQ(r->status, 0) << r->err;
    EXPECT_FALSE(contains(r->err, "Warning")) << r->err;
  }
  EXPECT_TRUE(contains(verify.out, "OK")) << verify.out;
}

// A memory limit below the byte layout's need packs the levels (same signature); one below the
// packed need is refused in one line naming the largest table that fits; gen refuses it too.
TEST(CliBench, GenPacksWithinTheMemoryLimitAndRefusesWhatDoesNotFit) {
  const Result bytes = run("KALAH bench gen --pits 6 --max-stones 14 --threads 2");
  const Result packed =
      run("KALAH bench gen --pits 6 --max-stones 14 --threads 2 --memory-limit 11");
  ASSERT_EQ(bytes.status, 0) << bytes.err;
  ASSERT_EQ(packed.status, 0) << packed.err;
  EXPECT_NE(bytes.out.find("levels in bytes"), std::string::npos) << bytes.out;
  EXPECT_NE(packed.out.find("levels packed"), std::string::npos) << packed.out;
  const auto sig = [](const std::string& out) { return out.substr(out.rfind("signature")); };
  EXPECT_EQ(sig(bytes.out), sig(packed.out));
  for (const std::string& cmd :
       {std::string("KALAH bench gen --pits 6 --max-stones 14 --memory-limit 5"),
        "KALAH gen --pits 6 --max-stones 14 --memory-limit 5 --db " +
            kalah::test::fresh_path("gen-memory")}) {
    const Result r = run(cmd);
    EXPECT_EQ(r.status, 2) << cmd;
    EXPECT_NE(r.err.find("the largest table that fits is levels 0.."), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_EQ(
      run("KALAH gen --memory-limit 99999999 --db " + kalah::test::fresh_path("gen-mem2")).status,
      2);
}

// The solve workload with databases: a missing one or one without the table is a clear error.
TEST(CliBench, SolveWithMissingDatabaseFails) {
  const Result missing = run("KALAH bench solve --db /nonexistent/kalah.db");
  EXPECT_NE(missing.status, 0);
  EXPECT_NE(missing.err.find("/nonexistent/kalah.db"), std::string::npos) << missing.err;
}

// The memory workload: one line per doubling size, a signature that repeats, bad sizes refused.
TEST(CliBench, MemoryWorkloadPrintsEachSizeAndARepeatableSignature) {
  const Result a = run("KALAH bench memory --min-mb 1 --max-mb 4 --reads 2000");
  const Result b = run("KALAH bench memory --min-mb 1 --max-mb 4 --reads 2000");
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  for (const char* size : {"     1 MiB:", "     2 MiB:", "     4 MiB:"})
    EXPECT_TRUE(contains(a.out, size)) << a.out;
  EXPECT_FALSE(contains(a.out, "8 MiB:")) << a.out;
  const auto sig = [](const std::string& out) { return out.substr(out.rfind("signature")); };
  EXPECT_EQ(sig(a.out), sig(b.out));
  EXPECT_NE(sig(a.out), sig(run("KALAH bench memory --min-mb 1 --max-mb 1 --reads 2000").out));
  for (const char* bad :
       {"KALAH bench memory --min-mb 0", "KALAH bench memory --min-mb 8 --max-mb 4",
        "KALAH bench memory --reads 10", "KALAH bench memory --max-mb 1000000"})
    EXPECT_EQ(run(bad).status, 2) << bad;
}

TEST(CliUsage, UnknownCommandsOptionsAndBadValuesExit2) {
  const char* bad[] = {"KALAH frobnicate",
                       "KALAH move --frob",
                       "KALAH play --depth 0",
                       "KALAH play --depth 61",
                       "KALAH play --pits 13",
                       "KALAH play --stones -1",
                       "KALAH play --first nobody",
                       "KALAH play --self --first computer",
                       "KALAH play --rules chess",
                       "KALAH play --tt-mb 0",
                       "KALAH play --time -1",
                       "KALAH play --depth x",
                       "KALAH play --position '1,2/3 S'",
                       "KALAH tree --depth 0",
                       "KALAH tree --format png",
                       "KALAH tree --rules nope",
                       "KALAH tree '0,0,0,0,0,0,10/1,2,0,0,0,3,9 S'",
                       "KALAH bench --depth 0",
                       "KALAH bench --tt-mb 0",
                       "KALAH bench --rules nope",
                       "KALAH bench nosuchworkload",
                       "KALAH bench solve --threads -1",
                       "KALAH gen --max-stones 999 --db /nonexistent/gen-refused",
                       "KALAH gen --max-stones -1 --db /nonexistent/gen-refused",
                       "KALAH"};
  for (const char* cmd : bad) {
    const Result r = run(cmd);
    EXPECT_EQ(r.status, 2) << cmd << ": " << r.out << r.err;
    EXPECT_FALSE(r.err.empty()) << cmd;
  }
}

// Boost reads "-5" as 2^64 - 5 for an unsigned option: every one refuses a negative number in
// one line naming it.
TEST(CliUsage, NegativeCountsAreRefusedNamingTheOption) {
  const std::pair<const char*, const char*> bad[] = {
      {"KALAH play --self --nodes -5", "--nodes must be >= 0, got -5"},
      {"KALAH play --self --seed -1", "--seed must be >= 0, got -1"},
      {"KALAH tree --max-nodes -3", "--max-nodes must be >= 0, got -3"},
      {"KALAH verify --seed -2 --db /nonexistent/db", "--seed must be >= 0, got -2"},
      {"KALAH verify --seed=-2 --db /nonexistent/db", "--seed must be >= 0, got -2"}};
  for (const auto& [cmd, what] : bad) {
    const Result r = run(cmd);
    EXPECT_EQ(r.status, 2) << cmd << ": " << r.out << r.err;
    EXPECT_EQ(r.out, "") << cmd;
    EXPECT_EQ(count_lines(r.err), 1) << cmd << ": " << r.err;
    EXPECT_TRUE(contains(r.err, what)) << cmd << ": " << r.err;
  }
}

// A top level with too many positions to index for the board size is refused before the database
// directory is created, naming the largest that fits; so is one that does not fit in memory.
TEST(CliUsage, GenRefusesTooLargeATableBeforeCreatingTheDatabase) {
  const std::string db = kalah::test::fresh_path("gen-index");
  for (const auto& [args, what] :
       {std::pair<std::string, std::string>{"--pits 12 --max-stones 127",
                                            "--max-stones must be 0..51 for --pits 12"},
        {"--pits 8 --max-stones 111", "--max-stones must be 0..110 for --pits 8"},
        {"--pits 12 --max-stones 51", "the largest table that fits is levels 0.."}}) {
    const Result r = run("KALAH gen " + args + " --db " + db);
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << args << ": " << r.err;
    EXPECT_TRUE(contains(r.err, what)) << args << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(db)) << args;
  }
}

// Under an address-space limit (ulimit -v), a --tt-mb beyond what it leaves is a usage error, and
// a table sized to the position that cannot be allocated is a one-line error naming --tt-mb and
// the size, not "std::bad_alloc".
TEST(CliUsage, TablesBeyondTheAddressSpaceLimitAreOneLineErrors) {
#ifdef KALAH_SANITIZE_BUILD
  GTEST_SKIP() << "the sanitizers' shadow memory needs more address space than ulimit -v allows";
#endif
  const auto limited = [](long long kib, const std::string& args) {
    return run("ulimit -v " + std::to_string(kib) + "; KALAH solve --no-db --threads 1 " + args);
  };
  constexpr long long kLimit = 400 << 10;  // KiB
  const Result big = limited(kLimit, "--stones 1 --tt-mb 100000");
  EXPECT_EQ(big.status, 2) << big.err;
  EXPECT_EQ(count_lines(big.err), 1) << big.err;
  EXPECT_TRUE(contains(big.err, "--tt-mb must be 0..")) << big.err;
  const std::string leaves = "the address-space limit, ulimit -v, leaves ";
  ASSERT_TRUE(contains(big.err, leaves)) << big.err;
  const long long left = std::stoll(big.err.substr(big.err.find(leaves) + leaves.size()));
  // A limit that leaves about 40 MiB: the 64 MiB table --tt-mb 0 gives 24 stones does not fit.
  const Result automatic = limited(kLimit - (left - 40) * 1024, "--stones 2");
  EXPECT_EQ(automatic.status, 1) << automatic.err;
  EXPECT_EQ(count_lines(automatic.err), 1) << automatic.err;
  EXPECT_TRUE(contains(automatic.err, "cannot allocate the 64 MiB table of --tt-mb"))
      << automatic.err;
  EXPECT_EQ(automatic.out, "");
}

TEST(CliUsage, EveryCommandHasHelp) {
  const Result top = run("KALAH --help");
  EXPECT_EQ(top.status, 0);
  // Every command listed by `kalah --help` (indented "  name  summary" lines).
  std::istringstream lines(top.out.substr(top.out.find("commands:")));
  std::string line;
  std::vector<std::string> names;
  std::getline(lines, line);  // the heading
  while (std::getline(lines, line) && !line.empty())
    if (line.rfind("  ", 0) == 0) names.push_back(line.substr(2, line.find(' ', 2) - 2));
  for (const char* mine : {"move", "play", "tree", "bench"})
    EXPECT_NE(std::find(names.begin(), names.end(), mine), names.end()) << mine;
  for (const auto& name : names) {
    const Result r = run("KALAH " + name + " --help");
    EXPECT_EQ(r.status, 0) << name << ": " << r.err;
    EXPECT_TRUE(contains(r.out, "usage: kalah " + name)) << name << ": " << r.out;
  }
  const Result bench = run("KALAH bench search --help");
  EXPECT_EQ(bench.status, 0);
  EXPECT_TRUE(contains(bench.out, "--depth"));
}

}  // namespace
