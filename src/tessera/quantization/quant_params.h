// Scales and zero points from value ranges, and constant weights and biases
// turned into integers. The formulas are ONNX's (y = saturate(round(x /
// scale) + zero_point), rounding half to even) and the ranges ORT's
// quantization tool uses, so a model written here quantizes like ORT's.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/ir/tensor.h"

namespace tessera::quant {

// The integer range written: int8 [-128, 127] ([-127, 127] when symmetric),
// uint8 [0, 255]; reduce_range keeps 7 bits ([-64, 64] or [-64, 63], [0, 127]).
struct IntRange {
  int qmin = 0;
  int qmax = 255;
};
IntRange IntRangeFor(DataType type, bool symmetric, bool reduce_range);

struct QuantParams {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

// Parameters for real values in [rmin, rmax]. The range is widened to hold
// 0 (so 0 is exact: padding and Relu need it); symmetric makes it
// [-max|r|, max|r|] with the zero point at the middle of the integer range.
// An empty range gets scale 1.
QuantParams ComputeQuantParams(double rmin, double rmax, IntRange range, bool symmetric);

// An int8/uint8 weight with its scale and zero point: scalars per tensor,
// 1-D along `axis` per channel (axis = -1: per tensor).
struct QuantizedWeight {
  Tensor values;
  Tensor scale;
  Tensor zero_point;
  int64_t axis = -1;
};
QuantizedWeight QuantizeWeight(const Tensor& weight, DataType type, int64_t axis, bool symmetric, bool reduce_range);

// A float bias as int32 at scale input_scale * weight_scale[c] (one or one
// per channel), zero point 0; values past int32 saturate.
struct QuantizedBias {
  Tensor values;  // int32, the bias's shape
  Tensor scale;   // float, scalar or [channels]
};
QuantizedBias QuantizeBias(const Tensor& bias, float input_scale, const Tensor& weight_scale);

// Scalar initializers for a QuantizeLinear / DequantizeLinear.
Tensor ScaleTensor(float scale);
Tensor ZeroPointTensor(DataType type, int32_t zero_point);

}  // namespace tessera::quant
