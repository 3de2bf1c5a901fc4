// kalah serve's search admission (tools/serve/search_admission.*): never more searches than its
// slots, never more than a client's share, every slot back when its ticket goes.
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tools/serve/search_admission.hpp"

namespace kalah::serve {
namespace {

TEST(SearchAdmission, RefusesBeyondTheSlotsAndTheClientsShare) {
  SearchAdmission admission(3, 2);
  auto a1 = admission.admit("a");
  auto a2 = admission.admit("a");
  ASSERT_TRUE(a1 && a2);
  EXPECT_FALSE(admission.admit("a")) << "a third search of a client with a share of 2";
  auto b1 = admission.admit("b");
  ASSERT_TRUE(b1);
  EXPECT_FALSE(admission.admit("c")) << "every slot taken";
  EXPECT_EQ(admission.running(), 3);
  a1.reset();
  EXPECT_EQ(admission.running(), 2);
  EXPECT_TRUE(admission.admit("c")) << "a slot given back is free again";
  EXPECT_EQ(admission.running(), 2) << "the ticket of the admitted temporary is gone";
  b1->release();
  EXPECT_EQ(admission.running(), 1) << "release() gives the slot back before the ticket ends";
  b1->release();
  b1.reset();
  EXPECT_EQ(admission.running(), 1) << "a slot is given back once";
  EXPECT_THROW(SearchAdmission(2, 3), std::invalid_argument);
  EXPECT_THROW(SearchAdmission(0, 0), std::invalid_argument);
}

TEST(SearchAdmission, ManyThreadsNeverExceedTheLimits) {
  SearchAdmission admission(4, 2);
  std::atomic<int> running{0}, most{0}, admitted{0};
  std::atomic<int> by_client[3] = {0, 0, 0};
  std::atomic<bool> over_share{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      const int client = t % 3;
      for (int i = 0; i < 20000; ++i) {
        if (auto ticket = admission.admit(std::to_string(client))) {
          ++admitted;
          const int now = ++running;
          for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
          }
          if (++by_client[client] > 2) over_share = true;
          --by_client[client];
          --running;
        }
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_LE(most.load(), 4);
  EXPECT_FALSE(over_share.load());
  EXPECT_GT(admitted.load(), 0);
  EXPECT_EQ(admission.running(), 0);
}

}  // namespace
}  // namespace kalah::serve
