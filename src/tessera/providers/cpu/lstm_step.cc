// Fused LSTM recurrence (see lstm_step.h). Highway compiles the block kernel
// once per x86 target and picks one at run time; the scheduling around it is
// plain C++ compiled once (HWY_ONCE).
#include "tessera/providers/cpu/lstm_step.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

#include "tessera/base/thread_pool.h"

#ifndef TESSERA_LSTM_STEP_SHARED
#define TESSERA_LSTM_STEP_SHARED
namespace tessera::cpu::lstm_detail {

// One step of the recurrence, for every batch row. Buffers are padded to
// blocks*16 units per row so whole vectors load and store.
struct StepWork {
  const float* weights = nullptr;  // LstmPackedWeights::data()
  int64_t hidden = 0;
  int64_t padded = 0;
  int64_t rows = 0;
  const float* const* gates_in = nullptr;  // per row: 4H pre-activations, or null when the row is past its length
  const float* h_prev = nullptr;           // [rows, padded]
  float* h_next = nullptr;                 // [rows, padded]
  float* c = nullptr;                      // [rows, padded], updated in place
  float* const* y = nullptr;               // per row: where this step's h goes (H floats), or null
  const float* peephole = nullptr;         // [3, padded] (i, o, f) or null
  float clip = 0.f;
  bool input_forget = false;
};

}  // namespace tessera::cpu::lstm_detail
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tessera/providers/cpu/lstm_step.cc"
#include "hwy/foreach_target.h"  // re-includes this file once per target
#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::lstm_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::CappedTag<float, static_cast<size_t>(kLstmBlockUnits)>;
using V = hn::Vec<D>;
constexpr size_t kLanes = hn::MaxLanes(D());
constexpr size_t kPerGate = static_cast<size_t>(kLstmBlockUnits) / kLanes;  // vectors per gate
constexpr size_t kGateFloats = 4 * static_cast<size_t>(kLstmBlockUnits);      // one k of a block

// Logistic function, with exp only of non-positive arguments so it cannot
// overflow.
HWY_INLINE V Sigmoid(D d, V x) {
  const V one = hn::Set(d, 1.f);
  const V e = hn::Exp(d, hn::Neg(hn::Abs(x)));
  const V r = one / (one + e);
  return hn::IfThenElse(x >= hn::Zero(d), r, e * r);
}

// Initial pre-activations of one block and row: 16 units of each gate from
// a [4H] row (zeros for a null row).
HWY_INLINE void LoadGates(const float* g, int64_t hidden, int64_t block, V (&acc)[4][kPerGate]) {
  const D d;
  const int64_t u0 = block * kLstmBlockUnits;
  const int64_t n = std::min(kLstmBlockUnits, hidden - u0);
  for (size_t gate = 0; gate < 4; ++gate) {
    if (g != nullptr && n == kLstmBlockUnits) {
      for (size_t v = 0; v < kPerGate; ++v)
        acc[gate][v] = hn::LoadU(d, g + static_cast<int64_t>(gate) * hidden + u0 + static_cast<int64_t>(v * kLanes));
      continue;
    }
    alignas(64) float tail[kLstmBlockUnits] = {};
    if (g != nullptr)
      std::memcpy(tail, g + static_cast<int64_t>(gate) * hidden + u0, static_cast<size_t>(n) * sizeof(float));
    for (size_t v = 0; v < kPerGate; ++v) acc[gate][v] = hn::Load(d, tail + v * kLanes);
  }
}

