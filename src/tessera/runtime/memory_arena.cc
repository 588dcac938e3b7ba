#include "tessera/runtime/memory_arena.h"

#include <cstdlib>
#include <iterator>
#include <new>
#include <utility>

namespace tessera {

namespace {

constexpr size_t kAlignment = 64;

size_t RoundUp(size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace

void ArenaCounters::AddHeld(int64_t delta) {
  int64_t now = bytes_held.fetch_add(delta) + delta;
  int64_t peak = peak_bytes_held.load();
  while (now > peak && !peak_bytes_held.compare_exchange_weak(peak, now)) {
  }
}

MemoryArena::MemoryArena(std::shared_ptr<ArenaCounters> counters) : counters_(std::move(counters)) {
  counters_->arenas.fetch_add(1);
}

MemoryArena::~MemoryArena() {
  // Lent blocks hold the arena alive, so only free ones are left here.
  for (auto& [size, block] : free_) {
    std::free(block.data);
    held_ -= static_cast<int64_t>(size);
    counters_->AddHeld(-static_cast<int64_t>(size));
  }
}

std::shared_ptr<TensorBuffer> MemoryArena::Take(size_t bytes) {
  if (donor_ && donor_->bytes() == bytes) {
    counters_->in_place.fetch_add(1);
    return std::exchange(donor_, nullptr);
  }
  size_t need = RoundUp(bytes);
  void* data = nullptr;
  size_t size = need;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Best fit, wasting at most an eighth of the block.
    auto it = free_.lower_bound(need);
    if (it != free_.end() && it->first <= need + need / 8) {
      size = it->first;
      data = it->second.data;
      free_.erase(it);
    } else {
      // Nothing fits. Free blocks that cannot serve this request would make
      // the arena outgrow the run's live peak (graphs whose sizes keep
      // changing, like DenseNet's growing concats and shrinking
      // transitions): give about as many bytes back first, from the
      // largest smaller block down, then from the smallest larger one up.
      size_t released = 0;
      auto drop = [&](std::multimap<size_t, FreeBlock>::iterator victim) {
        std::free(victim->second.data);
        released += victim->first;
        held_ -= static_cast<int64_t>(victim->first);
        counters_->AddHeld(-static_cast<int64_t>(victim->first));
        counters_->blocks_trimmed.fetch_add(1);
        return free_.erase(victim);
      };
      while (released < need && it != free_.begin()) it = drop(std::prev(it));
      auto larger = free_.lower_bound(need);
      while (released < need && larger != free_.end()) larger = drop(larger);
    }
  }
  if (data != nullptr) {
    counters_->blocks_reused.fetch_add(1);
  } else {
    data = std::aligned_alloc(kAlignment, need);
    if (data == nullptr) throw std::bad_alloc();
    {
      std::lock_guard<std::mutex> lock(mu_);
      held_ += static_cast<int64_t>(need);
    }
    counters_->blocks_created.fetch_add(1);
    counters_->AddHeld(static_cast<int64_t>(need));
  }
  // The returner owns nothing but the way back: its deleter files the block
  // in this arena's free list (keeping the arena alive until then).
  std::shared_ptr<const void> returner(data, [arena = shared_from_this(), size](const void* p) {
    arena->Return(const_cast<void*>(p), size);
  });
  return TensorBuffer::FromPool(data, bytes, std::move(returner));
}

void MemoryArena::Return(void* data, size_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.emplace(size, FreeBlock{data, generation_});
}

void MemoryArena::OfferDonor(std::shared_ptr<TensorBuffer> donor) { donor_ = std::move(donor); }

void MemoryArena::ClearDonor() { donor_.reset(); }

void MemoryArena::EndRun() {
  donor_.reset();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = free_.begin(); it != free_.end();) {
    if (it->second.generation < generation_) {
      std::free(it->second.data);
      held_ -= static_cast<int64_t>(it->first);
      counters_->AddHeld(-static_cast<int64_t>(it->first));
      counters_->blocks_trimmed.fetch_add(1);
      it = free_.erase(it);
    } else {
      ++it;
    }
  }
  ++generation_;
}

size_t MemoryArena::free_blocks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return free_.size();
}

int64_t MemoryArena::bytes_held() const {
  std::lock_guard<std::mutex> lock(mu_);
  return held_;
}

std::shared_ptr<MemoryArena> ArenaPool::Acquire(const std::string& signature) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = idle_.begin(); it != idle_.end(); ++it) {
    if (it->first == signature) {
      auto arena = std::move(it->second);
      idle_.erase(it);
      return arena;
    }
  }
  if (!idle_.empty() && idle_.size() >= max_idle_) {
    auto arena = std::move(idle_.back().second);
    idle_.pop_back();
    return arena;
  }
  return std::make_shared<MemoryArena>(counters_);
}

void ArenaPool::Release(std::shared_ptr<MemoryArena> arena, const std::string& signature) {
  arena->EndRun();
  std::shared_ptr<MemoryArena> dropped;  // freed outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  idle_.emplace_front(signature, std::move(arena));
  if (idle_.size() > max_idle_) {
    dropped = std::move(idle_.back().second);
    idle_.pop_back();
  }
}

MemoryPlanStats ArenaPool::Stats() const {
  MemoryPlanStats s;
  s.arenas = counters_->arenas.load();
  s.bytes_held = counters_->bytes_held.load();
  s.peak_bytes_held = counters_->peak_bytes_held.load();
  s.blocks_created = counters_->blocks_created.load();
  s.blocks_reused = counters_->blocks_reused.load();
  s.in_place = counters_->in_place.load();
  s.blocks_trimmed = counters_->blocks_trimmed.load();
  std::lock_guard<std::mutex> lock(mu_);
  s.idle_arenas = static_cast<int64_t>(idle_.size());
  return s;
}

}  // namespace tessera
