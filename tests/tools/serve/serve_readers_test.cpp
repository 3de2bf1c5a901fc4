// kalah serve frees the database's reader slots that killed processes left, every
// ServerOptions::reader_check_seconds while it serves.
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "kalah/kalah.hpp"
#include "tests/support/lmdb_readers.hpp"
#include "tools/serve/web_server.hpp"

namespace kalah::serve {
namespace {

// Two readers killed while the database is open here; the server runs 2.5 s checking every
// `interval` seconds; then the slots this process can still free.
std::size_t stale_after_serving(int interval) {
  test::TempDir dir("serve_readers");
  test::small_database(dir.str());
  const api::Database db(dir.str());
  test::kill_all(test::start_readers(dir.str(), 2, true));
  ServerOptions options;
  options.connections = 2;
  options.reader_check_seconds = interval;
  WebServer server(db, options);
  server.bind("127.0.0.1", 0);
  std::thread serving([&] { server.listen(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  server.stop();
  serving.join();
  return db.clear_stale_readers();
}

TEST(ServeReaders, TheServerFreesTheSlotsOfKilledReaders) {
  EXPECT_EQ(stale_after_serving(1), 0u) << "the server checked every second";
  EXPECT_EQ(stale_after_serving(3600), 2u) << "no check within the 2.5 s";
}

}  // namespace
}  // namespace kalah::serve
