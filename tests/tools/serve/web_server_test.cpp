// kalah serve's server in this process: its pieces (the query string, Accept-Encoding, log text)
// and the whole server on a loopback port with concurrent clients, refusals, idle connections and
// a stop with a stream under way (also under ThreadSanitizer: kalah_thread_tests).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "kalah/kalah.hpp"
#include "tools/serve/http_api.hpp"
#include "tools/serve/request_log.hpp"
#include "tools/serve/routes.hpp"
#include "tools/serve/web_server.hpp"

namespace kalah::serve {
namespace {

TEST(QueryString, DecodesFormEncodingAndRefusesBrokenEscapes) {
  const QueryParams p = parse_query_string("a=1+2&b=%2C%2f&&c&a=x%00y");
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p.count("a"), 2u);
  EXPECT_EQ(p.find("b")->second, ",/");
  EXPECT_EQ(p.find("c")->second, "");
  auto [lo, hi] = p.equal_range("a");
  EXPECT_EQ(lo->second, "1 2");
  EXPECT_EQ(std::next(lo)->second, std::string("x\0y", 3));
  EXPECT_THROW(parse_query_string("position=%zz"), InputError);
  EXPECT_THROW(parse_query_string("position=%4"), InputError);
  const std::string text = "4,0,0,0,11/1,2,0,3,3 N&=%+\xff";
  const QueryParams back = parse_query_string("k=" + encode_query_component(text));
  EXPECT_EQ(back.find("k")->second, text);
}

TEST(AcceptEncoding, GzipUnlessRefused) {
  EXPECT_TRUE(accepts_gzip("gzip, deflate, br"));
  EXPECT_TRUE(accepts_gzip("br;q=1.0, GZIP;q=0.5"));
  EXPECT_TRUE(accepts_gzip("*"));
  EXPECT_FALSE(accepts_gzip("gzip;q=0"));
  EXPECT_FALSE(accepts_gzip("gzip;q=0.000, *"));
  EXPECT_FALSE(accepts_gzip("identity"));
  EXPECT_FALSE(accepts_gzip(""));
}

TEST(LogText, EscapesEveryControlByteAndCuts) {
  EXPECT_EQ(log_text("/x\nkalah serve: \x1b[31m\"\\", 100),
            "/x\\x0Akalah serve: \\x1B[31m\\x22\\x5C");
  EXPECT_EQ(log_text("abcdef", 3), "abc...");
  EXPECT_EQ(log_text("\xff", 8), "\\xFF");
}

// A reply read whole: the status and everything after the header.
struct Raw {
  int status = 0;
  std::string head, body;
};

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(std::uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{30, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

// Sends `request` on a connection of its own and reads until the server closes it.
Raw round_trip(int port, const std::string& request) {
  Raw r;
  const int fd = connect_to(port);
  if (fd < 0) return r;
  (void)::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string data;
  char buf[8192];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) data.append(buf, std::size_t(n));
  ::close(fd);
  const std::size_t end = data.find("\r\n\r\n");
  if (data.rfind("HTTP/1.1 ", 0) != 0 || end == std::string::npos) return r;
  r.status = std::stoi(data.substr(9, 3));
  r.head = data.substr(0, end);
  r.body = data.substr(end + 4);
  return r;
}

Raw get(int port, const std::string& target) {
  return round_trip(port, "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
}

// A server over a database without tables (every query a search) on a free loopback port.
class Served : public ::testing::Test {
 protected:
  void start(int connections, int searches) {
    options_.connections = connections;
    options_.searches = options_.searches_per_client = searches;
    options_.max_time = 30;
    server_ = std::make_unique<WebServer>(db_, options_);
    port_ = server_->bind("127.0.0.1", 0);
    serving_ = std::thread([this] { server_->listen(); });
  }
  void TearDown() override {
    if (server_) server_->stop();
    if (serving_.joinable()) serving_.join();
  }

  api::Database db_;
  ServerOptions options_;
  std::unique_ptr<WebServer> server_;
  int port_ = 0;
  std::thread serving_;
};

const char* const kPosition = "2,1,0,0/1,2,1,0 S";  // 3 pits a side, searched at once

TEST_F(Served, ConcurrentClientsGetTheLibrarysAnswers) {
  start(12, 6);  // a search slot for each client
  const std::string want = db_.query("kalah", kPosition).to_json();
  const std::string target =
      "/api/v1/query?rules=kalah&position=" + encode_query_component(kPosition);
  std::atomic<int> right = 0;
  std::vector<std::thread> clients;
  for (int c = 0; c < 6; ++c)
    clients.emplace_back([&, c] {
      for (int i = 0; i < 10; ++i) {
        if ((i + c) % 3 == 0) {
          const Raw r = get(
              port_, "/api/v1/analyze?rules=kalah&position=" + encode_query_component(kPosition));
          right += r.status == 200 && r.body.find("event: done") != std::string::npos;
        } else {
          const Raw r = get(port_, (i + c) % 3 == 1 ? target : "/api/v1/health");
          right += r.status == 200 && ((i + c) % 3 != 1 || r.body == want);
        }
      }
    });
  for (auto& t : clients) t.join();
  EXPECT_EQ(right, 60);
}

TEST_F(Served, RefusalsNameTheLimitAndCloseTheConnection) {
  start(2, 1);
  std::string many = "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n";
  for (std::size_t i = 0; i <= HttpLimits::kHeaderFields; ++i)
    many += "X-" + std::to_string(i) + ": v\r\n";
  const Raw fields = round_trip(port_, many + "\r\n");  // no Connection: close: the server closes
  EXPECT_EQ(fields.status, 431);
  EXPECT_NE(fields.body.find("header fields"), std::string::npos);
  const Raw big =
      round_trip(port_, "GET /" + std::string(HttpLimits::kHeaderBytes, 'a') + " HTTP/1.1\r\n\r\n");
  EXPECT_EQ(big.status, 431);
  const Raw body =
      round_trip(port_, "GET /api/v1/health HTTP/1.1\r\nContent-Length: 100000000\r\n\r\nxx");
  EXPECT_EQ(body.status, 413);
  const Raw put = round_trip(port_, "PUT / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc");
  EXPECT_EQ(put.status, 405);
  EXPECT_NE(put.head.find("Allow: GET, HEAD, OPTIONS"), std::string::npos);
  EXPECT_EQ(round_trip(port_, "GARBAGE\r\n\r\n").status, 400);
  // Overlapping ranges: the page once, whole.
  const Raw page = get(port_, "/");
  std::string ranges = "bytes=0-";
  for (int i = 0; i < 500; ++i) ranges += ",0-";
  const Raw ranged =
      round_trip(port_, "GET / HTTP/1.1\r\nRange: " + ranges + "\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(ranged.status, 200);
  EXPECT_EQ(ranged.body, page.body);
}

TEST_F(Served, IdleConnectionsHoldNoWorker) {
  start(2, 1);
  std::vector<int> idle;
  for (int i = 0; i < 50; ++i) idle.push_back(connect_to(port_));
  const Raw r =
      get(port_, "/api/v1/query?rules=kalah&position=" + encode_query_component(kPosition));
  EXPECT_EQ(r.status, 200);
  for (int fd : idle) ::close(fd);
}

TEST_F(Served, StopAnswersTheStreamUnderWay) {
  start(2, 1);
  Raw streamed;
  // The 6-pit start takes longer than the test: the stream runs until the stop ends its search.
  std::thread client([&] {
    streamed = get(port_, "/api/v1/analyze?rules=kalah&max_time=1&position=" +
                              encode_query_component("4,4,4,4,4,4,0/4,4,4,4,4,4,0 S"));
  });
  bool running = false;
  for (int i = 0; i < 500 && !running; ++i) {
    running = get(port_, "/api/v1/health").body.find("\"running\":1") != std::string::npos;
    if (!running) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  server_->stop();
  client.join();
  serving_.join();
  EXPECT_TRUE(running) << "the stream's search never started before the stop";
  EXPECT_EQ(streamed.status, 200);
  EXPECT_NE(streamed.body.find("event: done"), std::string::npos);
}

}  // namespace
}  // namespace kalah::serve
