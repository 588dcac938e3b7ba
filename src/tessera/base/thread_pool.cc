#include "tessera/base/thread_pool.h"

#include <algorithm>

namespace tessera {

namespace {
thread_local bool tls_in_pool_worker = false;
}

ThreadPool::ThreadPool(int num_threads) {
  int workers = std::max(0, num_threads - 1);
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
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
  if (--job_.pending == 0) done_cv_.notify_all();
  return true;
}

void ThreadPool::WorkerLoop() {
  tls_in_pool_worker = true;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    work_cv_.wait(lock, [this] { return stop_ || (job_.fn != nullptr && job_.next < job_.n); });
    if (stop_) return;
    RunOneChunk(lock);
  }
}

void ThreadPool::ParallelFor(int64_t n, int64_t min_chunk,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  min_chunk = std::max<int64_t>(1, min_chunk);
  int threads = num_threads();
  if (threads == 1 || n <= min_chunk || tls_in_pool_worker) {
    fn(0, n);
    return;
  }
  std::unique_lock<std::mutex> submit(submit_mu_, std::try_to_lock);
  if (!submit.owns_lock()) {  // another thread is using the pool: do not wait for it
    fn(0, n);
    return;
  }
  int64_t chunks = std::min<int64_t>(threads * 4, (n + min_chunk - 1) / min_chunk);
  int64_t chunk = (n + chunks - 1) / chunks;
  std::unique_lock<std::mutex> lock(mu_);
  job_.fn = &fn;
  job_.n = n;
  job_.chunk = chunk;
  job_.next = 0;
  job_.pending = static_cast<int>((n + chunk - 1) / chunk);
  ++job_.generation;
  work_cv_.notify_all();
  while (RunOneChunk(lock)) {
  }
  done_cv_.wait(lock, [this] { return job_.pending == 0; });
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
