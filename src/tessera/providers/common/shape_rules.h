// Shape rules of ops whose kernels exist on several providers (the CPU's and
// the OpenCL EP's): one implementation of ONNX's clamping and validation, so
// providers agree on shapes and on the errors they report.
#pragma once

#include <cstdint>
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

// A 1-D (or scalar) int64/int32 tensor holding a shape or axes, read as
// int64; fails the node naming `what` otherwise.
std::vector<int64_t> ReadShapeInput(const Tensor& t, const char* what, const KernelContext& ctx);

}  // namespace tessera::cpu