// acc[row][gate][vector] += sum over k of x[row][k] * w[k][gate][unit], for
// one packed block w (depth values of k) and kRows rows of x.
// kSets independent accumulator sets (even/odd k) hide the FMA latency when
// one row has too few accumulators to keep the FMA units busy.
template <size_t kRows, size_t kSets>
HWY_INLINE void Accumulate(const float* w, int64_t depth, const float* x, int64_t x_stride,
                           V (&acc)[kRows][4][kPerGate]) {
  const D d;
  V extra[kSets > 1 ? kRows : 1][4][kPerGate];
  if constexpr (kSets > 1)
    for (auto& row : extra)
      for (auto& gate : row)
        for (auto& v : gate) v = hn::Zero(d);
  int64_t k = 0;
  if constexpr (kSets > 1) {
    for (; k + 1 < depth; k += 2, w += 2 * kGateFloats) {
      for (size_t r = 0; r < kRows; ++r) {
        const V x0 = hn::Set(d, x[static_cast<int64_t>(r) * x_stride + k]);
        const V x1 = hn::Set(d, x[static_cast<int64_t>(r) * x_stride + k + 1]);
        for (size_t gate = 0; gate < 4; ++gate)
          for (size_t v = 0; v < kPerGate; ++v) {
            const size_t off = gate * static_cast<size_t>(kLstmBlockUnits) + v * kLanes;
            acc[r][gate][v] = hn::MulAdd(hn::Load(d, w + off), x0, acc[r][gate][v]);
            extra[r][gate][v] = hn::MulAdd(hn::Load(d, w + kGateFloats + off), x1, extra[r][gate][v]);
          }
      }
    }
  }
  for (; k < depth; ++k, w += kGateFloats) {
    for (size_t r = 0; r < kRows; ++r) {
      const V xk = hn::Set(d, x[static_cast<int64_t>(r) * x_stride + k]);
      for (size_t gate = 0; gate < 4; ++gate)
        for (size_t v = 0; v < kPerGate; ++v)
          acc[r][gate][v] =
              hn::MulAdd(hn::Load(d, w + gate * static_cast<size_t>(kLstmBlockUnits) + v * kLanes), xk, acc[r][gate][v]);
    }
  }
  if constexpr (kSets > 1)
    for (size_t r = 0; r < kRows; ++r)
      for (size_t gate = 0; gate < 4; ++gate)
        for (size_t v = 0; v < kPerGate; ++v) acc[r][gate][v] = acc[r][gate][v] + extra[r][gate][v];
}

// Gate arithmetic of one block for one row, then the new c and h.
HWY_INLINE void ApplyGates(const StepWork& s, int64_t block, int64_t row, V (&acc)[4][kPerGate]) {
  const D d;
  const int64_t u0 = block * kLstmBlockUnits;
  const float* h_prev = s.h_prev + row * s.padded + u0;
  float* h_next = s.h_next + row * s.padded + u0;
  if (s.gates_in[row] == nullptr) {  // past this row's length: state unchanged
    std::memcpy(h_next, h_prev, kLstmBlockUnits * sizeof(float));
    return;
  }
  const bool clip = s.clip > 0.f;
  const V hi = hn::Set(d, s.clip), lo = hn::Set(d, -s.clip), one = hn::Set(d, 1.f);
  auto clipped = [&](V x) { return clip ? hn::Min(hn::Max(x, lo), hi) : x; };
  float* c = s.c + row * s.padded + u0;
  for (size_t v = 0; v < kPerGate; ++v) {
    const size_t off = v * kLanes;
    const V c_prev = hn::LoadU(d, c + off);
    V i = acc[0][v], o = acc[1][v], f = acc[2][v];
    if (s.peephole != nullptr) {
      i = hn::MulAdd(hn::LoadU(d, s.peephole + u0 + static_cast<int64_t>(off)), c_prev, i);
      f = hn::MulAdd(hn::LoadU(d, s.peephole + 2 * s.padded + u0 + static_cast<int64_t>(off)), c_prev, f);
    }
    i = Sigmoid(d, clipped(i));
    f = s.input_forget ? one - i : Sigmoid(d, clipped(f));
    const V g = hn::Tanh(d, clipped(acc[3][v]));
    const V c_new = hn::MulAdd(f, c_prev, i * g);
    if (s.peephole != nullptr)
      o = hn::MulAdd(hn::LoadU(d, s.peephole + s.padded + u0 + static_cast<int64_t>(off)), c_new, o);
    o = Sigmoid(d, clipped(o));
    hn::StoreU(c_new, d, c + off);
    hn::StoreU(o * hn::Tanh(d, c_new), d, h_next + off);
  }
  if (float* y = s.y[row]) {
    const int64_t n = std::min(kLstmBlockUnits, s.hidden - u0);
    std::memcpy(y + u0, h_next, static_cast<size_t>(n) * sizeof(float));
  }
}

template <size_t kRows, size_t kSets>
HWY_INLINE void BlockRows(const StepWork& s, int64_t block, int64_t row0) {
  V acc[kRows][4][kPerGate];
  for (size_t r = 0; r < kRows; ++r) LoadGates(s.gates_in[row0 + static_cast<int64_t>(r)], s.hidden, block, acc[r]);
  Accumulate<kRows, kSets>(s.weights + block * s.hidden * static_cast<int64_t>(kGateFloats), s.hidden,
                           s.h_prev + row0 * s.padded, s.padded, acc);
  for (size_t r = 0; r < kRows; ++r) ApplyGates(s, block, row0 + static_cast<int64_t>(r), acc[r]);
}

