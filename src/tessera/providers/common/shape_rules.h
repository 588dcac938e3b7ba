// Shape rules of ops whose kernels exist on several providers (the CPU's,
// the OpenCL EP's, the oneDNN EP's host steps): one implementation of ONNX's
// clamping and validation, so providers agree on shapes and on the errors
// they report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/ops/kernel.h"

namespace tessera::cpu {

// Slice's output window per axis: `count` (the output dim) elements from
// `begin` with stride `step` (1 when count <= 1, so huge steps never reach
// stride arithmetic). axes / steps null = absent. Fails the node on
// mismatched lengths, repeated or out-of-range axes, or a zero step.
struct SliceWindow {
  Shape out_shape;
  std::vector<int64_t> begin, step;
};
SliceWindow ResolveSlice(const KernelContext& ctx, const Shape& shape, const std::vector<int64_t>& starts,
                         const std::vector<int64_t>& ends, const std::vector<int64_t>* axes,
                         const std::vector<int64_t>* steps);

// Split's output sizes along `axis` (normalized) of `x` into n_out outputs:
// from `split` when given (null = absent), else num_outputs-style chunks
// when num_outputs > 0 (the last one smaller), else equal parts.
std::vector<int64_t> ResolveSplit(const KernelContext& ctx, const Tensor& x, int64_t axis, int64_t n_out,
                                  const std::vector<int64_t>* split, int64_t num_outputs);

// Gemm's product: A is [m, k] ([k, m] stored with transA), B [k, n] ([n, k]
// with transB); a and b are the shapes as stored, a_text and b_text their
// descriptions in errors. Fails the node unless both are 2-D and their
// inner dimensions match.
struct GemmDims {
  int64_t m = 0, n = 0, k = 0;
};
GemmDims ResolveGemm(const KernelContext& ctx, const Shape& a, const Shape& b, bool trans_a, bool trans_b,
                     const std::string& a_text, const std::string& b_text);

// Gemm's C under unidirectional broadcasting to [m, n]: its element strides
// along m and n (0 where it broadcasts). Fails the node when C does not
// broadcast.
struct GemmBiasStrides {
  int64_t m = 0, n = 0;
};
GemmBiasStrides ResolveGemmBias(const KernelContext& ctx, const Shape& c, int64_t m, int64_t n);

// Pad's padding of each axis of a rank-r input: `pads` holds the begins,
// then the ends, of `axes` (null = absent: every axis in order). Fails the
// node on a count mismatch or a repeated axis.
struct PadAmounts {
  std::vector<int64_t> begin, end;
};
PadAmounts ResolvePads(const KernelContext& ctx, int64_t rank, const std::vector<int64_t>& pads,
                       const std::vector<int64_t>* axes);

// A 1-D (or scalar) int64/int32 tensor holding a shape or axes, read as
// int64; fails the node naming `what` otherwise.
std::vector<int64_t> ReadShapeInput(const Tensor& t, const char* what, const KernelContext& ctx);

}  // namespace tessera::cpu
