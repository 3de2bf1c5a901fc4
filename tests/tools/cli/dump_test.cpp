// `kalah dump`: every record of a small build decoded, text and JSON agreeing, two builds the same
// without their build identities, damaged and missing databases one line and exit 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/cli_run.hpp"
#include "tests/support/old_format.hpp"

namespace {

using kalah::test::contains;
using kalah::test::count_lines;
using Result = kalah::test::CliResult;
using Json = nlohmann::json;

constexpr int kLevels = 14;  // kalah m=4 levels 0..14: levels 13 and 14 have two blocks each

Result kalah(const std::string& args) {
  return kalah::test::run_cli("KALAH " + args);
}

std::uint64_t choose(int n, int k) {
  std::uint64_t c = 1;
  for (int i = 1; i <= k; ++i) c = c * std::uint64_t(n - k + i) / std::uint64_t(i);
  return c;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// A text line's fields: "type" and each name=value ("blocks.J.name" inside the J-th [...]).
std::map<std::string, std::string> text_fields(const std::string& line) {
  std::map<std::string, std::string> f;
  std::istringstream in(line);
  std::string word;
  in >> f["type"];
  int block = -1;
  while (in >> word) {
    const bool opens = word.front() == '[', closes = word.back() == ']';
    if (opens) ++block, word.erase(0, 1);
    if (closes) word.pop_back();
    const std::size_t eq = word.find('=');
    EXPECT_NE(eq, std::string::npos) << line;
    const std::string name = word.substr(0, eq);
    f[(opens || block >= 0 ? "blocks." + std::to_string(block) + "." : "") + name] =
        word.substr(eq + 1);
  }
  return f;
}

// A JSON record's fields as the text prints them: strings as they are, other values as JSON.
std::map<std::string, std::string> json_fields(const Json& record) {
  std::map<std::string, std::string> f;
  for (const auto& [name, value] : record.items()) {
    if (name == "blocks" && value.is_array()) {
      for (std::size_t j = 0; j < value.size(); ++j)
        for (const auto& [bname, bvalue] : value[j].items())
          f["blocks." + std::to_string(j) + "." + bname] =
              bvalue.is_string() ? bvalue.get<std::string>() : bvalue.dump();
    } else {
      f[name] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  }
  return f;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Flips a bit of every copy in data.mdb of the 8 bytes of `hex` (16 hex digits) read as a
// little-endian number, as stored: the live record and any old copy on a free page. Returns how
// many it flipped.
int flip_stored(const std::string& db, const std::string& hex) {
  const std::uint64_t v = std::stoull(hex, nullptr, 16);
  std::string bytes;
  for (int i = 0; i < 8; ++i) bytes += char(std::uint8_t(v >> (8 * i)));
  const std::filesystem::path file = std::filesystem::path(db) / "data.mdb";
  std::string data = read_file(file);
  int flipped = 0;
  for (std::size_t at = data.find(bytes); at != std::string::npos; at = data.find(bytes, at + 8)) {
    data[at] = char(data[at] ^ 0x01);
    ++flipped;
  }
  std::ofstream(file, std::ios::binary | std::ios::trunc) << data;
  return flipped;
}

// Two builds of the kalah m=4 table of levels 0..14, each with the same five-position book.
class Dump : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (std::string*& db : dbs_) {
      db = new std::string(kalah::test::fresh_path("dump_db"));
      const Result gen = kalah("gen --rules kalah --pits 4 --max-stones " +
                               std::to_string(kLevels) + " --threads 1 --quiet --db " + *db);
      ASSERT_EQ(gen.status, 0) << gen.err;
      const Result book = kalah(
          "solve --rules kalah --pits 4 --stones 3 --book --book-plies 1 --threads 1 --db " + *db);
      ASSERT_EQ(book.status, 0) << book.err;
    }
  }
  static void TearDownTestSuite() {
    for (std::string*& db : dbs_) {
      std::filesystem::remove_all(*db);
      delete db;
      db = nullptr;
    }
  }
  static const std::string& db(int i) { return *dbs_[i]; }

  // A copy of the first build, for damage.
  static std::string copy() {
    const std::string to = kalah::test::fresh_path("dump_copy");
    std::filesystem::copy(db(0), to, std::filesystem::copy_options::recursive);
    std::filesystem::remove(std::filesystem::path(to) / "lock.mdb");
    return to;
  }

 private:
  static std::string* dbs_[2];
};
std::string* Dump::dbs_[2] = {nullptr, nullptr};

TEST_F(Dump, ListsEveryRecordWithItsCounts) {
  const Result r = kalah("dump --db " + db(0));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::vector<std::string> lines = lines_of(r.out);
  // The header, the table, 15 level records, 15 group records (one group a level), 5 entries.
  ASSERT_EQ(lines.size(), 1u + 1 + 15 + 15 + 5) << r.out;
  EXPECT_EQ(lines[0], "header key=00 bytes=16 version=3");
  EXPECT_EQ(lines[1], "table key=010104 bytes=8 rules=kalah m=4 version=3 complete_through=14");
  for (int n = 0; n <= kLevels; ++n) {
    auto f = text_fields(lines[std::size_t(2 + n)]);
    EXPECT_EQ(f["type"], "level");
    EXPECT_EQ(f["n"], std::to_string(n));
    EXPECT_EQ(f["rules"], "kalah");
    EXPECT_EQ(f["m"], "4");
    EXPECT_EQ(f["entries"], std::to_string(choose(n + 7, 7))) << "level " << n;
    EXPECT_EQ(f["blocks"], std::to_string((choose(n + 7, 7) + 65535) / 65536)) << "level " << n;
    EXPECT_EQ(f["complete"], "true");
    EXPECT_EQ(f["version"], "3");
    EXPECT_EQ(f["build"].size(), 16u);
    EXPECT_EQ(f["record_checksum"].size(), 16u);

    auto g = text_fields(lines[std::size_t(2 + 15 + n)]);
    EXPECT_EQ(g["type"], "group");
    EXPECT_EQ(g["n"], std::to_string(n));
    EXPECT_EQ(g["group"], "0");
    EXPECT_EQ(g["bytes"], f["stored_bytes"]) << "one group holds the level";
    // The blocks' entries add up to the level's, each block's offset follows the one before.
    std::uint64_t entries = 0, end = 0;
    const int blocks = std::stoi(f["blocks"]);
    EXPECT_EQ(g["count"], f["blocks"]);
    for (int j = 0; j < blocks; ++j) {
      const std::string b = "blocks." + std::to_string(j) + ".";
      EXPECT_EQ(g[b + "block"], std::to_string(j));
      EXPECT_EQ(g[b + "codec"], "1");
      EXPECT_EQ(g[b + "checksum"].size(), 16u);
      const std::uint64_t offset = std::stoull(g[b + "offset"]);
      // The first block starts after the offset table, each next one where the last ended.
      EXPECT_EQ(offset, j == 0 ? 8u + 4u * std::uint64_t(blocks + 1) : end);
      end = offset + std::stoull(g[b + "bytes"]);
      entries += std::stoull(g[b + "entries"]);
    }
    EXPECT_EQ(std::to_string(end), g["bytes"]);
    EXPECT_EQ(std::to_string(entries), f["entries"]);
  }
  for (std::size_t i = 2 + 30; i < lines.size(); ++i) {
    auto b = text_fields(lines[i]);
    EXPECT_EQ(b["type"], "book");
    EXPECT_EQ(b["checked"], "true");
    EXPECT_EQ(std::count(b["pits"].begin(), b["pits"].end(), ','), 7) << lines[i];
  }
  EXPECT_TRUE(contains(r.out,
                       "book key=04010400030003000300030003000300030003 bytes=10 "
                       "rules=kalah m=4 pits=3,3,3,3,3,3,3,3 margin=6 checked=true"))
      << "the start position's entry, worth 6 (kalah solve)";
}

TEST_F(Dump, JsonAgreesWithTheText) {
  for (const std::string options : {"", " --without-builds"}) {
    const Result text = kalah("dump --db " + db(0) + options);
    const Result json = kalah("dump --json --db " + db(0) + options);
    ASSERT_EQ(text.status, 0) << text.err;
    ASSERT_EQ(json.status, 0) << json.err;
    EXPECT_EQ(count_lines(json.out), 1);
    const Json doc = Json::parse(json.out);
    EXPECT_EQ(doc.at("database"), db(0));
    const std::vector<std::string> lines = lines_of(text.out);
    ASSERT_EQ(doc.at("records").size(), lines.size());
    for (std::size_t i = 0; i < lines.size(); ++i)
      EXPECT_EQ(json_fields(doc["records"][i]), text_fields(lines[i])) << lines[i];
    EXPECT_EQ(doc["records"][2].at("entries").get<std::uint64_t>(), 1u);
    EXPECT_EQ(doc["records"][2].at("complete").get<bool>(), true);
  }
}

TEST_F(Dump, TwoBuildsDifferOnlyInTheirBuilds) {
  const Result a = kalah("dump --db " + db(0)), b = kalah("dump --db " + db(1));
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_NE(a.out, b.out) << "each build has an identity of its own";
  const Result ua = kalah("dump --without-builds --db " + db(0));
  const Result ub = kalah("dump --without-builds --db " + db(1));
  ASSERT_EQ(ua.status, 0) << ua.err;
  EXPECT_EQ(ua.out, ub.out);
  EXPECT_EQ(count_lines(ua.out), count_lines(a.out));
  // Exactly the fields bound to the build went: each level's build and record checksum, each
  // block's first checksum.
  const std::vector<std::string> plain = lines_of(a.out), unbound = lines_of(ua.out);
  ASSERT_EQ(plain.size(), unbound.size());
  int levels = 0, blocks = 0;
  for (std::size_t i = 0; i < plain.size(); ++i) {
    auto f = text_fields(plain[i]);
    const auto u = text_fields(unbound[i]);
    for (auto it = f.begin(); it != f.end();) {
      const bool bound = it->first == "build" || it->first == "record_checksum" ||
                         (it->first.starts_with("blocks.") && it->first.ends_with(".checksum"));
      levels += it->first == "build";
      blocks += bound && it->first.starts_with("blocks.");
      it = bound ? f.erase(it) : std::next(it);
    }
    EXPECT_EQ(f, u) << plain[i] << "\n" << unbound[i];
  }
  EXPECT_EQ(levels, kLevels + 1);
  EXPECT_EQ(blocks, kLevels + 3) << "levels 13 and 14 have two blocks each";
  EXPECT_TRUE(contains(ua.out, "content_checksum=")) << ua.out;
}

TEST_F(Dump, ADamagedLevelRecordIsOneLineAndExitOne) {
  const std::string damaged = copy();
  const Json doc = Json::parse(kalah("dump --json --db " + damaged).out);
  const Json& level = doc["records"][2 + 10];
  ASSERT_EQ(level.at("n"), 10);
  ASSERT_GE(flip_stored(damaged, level.at("record_checksum")), 1);
  const Result r = kalah("dump --db " + damaged);
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err, "kalah dump: error: " + damaged +
                       ": record 0201040a (level record of kalah m=4 level 10): corrupt level "
                       "record\n");
  EXPECT_EQ(count_lines(r.out), 2 + 10) << "the records before it";
  const Result j = kalah("dump --json --db " + damaged);
  EXPECT_EQ(j.status, 1);
  EXPECT_EQ(j.out, "") << "no partial JSON document";
  EXPECT_EQ(j.err, r.err);
  std::filesystem::remove_all(damaged);
}

TEST_F(Dump, ADamagedBlockIsOneLineNamingItsRecordAndBlock) {
  const std::string damaged = copy();
  const Json doc = Json::parse(kalah("dump --json --db " + damaged).out);
  const Json& group = doc["records"][2 + 15 + kLevels];
  ASSERT_EQ(group.at("n"), kLevels);
  ASSERT_GE(flip_stored(damaged, group["blocks"][1].at("checksum")), 1);
  const Result r = kalah("dump --without-builds --db " + damaged);
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_TRUE(contains(r.err, damaged + ": record 0301040e00000000 (block 1 of kalah m=4 level "
                                        "14): corrupt or misplaced block"))
      << r.err;
}

// A table of format 2 (tests/data/format2-kalah-m3.dump): 48-byte level records without a build
// or record checksum, blocks whose first checksum covers their bytes alone.
TEST(DumpFormat2, LevelsWithoutBuildsAndUnboundBlocks) {
  const std::string db = kalah::test::fresh_path("dump_format2");
  kalah::test::load_dump(db, std::string(KALAH_VECTORS_DIR) + "/format2-kalah-m3.dump");
  const Result r = kalah("dump --json --db " + db);
  ASSERT_EQ(r.status, 0) << r.err;
  int levels = 0, blocks = 0;
  const Json doc = Json::parse(r.out);
  for (const Json& record : doc.at("records")) {
    if (record.at("type") == "header") {
      EXPECT_EQ(record.at("version"), 2);
    }
    if (record.at("type") == "level") {
      ++levels;
      EXPECT_EQ(record.at("bytes"), 48);
      EXPECT_EQ(record.at("version"), 2);
      EXPECT_FALSE(record.contains("build")) << record;
      EXPECT_FALSE(record.contains("record_checksum")) << record;
    }
    if (record.at("type") == "group") {
      for (const Json& block : record.at("blocks")) {
        ++blocks;
        EXPECT_EQ(block.at("checksum"), block.at("content_checksum")) << block;
      }
    }
  }
  EXPECT_EQ(levels, 11);
  EXPECT_EQ(blocks, 11);
  std::filesystem::remove_all(db);
}

TEST(DumpErrors, MissingDatabaseAndUnknownOption) {
  const std::string missing = kalah::test::fresh_path("dump_missing");
  Result r = kalah("dump --db " + missing);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_TRUE(contains(r.err, "no database at " + missing)) << r.err;
  EXPECT_FALSE(std::filesystem::exists(missing)) << "dump creates nothing";
  r = kalah("dump --frobnicate --db " + missing);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_TRUE(contains(r.err, "--frobnicate")) << r.err;
}

}  // namespace
