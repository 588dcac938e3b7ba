// A fixed pool of worker threads shared by every kernel of a session, so the
// process never runs more compute threads than the user asked for.
#pragma once

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
  // num_threads counts the calling thread: 1 means no workers at all.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(begin, end) over disjoint chunks covering [0, n). Chunks hold at
  // least min_chunk items so tiny loops stay on the calling thread. Nested calls
  // from inside a worker run inline. An exception thrown by any chunk is
  // rethrown on the calling thread once every chunk has finished.
  void ParallelFor(int64_t n, int64_t min_chunk, const std::function<void(int64_t, int64_t)>& fn);

 private:
  struct Job {
    const std::function<void(int64_t, int64_t)>* fn = nullptr;
    int64_t n = 0;
    int64_t chunk = 0;
    int64_t next = 0;      // next chunk start, guarded by mu_
    int pending = 0;       // chunks not yet finished
    uint64_t generation = 0;
    std::exception_ptr error;  // first exception thrown by a chunk
  };
  void WorkerLoop();
  bool RunOneChunk(std::unique_lock<std::mutex>& lock);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::mutex submit_mu_;  // one ParallelFor at a time uses the workers
  Job job_;
  bool stop_ = false;
};

// Runs fn over [0, n) on pool when given, inline otherwise.
void ParallelFor(ThreadPool* pool, int64_t n, int64_t min_chunk,
                 const std::function<void(int64_t, int64_t)>& fn);

}  // namespace tessera
