// A solve job's pieces below the command line (the TT's size, the checkpoint's base) and a file
// written whole or not at all.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "engine/position.hpp"
#include "solver/exhaustive/solve.hpp"
#include "solver/session/solve_session.hpp"
#include "solver/session/whole_file.hpp"

namespace kalah {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct SolveSessionFiles : ::testing::Test {
  fs::path dir =
      fs::temp_directory_path() /
      ("kalah_session_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
       ::testing::UnitTest::GetInstance()->current_test_info()->name());
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
};

TEST_F(SolveSessionFiles, AFileIsReplacedWholeAndNoTemporaryIsLeft) {
  const fs::path path = dir / "certificate.json";
  write_file_whole(path.string(), "first\n");
  write_file_whole(path.string(), "second, longer\n");
  EXPECT_EQ(read_all(path), "second, longer\n");
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
}

TEST_F(SolveSessionFiles, AFailedRenameNamesThePathLeavesItAsItWasAndNoTemporary) {
  // A directory in the way: the temporary file is written, its rename over the path fails.
  const fs::path path = dir / "certificate.json";
  fs::create_directories(path);
  write_file_whole((path / "inside").string(), "kept\n");
  try {
    write_file_whole(path.string(), "lost\n");
    ADD_FAILURE() << "a file renamed over a directory";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(path));
  EXPECT_EQ(read_all(path / "inside"), "kept\n");
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
}

TEST_F(SolveSessionFiles, AFailedOpenNamesThePath) {
  const fs::path missing = dir / "no-such-dir" / "c.json";
  try {
    write_file_whole(missing.string(), "x");
    ADD_FAILURE() << "a write into a missing directory succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(missing.parent_path()));
}

TEST(SolveSession, TtSizeIsTtMbWhenGivenElseSizedToThePosition) {
  SolveJob job;
  job.rules = Rules::kKalah;
  job.position = start_position(6, 4);
  job.tt_mb = 64;
  EXPECT_EQ(solve_tt_bytes(job, job.position, nullptr), std::size_t(64) << 20);
  job.tt_mb = 0;
  EXPECT_EQ(solve_tt_bytes(job, job.position, nullptr), auto_tt_bytes(job.position, -1, false));
}

TEST(SolveSession, CheckpointBaseKeepsWhatWasProvenAndTakesThisRunsSize) {
  SolveJob job;
  job.rules = Rules::kKalah;
  job.position = start_position(6, 3);
  const SolveCheckpoint fresh = checkpoint_base(job, std::nullopt, 1 << 20, 3);
  EXPECT_EQ(fresh.tt_bytes, std::size_t(1) << 20);
  EXPECT_EQ(fresh.processes, 3);
  SolveCheckpoint from = fresh;
  from.proven.lower = 2;
  from.proven.upper = 6;
  const SolveCheckpoint resumed = checkpoint_base(job, from, 2 << 20, 1);
  EXPECT_EQ(resumed.proven.lower, 2);
  EXPECT_EQ(resumed.proven.upper, 6);
  EXPECT_EQ(resumed.tt_bytes, std::size_t(2) << 20);
  EXPECT_EQ(resumed.processes, 1);
}

}  // namespace
}  // namespace kalah
