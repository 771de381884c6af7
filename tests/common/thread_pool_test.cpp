// start_thread_elsewhere: a new thread begins on another CPU than its parent's, then may run anywhere.
#include "common/thread_pool.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <vector>

namespace banjia {
namespace {

TEST(StartThreadElsewhere, BeginsOnAnotherCpuAndKeepsTheWholeSet) {
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  if (CPU_COUNT(&all) < 2) GTEST_SKIP() << "needs two CPUs";
  // The parent's CPU is known only when it did not move during the call: try until it did not.
  for (int attempt = 0; attempt < 50; ++attempt) {
    int started_on = -1;
    cpu_set_t thread_set;
    CPU_ZERO(&thread_set);
    const int before = sched_getcpu();
    std::jthread t = start_thread_elsewhere([&] {
      started_on = sched_getcpu();
      pthread_getaffinity_np(pthread_self(), sizeof thread_set, &thread_set);
    });
    const int after = sched_getcpu();
    t.join();
    if (before != after) continue;
    EXPECT_NE(started_on, before);
    EXPECT_NE(started_on, -1);
    EXPECT_TRUE(CPU_EQUAL(&thread_set, &all));  // the start restriction is lifted
    return;
  }
  GTEST_SKIP() << "the parent thread moved between CPUs in every attempt";
}

TEST(StartThreadElsewhere, RunsTheFunctionWithOneCpuToo) {
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);
  // The process may use every CPU, but this thread only its own: the new one inherits that set.
  std::atomic<int> ran{0};
  { std::jthread t = start_thread_elsewhere([&] { ran = 1; }); }
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof all, &all), 0);
  EXPECT_EQ(ran.load(), 1);
}

TEST(ParallelFor, VisitsEveryIndexOnce) {
  std::vector<std::atomic<int>> seen(1000);
  parallel_for(seen.size(), 4, [&](size_t i) { seen[i].fetch_add(1); });
  for (const auto& s : seen) EXPECT_EQ(s.load(), 1);
}

}  // namespace
}  // namespace banjia
