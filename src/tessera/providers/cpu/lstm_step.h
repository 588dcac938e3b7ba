// The fused LSTM recurrence for float LSTMs with the default activations
// (Sigmoid, Tanh, Tanh) and a constant R: each step streams R once, in a
// layout packed at session creation, and applies the gates while the
// pre-activations are still in registers. Vectorized with Highway and
// dispatched at run time (AVX-512, AVX2/FMA, SSE4, portable).
//
// Why not a GEMV per step: at batch 1 the step is bound by reading R (4 MB
// for hidden 512); a BLAS GEMV reads it in R's own row order and leaves the
// gates to a second pass, and splitting it over threads anew each step moves
// each thread's rows between cores' caches. Here a thread keeps the same
// rows at every step, so with two threads each half of R stays in one L2.
#pragma once

#include <cstdint>
#include <memory>

namespace tessera {
class ThreadPool;
}

namespace tessera::cpu {

// Hidden units per packed block: every block holds the rows of all four
// gates for these units, so a block's gates complete without the others.
inline constexpr int64_t kLstmBlockUnits = 16;

// The [4H, H] recurrence matrix R of one direction (gate order i, o, f,
// c), repacked as [block][k][gate][unit]: for one input k, a block's 4*16
// weights are contiguous. Units past H (the last block's padding) are zero.
class LstmPackedWeights {
 public:
  LstmPackedWeights(const float* m, int64_t hidden, int64_t depth);
  int64_t hidden() const { return hidden_; }
  int64_t depth() const { return depth_; }
  int64_t blocks() const { return blocks_; }
  const float* data() const { return data_.get(); }

 private:
  struct Free {
    void operator()(float* p) const;
  };
  int64_t hidden_;
  int64_t depth_;
  int64_t blocks_;
  std::unique_ptr<float[], Free> data_;
};

// One direction over the whole sequence, for every batch row.
struct LstmSequence {
  const LstmPackedWeights* r = nullptr;
  // x*W^T + Wb + Rb for each (time, row): row (t*batch + b) of [seq*batch, 4H].
  const float* gates_in = nullptr;
  int64_t seq_len = 0;
  int64_t batch = 0;
  const int64_t* lens = nullptr;  // per row; steps past a row's length leave its state alone
  bool reverse = false;
  float* h = nullptr;  // [batch, H]: initial state in, final state out
  float* c = nullptr;  // [batch, H]
  // Optional Y: step t of row b goes to y + t*y_time_stride + b*H.
  float* y = nullptr;
  int64_t y_time_stride = 0;
  const float* peephole = nullptr;  // [3H] (i, o, f) or null
  float clip = 0.f;                 // <= 0: no clipping
  bool input_forget = false;        // f = 1 - i
};

// Runs the recurrence, splitting each step's blocks over pool's threads (each
// thread keeps its blocks from step to step). Correct with any number of
// threads taking part, including when the pool has no worker free.
void RunLstmSequence(const LstmSequence& seq, ThreadPool* pool);

}  // namespace tessera::cpu
