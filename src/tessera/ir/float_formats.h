// The 8-bit and 4-bit float formats of ONNX (float8 e4m3fn / e4m3fnuz / e5m2 /
// e5m2fnuz / e8m0, float4 e2m1): decoding and correctly rounded encoding,
// with and without saturation, bit-exact with the ONNX specification.
#pragma once

#include <cstdint>

#include "tessera/ir/data_type.h"

namespace tessera {

float Float8ToFloat(DataType type, uint8_t bits);
// saturate: out-of-range finite values clamp to the largest finite value
// instead of becoming inf/NaN. For e8m0, round_mode is "up", "down" or "nearest".
uint8_t FloatToFloat8(DataType type, float value, bool saturate = true, const char* round_mode = "up");
float Float4E2M1ToFloat(uint8_t nibble);
uint8_t FloatToFloat4E2M1(float value, bool saturate = true);

}  // namespace tessera
