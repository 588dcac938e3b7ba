// The pool's bounded polling: correctness under many short jobs, nesting and
// exceptions, and that idle workers do go to sleep once the spin ends.
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tessera/base/thread_pool.h"

namespace tessera {
namespace {

// Each pool tried with polling off, the default, and a long spin.
class ThreadPoolSpin : public ::testing::TestWithParam<int> {};

// Roughly a microsecond of serial arithmetic, so workers get chunks too.
uint64_t Busy(uint64_t x) {
  for (int j = 0; j < 400; ++j) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    asm volatile("" : "+r"(x));
  }
  return x;
}

TEST_P(ThreadPoolSpin, ManyShortJobsEachCoverTheirRange) {
  ThreadPool pool(3, GetParam());
  std::vector<int> hits(64);
  std::atomic<int> worker_chunks{0};
  std::atomic<uint64_t> sink{0};
  const auto caller = std::this_thread::get_id();
  for (int rep = 0; rep < 2000; ++rep) {
    pool.ParallelFor(64, 1, [&](int64_t b, int64_t e) {
      if (std::this_thread::get_id() != caller) worker_chunks++;
      for (int64_t i = b; i < e; ++i) {
        hits[static_cast<size_t>(i)]++;  // chunks are disjoint
        sink += Busy(static_cast<uint64_t>(i));
      }
    });
  }
  for (int h : hits) EXPECT_EQ(h, 2000);
  // Over ~0.1 s of jobs the workers must have taken part, polled or woken.
  if (std::thread::hardware_concurrency() >= 2) {
    EXPECT_GT(worker_chunks.load(), 0);
  }
}

TEST_P(ThreadPoolSpin, NestedCallsFromWorkersAndCallerRunInline) {
  ThreadPool pool(3, GetParam());
  std::atomic<int64_t> total{0};
  std::atomic<int> nested_in_region{0};
  for (int rep = 0; rep < 200; ++rep) {
    pool.ParallelFor(12, 1, [&](int64_t b, int64_t e) {
      EXPECT_TRUE(ThreadPool::InParallelRegion());
      for (int64_t i = b; i < e; ++i)
        pool.ParallelFor(100, 1, [&](int64_t b2, int64_t e2) {
          if (ThreadPool::InParallelRegion()) nested_in_region++;
          total += e2 - b2;
        });
    });
  }
  EXPECT_EQ(total.load(), 200 * 12 * 100);
  // Inline: one call per nested ParallelFor, never split.
  EXPECT_EQ(nested_in_region.load(), 200 * 12);
  EXPECT_FALSE(ThreadPool::InParallelRegion());
}

TEST_P(ThreadPoolSpin, ExceptionsInShortJobsReachTheCallerEveryTime) {
  ThreadPool pool(2, GetParam());
  for (int rep = 0; rep < 300; ++rep) {
    int64_t bad = rep % 40;
    EXPECT_THROW(pool.ParallelFor(40, 1,
                                  [&](int64_t b, int64_t e) {
                                    for (int64_t i = b; i < e; ++i)
                                      if (i == bad) throw std::runtime_error("bad");
                                  }),
                 std::runtime_error);
    std::atomic<int64_t> sum{0};
    pool.ParallelFor(40, 1, [&](int64_t b, int64_t e) { sum += e - b; });
    ASSERT_EQ(sum.load(), 40);
  }
}

INSTANTIATE_TEST_SUITE_P(SpinMicros, ThreadPoolSpin, ::testing::Values(0, ThreadPool::kDefaultSpinMicros, 2000));

TEST(ThreadPoolSpinBound, IdleWorkersSleepAfterTheSpin) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core: the pool never polls";
  ThreadPool pool(2, 200);
  ASSERT_EQ(pool.spin_micros(), 200);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  auto wait_for_sleeps_above = [&](uint64_t n) {
    while (pool.sleeps() <= n && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  // The idle worker first goes to sleep; the count is read then, before the
  // job: read after it, a caller descheduled for longer than the worker's
  // 200 us poll (ctest on two busy cores) would miss that sleep.
  wait_for_sleeps_above(0);
  const uint64_t slept_before = pool.sleeps();
  std::atomic<int> sum{0};
  pool.ParallelFor(8, 1, [&](int64_t b, int64_t e) { sum += static_cast<int>(e - b); });
  EXPECT_EQ(sum.load(), 8);
  // The job wakes the worker; it polls for 200 us after it, then must block
  // on the condition variable again rather than keep spinning.
  wait_for_sleeps_above(slept_before);
  EXPECT_GT(pool.sleeps(), slept_before);
}

TEST(ThreadPoolSpinBound, NoPollingWhenThreadsExceedCores) {
  unsigned cores = std::thread::hardware_concurrency();
  if (cores == 0) GTEST_SKIP() << "core count unknown";
  ThreadPool pool(static_cast<int>(cores) + 1, 500);
  EXPECT_EQ(pool.spin_micros(), 0);
  std::atomic<int64_t> sum{0};
  pool.ParallelFor(1000, 1, [&](int64_t b, int64_t e) { sum += e - b; });
  EXPECT_EQ(sum.load(), 1000);
}

TEST(ThreadPoolCurrent, ScopesNestAndRestore) {
  ThreadPool a(1), b(1);
  EXPECT_EQ(ThreadPool::Current(), nullptr);
  {
    ThreadPool::CurrentScope sa(&a);
    EXPECT_EQ(ThreadPool::Current(), &a);
    {
      ThreadPool::CurrentScope sb(&b);
      EXPECT_EQ(ThreadPool::Current(), &b);
    }
    EXPECT_EQ(ThreadPool::Current(), &a);
    // Another thread has its own current pool.
    std::thread([] { EXPECT_EQ(ThreadPool::Current(), nullptr); }).join();
  }
  EXPECT_EQ(ThreadPool::Current(), nullptr);
}

}  // namespace
}  // namespace tessera