// Blocks [begin, end) of one step. With wide vectors four rows share each
// weight load (larger batches); one row alone uses two accumulator sets.
void StepBlocks(const StepWork& s, int64_t begin, int64_t end) {
  constexpr size_t kWideRows = kPerGate == 1 ? 4 : 1;
  for (int64_t block = begin; block < end; ++block) {
    int64_t row = 0;
    if constexpr (kWideRows > 1)
      for (; row + static_cast<int64_t>(kWideRows) <= s.rows; row += static_cast<int64_t>(kWideRows))
        BlockRows<kWideRows, 1>(s, block, row);
    for (; row < s.rows; ++row) BlockRows<1, (kPerGate <= 2 ? 2 : 1)>(s, block, row);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::cpu::lstm_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::cpu {
namespace lstm_detail {
HWY_EXPORT(StepBlocks);

// Steps are split into one chunk of blocks per thread. Thread p claims chunk
// p of each step, so its R rows stay in its cache. A chunk whose thread has
// not shown up yet is taken by whoever is there, so a run finishes even when
// fewer threads take part (the pool may give both chunks to one thread).
// Once every thread is in, none takes another's chunk: a thread that would
// otherwise do all the work never blocks, and a partner sharing its core
// (placed there when woken) would then never run, nor be moved to the idle
// core, for the whole sequence.
class StepSchedule {
 public:
  StepSchedule(int64_t steps, int64_t chunks) : steps_(steps), chunks_(chunks), claimed_(static_cast<size_t>(chunks)) {
    for (auto& c : claimed_) c.store(-1, std::memory_order_relaxed);
  }

  template <typename Work>
  void Participate(int64_t preferred, const Work& work) {
    arrived_.fetch_add(1, std::memory_order_acq_rel);
    for (int64_t step = 0; step < steps_; ++step) {
      WaitFor(step * chunks_);  // every chunk of the previous step is done
      for (int64_t j = 0; j < chunks_; ++j) {
        if (j > 0 && arrived_.load(std::memory_order_acquire) >= chunks_) break;  // everyone does their own
        const int64_t chunk = (preferred + j) % chunks_;
        int64_t expected = step - 1;
        if (!claimed_[static_cast<size_t>(chunk)].compare_exchange_strong(expected, step, std::memory_order_acq_rel))
          continue;
        work(step, chunk);
        done_.fetch_add(1, std::memory_order_acq_rel);
        done_.notify_all();
      }
    }
  }

 private:
  // The wait is usually one chunk's compute (microseconds): spin first, then
  // block, which also lets the scheduler move a partner sharing this core.
  void WaitFor(int64_t target) const {
    for (int spins = 0; spins < 4096; ++spins) {
      if (done_.load(std::memory_order_acquire) >= target) return;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    for (int64_t seen = done_.load(std::memory_order_acquire); seen < target;
         seen = done_.load(std::memory_order_acquire))
      done_.wait(seen, std::memory_order_acquire);
  }

  const int64_t steps_;
  const int64_t chunks_;
  std::vector<std::atomic<int64_t>> claimed_;  // last step each chunk was claimed for
  std::atomic<int64_t> done_{0};              // chunks finished, over all steps
  std::atomic<int64_t> arrived_{0};           // threads that have entered Participate
};

// Threads worth using: each needs enough of R per step to pay for the
// per-step hand-off (about 64K multiply-adds).
int64_t ChunksFor(const LstmSequence& seq, ThreadPool* pool) {
  if (pool == nullptr || ThreadPool::InParallelRegion()) return 1;
  const int64_t h = seq.r->hidden();
  const int64_t work = 4 * h * h * std::max<int64_t>(seq.batch, 1);
  return std::clamp<int64_t>(work / 65536, 1, std::min<int64_t>(pool->num_threads(), seq.r->blocks()));
}

}  // namespace lstm_detail

// Dispatch names the kernels unqualified: with a single compiled target
// (aarch64 builds NEON alone) HWY_DYNAMIC_DISPATCH becomes a static call
// that puts the target's namespace in front of the name it is given.
using namespace lstm_detail;  // NOLINT(google-build-using-namespace)

void LstmPackedWeights::Free::operator()(float* p) const { std::free(p); }

LstmPackedWeights::LstmPackedWeights(const float* m, int64_t hidden, int64_t depth)
    : hidden_(hidden), depth_(depth), blocks_((hidden + kLstmBlockUnits - 1) / kLstmBlockUnits) {
  const int64_t per_block = depth * 4 * kLstmBlockUnits;
  size_t bytes = static_cast<size_t>(blocks_ * per_block) * sizeof(float);
  bytes = (bytes + 63) / 64 * 64;  // aligned_alloc wants a multiple of the alignment
  data_.reset(static_cast<float*>(std::aligned_alloc(64, std::max<size_t>(bytes, 64))));
  if (!data_) throw std::bad_alloc();
  std::memset(data_.get(), 0, bytes);
  // Source rows are read in order; a block's writes stay within its own
  // slice (cache-sized).
  for (int64_t b = 0; b < blocks_; ++b) {
    float* block = data_.get() + b * per_block;
    for (int64_t gate = 0; gate < 4; ++gate)
      for (int64_t u = 0; u < kLstmBlockUnits && b * kLstmBlockUnits + u < hidden; ++u) {
        const float* src = m + (gate * hidden + b * kLstmBlockUnits + u) * depth;
        float* dst = block + gate * kLstmBlockUnits + u;
        for (int64_t k = 0; k < depth; ++k) dst[k * 4 * kLstmBlockUnits] = src[k];
      }
  }
}

void RunLstmSequence(const LstmSequence& seq, ThreadPool* pool) {
  using lstm_detail::StepWork;
  const int64_t H = seq.r->hidden();
  const int64_t padded = seq.r->blocks() * kLstmBlockUnits;
  const int64_t rows = seq.batch;
  if (rows == 0 || seq.seq_len == 0) return;

  // Padded copies of the state (h double-buffered: a step reads one copy
  // while its blocks write the other) and of the peepholes.
  std::vector<float> h_buf(static_cast<size_t>(2 * rows * padded), 0.f);
  std::vector<float> c_buf(static_cast<size_t>(rows * padded), 0.f);
  for (int64_t b = 0; b < rows; ++b) {
    std::memcpy(h_buf.data() + b * padded, seq.h + b * H, static_cast<size_t>(H) * sizeof(float));
    std::memcpy(c_buf.data() + b * padded, seq.c + b * H, static_cast<size_t>(H) * sizeof(float));
  }
  std::vector<float> peep;
  if (seq.peephole != nullptr) {
    peep.assign(static_cast<size_t>(3 * padded), 0.f);
    for (int64_t g = 0; g < 3; ++g)
      std::memcpy(peep.data() + g * padded, seq.peephole + g * H, static_cast<size_t>(H) * sizeof(float));
  }

  // Per step and row: where its pre-activations are and where Y goes.
  const int64_t G4 = 4 * H;
  std::vector<const float*> gates(static_cast<size_t>(seq.seq_len * rows), nullptr);
  std::vector<float*> ys(static_cast<size_t>(seq.seq_len * rows), nullptr);
  for (int64_t s = 0; s < seq.seq_len; ++s)
    for (int64_t b = 0; b < rows; ++b) {
      const int64_t len = seq.lens[b];
      if (s >= len) continue;
      const int64_t t = seq.reverse ? len - 1 - s : s;
      gates[static_cast<size_t>(s * rows + b)] = seq.gates_in + (t * rows + b) * G4;
      if (seq.y != nullptr) ys[static_cast<size_t>(s * rows + b)] = seq.y + t * seq.y_time_stride + b * H;
    }

  auto step_work = [&](int64_t s) {
    StepWork w;
    w.weights = seq.r->data();
    w.hidden = H;
    w.padded = padded;
    w.rows = rows;
    w.gates_in = gates.data() + s * rows;
    w.h_prev = h_buf.data() + (s % 2) * rows * padded;
    w.h_next = h_buf.data() + ((s + 1) % 2) * rows * padded;
    w.c = c_buf.data();
    w.y = ys.data() + s * rows;
    w.peephole = peep.empty() ? nullptr : peep.data();
    w.clip = seq.clip;
    w.input_forget = seq.input_forget;
    return w;
  };
  auto step_blocks = [](const StepWork& w, int64_t begin, int64_t end) {
    HWY_DYNAMIC_DISPATCH(StepBlocks)(w, begin, end);
  };
  const int64_t chunks = lstm_detail::ChunksFor(seq, pool);
  const int64_t blocks = seq.r->blocks();
  if (chunks == 1) {
    for (int64_t s = 0; s < seq.seq_len; ++s) step_blocks(step_work(s), 0, blocks);
  } else {
    lstm_detail::StepSchedule schedule(seq.seq_len, chunks);
    pool->ParallelFor(chunks, 1, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p)
        schedule.Participate(p, [&](int64_t s, int64_t chunk) {
          step_blocks(step_work(s), chunk * blocks / chunks, (chunk + 1) * blocks / chunks);
        });
    });
  }

  const float* h_final = h_buf.data() + (seq.seq_len % 2) * rows * padded;
  for (int64_t b = 0; b < rows; ++b) {
    std::memcpy(seq.h + b * H, h_final + b * padded, static_cast<size_t>(H) * sizeof(float));
    std::memcpy(seq.c + b * H, c_buf.data() + b * padded, static_cast<size_t>(H) * sizeof(float));
  }
}

}  // namespace tessera::cpu
#endif  // HWY_ONCE
