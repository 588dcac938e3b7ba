// Cost of one ParallelFor with little work per chunk (16 items of ~1 us): the pool's
// hand-off latency, polled (the default) against sleeping on the condition
// variable at once. Kernels of a model issue thousands of such calls per run.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tessera/base/thread_pool.h"

namespace tessera {
namespace {

// About a microsecond of arithmetic per item, so every thread gets chunks.
int64_t Work(int64_t b, int64_t e) {
  uint64_t x = static_cast<uint64_t>(b) + 1;
  for (int64_t i = b; i < e; ++i)
    for (int j = 0; j < 300; ++j) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      benchmark::DoNotOptimize(x);  // keeps the chain serial: GCC would fold it
    }
  return static_cast<int64_t>(x & 1);
}

void BM_PoolParallelFor(benchmark::State& state) {
  ThreadPool pool(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  std::atomic<int64_t> sink{0};
  for (auto _ : state) pool.ParallelFor(16, 1, [&](int64_t b, int64_t e) { sink += Work(b, e); });
  benchmark::DoNotOptimize(sink.load());
}
BENCHMARK(BM_PoolParallelFor)->ArgNames({"threads", "spin_us"})->Args({2, 0})->Args({2, 50})->UseRealTime();

// A gap of serial work between calls, as between two kernels: polling
// bridges gaps shorter than the spin, longer ones pay the wake-up.
void BM_PoolParallelForAfterGap(benchmark::State& state) {
  ThreadPool pool(2, static_cast<int>(state.range(0)));
  auto gap = std::chrono::microseconds(state.range(1));
  std::atomic<int64_t> sink{0};
  for (auto _ : state) {
    auto until = std::chrono::steady_clock::now() + gap;
    while (std::chrono::steady_clock::now() < until) {
    }
    pool.ParallelFor(16, 1, [&](int64_t b, int64_t e) { sink += Work(b, e); });
  }
  benchmark::DoNotOptimize(sink.load());
}
BENCHMARK(BM_PoolParallelForAfterGap)
    ->ArgNames({"spin_us", "gap_us"})
    ->Args({0, 10})
    ->Args({50, 10})
    ->Args({0, 200})
    ->Args({50, 200})
    ->UseRealTime();

}  // namespace
}  // namespace tessera
