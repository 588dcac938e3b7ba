// The memory planner: host buffers for graph runs, reused by liveness.
//
// While a graph executes, its thread allocates tensors from a MemoryArena
// (installed as the thread's BufferSource). A buffer whose last reader has
// run (CompiledGraph releases it there) goes back to the arena's free list
// and the next allocation of a fitting size takes it again, so a run touches
// a working set of blocks that persists across runs instead of calling
// malloc/free per node per run (large mallocs are fresh mmaps, page-faulted
// on every run). An elementwise node may also write its output straight
// into an input buffer that dies at that node (OfferDonor).
//
// The blocks an arena holds after a run are the "pattern" for the input
// shapes it ran with: ArenaPool keeps idle arenas tagged by that shape
// signature and hands a run the arena whose pattern matches, at most
// max_idle of them; each concurrent run holds its own arena.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "tessera/ir/tensor.h"

namespace tessera {

// Totals over all arenas of one pool (and, from CompiledGraph, its subgraphs).
struct MemoryPlanStats {
  int64_t arenas = 0;            // created so far
  int64_t idle_arenas = 0;       // cached patterns, now
  int64_t bytes_held = 0;        // all blocks, free or lent, now
  int64_t peak_bytes_held = 0;   // the most bytes_held ever reached
  int64_t blocks_created = 0;    // fresh allocations
  int64_t blocks_reused = 0;     // allocations served from a free list
  int64_t in_place = 0;          // outputs written into a dying input's buffer
  int64_t blocks_trimmed = 0;    // free blocks released because a run did not need them
};

// Counters shared by the arenas of one pool.
struct ArenaCounters {
  std::atomic<int64_t> arenas{0}, bytes_held{0}, peak_bytes_held{0}, blocks_created{0}, blocks_reused{0},
      in_place{0}, blocks_trimmed{0};
  void AddHeld(int64_t delta);
};

class MemoryArena final : public BufferSource, public std::enable_shared_from_this<MemoryArena> {
 public:
  explicit MemoryArena(std::shared_ptr<ArenaCounters> counters);
  ~MemoryArena() override;
  MemoryArena(const MemoryArena&) = delete;
  MemoryArena& operator=(const MemoryArena&) = delete;

  std::shared_ptr<TensorBuffer> Take(size_t bytes) override;
  // The next Take of exactly donor->bytes() returns the donor itself (until
  // ClearDonor): the runtime offers the buffer of an input that dies at an
  // elementwise node, whose kernel allocates nothing but that output.
  void OfferDonor(std::shared_ptr<TensorBuffer> donor);
  void ClearDonor();
  // Ends a run: free blocks that no allocation of the run took are
  // released, so the arena keeps the working set of its latest run only.
  void EndRun();

  // Blocks in the free lists, and all blocks the arena owns.
  size_t free_blocks() const;
  int64_t bytes_held() const;

 private:
  struct FreeBlock {
    void* data;
    uint64_t generation;  // the run during which it came back
  };
  void Return(void* data, size_t size);

  std::shared_ptr<ArenaCounters> counters_;
  mutable std::mutex mu_;
  std::multimap<size_t, FreeBlock> free_;  // by block size
  uint64_t generation_ = 0;
  int64_t held_ = 0;
  std::shared_ptr<TensorBuffer> donor_;  // touched only by the run's thread
};

class ArenaPool {
 public:
  explicit ArenaPool(size_t max_idle) : max_idle_(max_idle == 0 ? 1 : max_idle) {}

  // An arena for a run with these input shapes: the idle one that last ran
  // them, else the least recently used idle one once max_idle are cached,
  // else a new one.
  std::shared_ptr<MemoryArena> Acquire(const std::string& signature);
  // Ends the arena's run and caches it (dropping the least recently used
  // beyond max_idle).
  void Release(std::shared_ptr<MemoryArena> arena, const std::string& signature);

  MemoryPlanStats Stats() const;
  size_t max_idle() const { return max_idle_; }

 private:
  size_t max_idle_;
  std::shared_ptr<ArenaCounters> counters_ = std::make_shared<ArenaCounters>();
  mutable std::mutex mu_;
  std::list<std::pair<std::string, std::shared_ptr<MemoryArena>>> idle_;  // most recently used first
};

}  // namespace tessera
