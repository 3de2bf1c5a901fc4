// KGP lines and boards (tools/kgp/kgp_protocol.*): what a server may send parses as the protocol's
// grammar says, what breaks it is refused with a reason, and replies are written as KGP reads them.
#include "tools/kgp/kgp_protocol.hpp"
#include "tools/kgp/kgp_socket.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kalah::kgp {
namespace {

TEST(KgpProtocol, ParsesIdsReferencesNamesAndArguments) {
  Command c = parse_line("kgp 1 0 1\r\n");
  EXPECT_FALSE(c.id);
  EXPECT_FALSE(c.ref);
  EXPECT_EQ(c.name, "kgp");
  EXPECT_EQ(c.args, (std::vector<std::string>{"1", "0", "1"}));
  EXPECT_TRUE(supported_version(c));
  EXPECT_FALSE(supported_version(parse_line("kgp 2 0 0")));
  EXPECT_THROW(supported_version(parse_line("kgp x")), ProtocolError);

  c = parse_line("4 state <3,0,0,3,3,3,3,3,3>");
  EXPECT_EQ(c.id, 4u);
  EXPECT_FALSE(c.ref);
  EXPECT_EQ(c.name, "state");
  EXPECT_EQ(c.args, (std::vector<std::string>{"<3,0,0,3,3,3,3,3,3>"}));

  c = parse_line("  6@4   stop ");
  EXPECT_EQ(c.id, 6u);
  EXPECT_EQ(c.ref, 4u);
  EXPECT_EQ(c.name, "stop");
  EXPECT_TRUE(c.args.empty());

  c = parse_line("@8 move 3");
  EXPECT_FALSE(c.id);
  EXPECT_EQ(c.ref, 8u);
  EXPECT_EQ(c.args, (std::vector<std::string>{"3"}));

  c = parse_line(R"(set info:comment "say \"hi\"\tand \\ more" -1 +2.5 .5 word-x)");
  EXPECT_EQ(c.args, (std::vector<std::string>{"info:comment", "say \"hi\"\tand \\ more", "-1",
                                              "+2.5", ".5", "word-x"}));
  c = parse_line(R"(error "line\nbreak")");
  EXPECT_EQ(c.args, (std::vector<std::string>{"line\nbreak"}));
}

TEST(KgpProtocol, RefusesWhatBreaksTheGrammar) {
  for (const char* bad : {"", "   ", "st@te <1,0,0,1,1>", "4@ state", "4@x state",
                          "99999999999999999999 ping", "ping <1,,2>", "ping <1,2", "ping a;b",
                          "say \"open", "set a \"b\"c", "state <a,b>", "\x01ping"}) {
    EXPECT_THROW(parse_line(bad), ProtocolError) << bad;
  }
  EXPECT_THROW(parse_line(std::string(kMaxLineLength + 1, 'a')), ProtocolError);
  EXPECT_NO_THROW(parse_line(std::string(1000, 'a')));
}

TEST(KgpProtocol, BoardIsSouthToMoveWithBothSidesFromTheirOwnLeft) {
  const Position p = parse_board("<3,10,2,1,2,3,4,2,0>");
  EXPECT_EQ(to_string(p), "1,2,3,10/4,2,0,2 S");
  EXPECT_EQ(format_board(p), "<3,10,2,1,2,3,4,2,0>");
  Position q = p;
  q.flip();  // South's side first whoever is to move
  EXPECT_EQ(format_board(q), "<3,10,2,1,2,3,4,2,0>");
  const Position big = parse_board("<12,0,0,1,2,3,4,5,6,7,8,9,10,11,12,0,0,0,0,0,0,0,0,0,0,0,9>");
  EXPECT_EQ(big.m, 12);
  EXPECT_EQ(big.own_pit(11), 12);
  EXPECT_EQ(big.opp_pit(11), 9);
}

TEST(KgpProtocol, RefusesBoardsTheEngineCannotPlay) {
  for (const char* bad :
       {"<0,0,0>", "<13,0,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1>", "<3,0,0,1,1,1,1,1>",
        "<3,0,0,1,1,1,1,1,1,1>", "<3,0,0,1,1,1,1,1,70000>", "<3,0,0,1,1,1,1,1,-1>", "<3 ,0>",
        "3,0,0,1,1,1,1,1,1", "<>", "<99999,0,0>"}) {
    EXPECT_THROW(parse_board(bad), ProtocolError) << bad;
  }
}

TEST(KgpProtocol, FormatsRepliesAsTheServerReadsThem) {
  EXPECT_EQ(format_line(std::nullopt, 4, "move", {"3"}), "@4 move 3");
  EXPECT_EQ(format_line(std::nullopt, std::nullopt, "yield"), "yield");
  EXPECT_EQ(format_line(7, 5, "pong"), "7@5 pong");
  EXPECT_EQ(format_line(std::nullopt, std::nullopt, "set", {"info:name", "kalah"}),
            "set info:name kalah");
  EXPECT_EQ(format_line(std::nullopt, 2, "set", {"info:comment", "depth 3, \"x\""}),
            R"(@2 set info:comment "depth 3, \"x\"")");
  // What format_line writes, parse_line reads back.
  const Command c = parse_line(format_line(9, 1, "set", {"a:b", "two words\nand a line"}));
  EXPECT_EQ(c.id, 9u);
  EXPECT_EQ(c.ref, 1u);
  EXPECT_EQ(c.args, (std::vector<std::string>{"a:b", "two words\nand a line"}));
}

TEST(LineReader, LinesAcrossChunksCrLfAndOverlongLinesReportedOnce) {
  LineReader r;
  std::string line;
  const std::string first = "4 state <1,0,0,1,1>\r\nmo";
  r.append(first.data(), first.size());
  ASSERT_EQ(r.next(line), LineReader::Got::kLine);
  EXPECT_EQ(line, "4 state <1,0,0,1,1>");
  EXPECT_EQ(r.next(line), LineReader::Got::kNone);  // "mo" waits for its end
  const std::string rest = "ve 1\n";
  r.append(rest.data(), rest.size());
  ASSERT_EQ(r.next(line), LineReader::Got::kLine);
  EXPECT_EQ(line, "move 1");
  // A line of 1 MB, in chunks: never held whole, one kOverlong at its end, then the next line.
  const std::string chunk(65536, 'x');
  for (int i = 0; i < 16; ++i) {
    r.append(chunk.data(), chunk.size());
    EXPECT_EQ(r.next(line), LineReader::Got::kNone);
  }
  const std::string end = "xx\nyield\n";
  r.append(end.data(), end.size());
  EXPECT_EQ(r.next(line), LineReader::Got::kOverlong);
  ASSERT_EQ(r.next(line), LineReader::Got::kLine);
  EXPECT_EQ(line, "yield");
  EXPECT_EQ(r.next(line), LineReader::Got::kNone);
  // One line just over the limit, arriving whole, is overlong too.
  const std::string whole = std::string(kMaxLineLength + 1, 'y') + "\n";
  r.append(whole.data(), whole.size());
  EXPECT_EQ(r.next(line), LineReader::Got::kOverlong);
}

}  // namespace
}  // namespace kalah::kgp
