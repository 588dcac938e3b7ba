#include "tessera/base/thread_pool.h"

#include <algorithm>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tessera {

namespace {
thread_local bool tls_in_pool_worker = false;
thread_local int tls_caller_depth = 0;  // ParallelFor jobs this thread is running as the caller
thread_local ThreadPool* tls_current = nullptr;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

struct CallerDepth {
  CallerDepth() { ++tls_caller_depth; }
  ~CallerDepth() { --tls_caller_depth; }
};
}  // namespace

bool ThreadPool::InParallelRegion() { return tls_in_pool_worker || tls_caller_depth > 0; }

ThreadPool* ThreadPool::Current() { return tls_current; }

ThreadPool::CurrentScope::CurrentScope(ThreadPool* pool) : saved_(tls_current) { tls_current = pool; }
ThreadPool::CurrentScope::~CurrentScope() { tls_current = saved_; }

ThreadPool::ThreadPool(int num_threads, int spin_micros) : spin_micros_(std::max(0, spin_micros)) {
  // With more threads than cores a poller takes the core another thread
  // needs to make progress: sleep at once then.
  unsigned cores = std::thread::hardware_concurrency();
  if (cores != 0 && num_threads > static_cast<int>(cores)) spin_micros_ = 0;
  int workers = std::max(0, num_threads - 1);
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true, std::memory_order_release);
  }
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

template <typename Done>
bool ThreadPool::Spin(Done done) const {
  if (spin_micros_ <= 0) return done();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(spin_micros_);
  for (unsigned i = 0;; ++i) {
    if (done()) return true;
    CpuRelax();
    if ((i & 63) == 63 && std::chrono::steady_clock::now() >= deadline) return done();
  }
}

bool ThreadPool::RunOneChunk(std::unique_lock<std::mutex>& lock) {
  if (job_.fn == nullptr || job_.next >= job_.n) return false;
  int64_t begin = job_.next;
  int64_t end = std::min(job_.n, begin + job_.chunk);
  job_.next = end;
  const auto* fn = job_.fn;
  lock.unlock();
  std::exception_ptr error;
  try {
    (*fn)(begin, end);
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  if (error && !job_.error) job_.error = error;
  // Release: a caller that sees zero without the lock also sees the chunk's writes.
  if (job_.pending.fetch_sub(1, std::memory_order_acq_rel) == 1 && caller_sleeping_.load(std::memory_order_relaxed))
    done_cv_.notify_all();
  return true;
}

void ThreadPool::WorkerLoop() {
  tls_in_pool_worker = true;
  uint64_t seen = 0;
  auto has_news = [&] {
    return stop_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen;
  };
  std::unique_lock<std::mutex> lock(mu_, std::defer_lock);
  while (true) {
    bool polled = Spin(has_news);
    lock.lock();
    if (!polled && !has_news()) {
      sleeps_.fetch_add(1, std::memory_order_relaxed);
      work_cv_.wait(lock, has_news);
    }
    if (stop_.load(std::memory_order_relaxed)) return;
    seen = generation_.load(std::memory_order_relaxed);  // written under mu_
    while (RunOneChunk(lock)) {
    }
    lock.unlock();
  }
}

void ThreadPool::ParallelFor(int64_t n, int64_t min_chunk,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  min_chunk = std::max<int64_t>(1, min_chunk);
  int threads = num_threads();
  if (threads == 1 || n <= min_chunk || InParallelRegion()) {
    fn(0, n);
    return;
  }
  std::unique_lock<std::mutex> submit(submit_mu_, std::try_to_lock);
  if (!submit.owns_lock()) {  // another thread is using the pool: do not wait for it
    fn(0, n);
    return;
  }
  CallerDepth depth;
  int64_t chunks = std::min<int64_t>(threads * 4, (n + min_chunk - 1) / min_chunk);
  int64_t chunk = (n + chunks - 1) / chunks;
  std::unique_lock<std::mutex> lock(mu_);
  job_.fn = &fn;
  job_.n = n;
  job_.chunk = chunk;
  job_.next = 0;
  job_.pending.store(static_cast<int>((n + chunk - 1) / chunk), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  work_cv_.notify_all();  // no system call when every worker is still polling
  while (RunOneChunk(lock)) {
  }
  auto done = [this] { return job_.pending.load(std::memory_order_acquire) == 0; };
  if (!done()) {
    lock.unlock();
    bool polled = Spin(done);
    lock.lock();
    if (!polled && !done()) {
      caller_sleeping_.store(true, std::memory_order_relaxed);
      done_cv_.wait(lock, done);
      caller_sleeping_.store(false, std::memory_order_relaxed);
    }
  }
  job_.fn = nullptr;
  std::exception_ptr error = job_.error;
  job_.error = nullptr;
  lock.unlock();
  if (error) std::rethrow_exception(error);
}

void ParallelFor(ThreadPool* pool, int64_t n, int64_t min_chunk,
                 const std::function<void(int64_t, int64_t)>& fn) {
  if (pool == nullptr) {
    if (n > 0) fn(0, n);
    return;
  }
  pool->ParallelFor(n, min_chunk, fn);
}

}  // namespace tessera
