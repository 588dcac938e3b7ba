// 2-D convolutions of int8/uint8 data on the exact int8 GEMM (int8_gemm.h):
// per image and group, the weights [m, k] times the image's patches as
// columns [k, pixels] (padding holds the input's zero point, so it adds
// nothing), which gives NCHW int32 directly. A 1x1 convolution with stride 1
// and no padding reads the image itself as that matrix. A depthwise one
// (a channel a group) adds each tap's products along output rows instead.
// ConvInteger returns the sums; QLinearConv requantizes them.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tessera/providers/cpu/int8_gemm.h"

namespace tessera {
class ThreadPool;
}

namespace tessera::cpu {

struct Conv2DShape {
  int64_t n = 0, c = 0, h = 0, w = 0;         // input
  int64_t m = 0, kh = 0, kw = 0, group = 1;   // weights [m, c / group, kh, kw]
  int64_t oh = 0, ow = 0;                     // output
  int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1, pad_t = 0, pad_l = 0;
};

// W [m, c / group, kh, kw] (int8 when is_signed, else uint8) and its zero
// points (one, or one per output channel), kept for the GEMM's A side.
// With `packed_groups` > 0 (constant weights, used on every run), each
// group's rows are also packed for the GEMM's kernels (PackedInt8A), once.
class Int8ConvWeights {
 public:
  Int8ConvWeights(bool is_signed, int64_t m, int64_t per_group_k, const void* w, std::vector<int32_t> zero,
                  int64_t packed_groups = 0);
  bool is_signed() const { return is_signed_; }
  int64_t m() const { return m_; }
  int64_t k() const { return k_; }
  const uint8_t* bytes() const { return bytes_.data(); }
  ZeroPoints zero() const { return {zero_.data(), zero_.size() > 1}; }
  // Group g's rows packed, or null.
  const PackedInt8A* packed(int64_t g) const {
    return static_cast<size_t>(g) < packed_.size() ? &packed_[static_cast<size_t>(g)] : nullptr;
  }

 private:
  bool is_signed_;
  int64_t m_, k_;
  std::vector<uint8_t> bytes_;
  std::vector<int32_t> zero_;
  std::vector<PackedInt8A> packed_;
};

// y [n, m, oh, ow] (int32) = sum over each output's window of
// (x - x_zero) * (w - w_zero), exactly. With `requant` (bias and scale per
// output channel, out [n, m, oh, ow] bytes; its ldo is ignored), the result
// is requantized into out instead, in the GEMM's store where the kernel
// can, and y is scratch.
void Int8Conv2D(ThreadPool* pool, const Conv2DShape& s, bool x_signed, const void* x, int32_t x_zero,
                const Int8ConvWeights& w, int32_t* y, const Int8Requant* requant = nullptr);

}  // namespace tessera::cpu
