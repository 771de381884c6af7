// start_thread_elsewhere: a new thread begins on another CPU than its parent's, then may run anywhere.
#include "common/thread_pool.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <vector>

namespace banjia {
namespace {

// Whether sched_getcpu reports the CPU this thread is pinned to, for each CPU in `all` (a sandbox
// kernel may not place threads by affinity, or may not report where they run).
bool reports_pinned_cpus(const cpu_set_t& all) {
  bool reports = true;
  for (int cpu = 0; cpu < CPU_SETSIZE && reports; ++cpu) {
    if (!CPU_ISSET(cpu, &all)) continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    reports = pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0 && sched_getcpu() == cpu;
  }
  pthread_setaffinity_np(pthread_self(), sizeof all, &all);
  return reports;
}

TEST(StartThreadElsewhere, BeginsOnAnotherCpuAndKeepsTheWholeSet) {
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  if (CPU_COUNT(&all) < 2) GTEST_SKIP() << "needs two CPUs";
  if (!reports_pinned_cpus(all)) GTEST_SKIP() << "this kernel does not report the CPU a pinned thread runs on";
  // The caller's CPU is known only when it did not move during the call: try until it did not.
  // Where the thread starts is looked at while it is still held there: once it runs fn, the
  // scheduler may move it anywhere, back to the caller's CPU too (it did on a loaded CI machine).
  for (int attempt = 0; attempt < 50; ++attempt) {
    int started_on = -1;
    cpu_set_t start_set, thread_set;
    CPU_ZERO(&start_set);
    CPU_ZERO(&thread_set);
    bool ran = false;
    const int before = sched_getcpu();
    std::jthread t = detail::start_thread_elsewhere(
        [&] {
          ran = true;
          pthread_getaffinity_np(pthread_self(), sizeof thread_set, &thread_set);
        },
        [&] {
          started_on = sched_getcpu();
          pthread_getaffinity_np(pthread_self(), sizeof start_set, &start_set);
        });
    const int after = sched_getcpu();
    t.join();
    if (before != after) continue;
    ASSERT_TRUE(ran);
    EXPECT_FALSE(CPU_ISSET(before, &start_set));  // held off the caller's CPU...
    EXPECT_EQ(CPU_COUNT(&start_set), CPU_COUNT(&all) - 1);  // ...and only off that one
    EXPECT_TRUE(CPU_ISSET(started_on, &start_set));
    EXPECT_TRUE(CPU_EQUAL(&thread_set, &all));  // the start restriction is lifted before fn
    return;
  }
  GTEST_SKIP() << "the calling thread moved between CPUs in every attempt";
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
