// int32 sums to int8/uint8, as QLinearConv and QLinearMatMul end:
// y = saturate(round(sum * scale) + zero_point), rounding half to even
// (nearbyint in the default mode). One scale for a run of sums, or one per
// column.
#pragma once

#include <cstdint>

#include "tessera/ir/tensor.h"

namespace tessera::cpu {

// out[i] = saturate(round((acc[i] + add) * scale) + zero) for i < n; a NaN
// scale gives the zero point, as QuantizeLinear does.
void RequantizeRun(const int32_t* acc, int64_t n, int32_t add, double scale, int32_t zero, DataType type, void* out);

// The same with scale[j] for element j.
void RequantizeRunPerColumn(const int32_t* acc, int64_t n, const double* scale, int32_t zero, DataType type, void* out);

}  // namespace tessera::cpu
