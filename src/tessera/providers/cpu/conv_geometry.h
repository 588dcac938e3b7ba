// The geometry every convolution-shaped kernel shares (Conv, ConvTranspose,
// ConvInteger, QLinearConv, DeformConv, CausalConvWithState, Col2Im): the
// attributes, their resolution against the input and weight shapes, and the
// checks of their operands.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/ops/kernel.h"
#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/auto_pad.h"

namespace tessera::cpu {

struct ConvAttrs {
  AutoPad auto_pad = AutoPad::kNotSet;
  int64_t group = 1;
  std::vector<int64_t> kernel_shape, strides, dilations, pads, output_padding, output_shape;
};

ConvAttrs ParseConvAttrs(const KernelInfo& info, bool transpose, bool has_auto_pad = true);

struct ConvGeom {
  int64_t n = 0, c = 0, m = 0, group = 1;  // batch, input channels, output channels
  Shape in, kernel, out;                   // spatial sizes
  std::vector<int64_t> stride, dil, pad;   // pad: begin of each spatial axis (may be negative)
  int64_t in_size() const { return SizeFromDim(in, 0); }
  int64_t out_size() const { return SizeFromDim(out, 0); }
  int64_t k_size() const { return SizeFromDim(kernel, 0); }
  size_t nsp() const { return in.size(); }
};

// Extent of a kernel axis of k taps spaced `dil` apart.
inline int64_t DilatedKernel(int64_t k, int64_t dil) { return (k - 1) * dil + 1; }

// Positions of a window of dilated extent dk sliding by `stride` over a
// padded extent; 0 when the window does not fit.
inline int64_t WindowPositions(int64_t padded, int64_t dk, int64_t stride) {
  return padded < dk ? 0 : (padded - dk) / stride + 1;
}

ConvGeom ResolveConv(const ConvAttrs& a, const Shape& x, const Shape& w, const KernelContext& ctx);
ConvGeom ResolveConvTranspose(const ConvAttrs& a, const Shape& x, const Shape& w, const KernelContext& ctx);

// 1-D convolutions run as 2-D ones with a unit leading axis.
void PromoteTo2D(ConvGeom& g);

// [n, m, out...].
Shape OutputShape(const ConvGeom& g);

void CheckSameType(const Tensor& x, const Tensor& other, const char* what, const KernelContext& ctx);
void CheckBias(const Tensor& b, int64_t m, const KernelContext& ctx);

}  // namespace tessera::cpu
