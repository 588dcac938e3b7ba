// A fixed pool of worker threads shared by every kernel of a session, so the
// process never runs more compute threads than the user asked for.
#pragma once

#include <atomic>
#include <condition_variable>
#include <exception>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tessera {

class ThreadPool {
 public:
  // How long a worker keeps polling for the next ParallelFor before it sleeps
  // on the condition variable, and how long the caller polls for the last
  // chunks before it sleeps. Kernels of one run come microseconds apart, and a
  // futex wake-up costs tens of microseconds on a loaded machine; the bound
  // keeps an idle session from burning a core once its run has ended.
  static constexpr int kDefaultSpinMicros = 1000;

  // num_threads counts the calling thread: 1 means no workers at all.
  // spin_micros = 0 sleeps at once (no polling).
  explicit ThreadPool(int num_threads, int spin_micros = kDefaultSpinMicros);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }
  int spin_micros() const { return spin_micros_; }

  // Calls fn(begin, end) over disjoint chunks covering [0, n). Chunks hold at
  // least min_chunk items so tiny loops stay on the calling thread. Nested calls
  // from inside a worker run inline. An exception thrown by any chunk is
  // rethrown on the calling thread once every chunk has finished.
  void ParallelFor(int64_t n, int64_t min_chunk, const std::function<void(int64_t, int64_t)>& fn);

  // True while this thread runs a chunk of some pool's ParallelFor (as a
  // worker or as the caller). Code that could start threads of its own (a
  // BLAS call) must stay single-threaded there.
  static bool InParallelRegion();

  // The pool that code on this thread may spread work over: the one named by
  // the innermost live CurrentScope, or nullptr. Libraries that take no pool
  // argument (the GEMM entry points) read it.
  static ThreadPool* Current();
  class CurrentScope {
   public:
    explicit CurrentScope(ThreadPool* pool);
    ~CurrentScope();
    CurrentScope(const CurrentScope&) = delete;
    CurrentScope& operator=(const CurrentScope&) = delete;

   private:
    ThreadPool* saved_;
  };

  // Workers that went to sleep on the condition variable since construction
  // (tests and benchmarks check that spinning is bounded).
  uint64_t sleeps() const { return sleeps_.load(std::memory_order_relaxed); }

 private:
  struct Job {
    const std::function<void(int64_t, int64_t)>* fn = nullptr;
    int64_t n = 0;
    int64_t chunk = 0;
    int64_t next = 0;          // next chunk start, guarded by mu_
    std::atomic<int> pending{0};  // chunks not yet finished; written under mu_
    std::exception_ptr error;  // first exception thrown by a chunk
  };
  void WorkerLoop();
  bool RunOneChunk(std::unique_lock<std::mutex>& lock);
  // Polls until done() or spin_micros_ have passed; true when done() held.
  template <typename Done>
  bool Spin(Done done) const;

  std::vector<std::thread> workers_;
  int spin_micros_;
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::mutex submit_mu_;  // one ParallelFor at a time uses the workers
  Job job_;
  // Bumped (under mu_) for each job that has work for the workers; they poll
  // it without the lock while spinning.
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
  std::atomic<bool> caller_sleeping_{false};
  std::atomic<uint64_t> sleeps_{0};
};

// Runs fn over [0, n) on pool when given, inline otherwise.
void ParallelFor(ThreadPool* pool, int64_t n, int64_t min_chunk,
                 const std::function<void(int64_t, int64_t)>& fn);

}  // namespace tessera
