// The 8-bit and 4-bit float formats of ONNX (float8 e4m3fn / e4m3fnuz / e5m2 /
// e5m2fnuz / e8m0, float4 e2m1): decoding and correctly rounded encoding,
// with and without saturation, bit-exact with the ONNX specification.
#pragma once

#include <cstdint>

#include "tessera/ir/data_type.h"

namespace tessera {

// Rounding of float -> float8e8m0 (Cast's round_mode attribute).
enum class E8M0Rounding { kUp, kDown, kNearest };
// "up" / "down" / "nearest"; returns false for anything else.
bool ParseE8M0Rounding(const char* name, E8M0Rounding* out);

float Float8ToFloat(DataType type, uint8_t bits);
// saturate: out-of-range finite values (and infinities) clamp to the largest
// finite value instead of becoming inf/NaN. For e8m0, round_mode is "up",
// "down" or "nearest" (unknown names act as "up").
uint8_t FloatToFloat8(DataType type, float value, bool saturate = true, const char* round_mode = "up");
uint8_t FloatToFloat8(DataType type, float value, bool saturate, E8M0Rounding round_mode);

// float4 e2m1: no inf/NaN; encoding always saturates to +-6 and maps NaN to
// 0x8 (as the ONNX reference does); ties round to even.
float Float4E2M1ToFloat(uint8_t nibble);
uint8_t FloatToFloat4E2M1(float value, bool saturate = true);

// Rounds a double to float with round-to-odd, so that a second rounding to a
// narrower format (half, bfloat16, float8, float4) equals rounding the double
// directly.
float DoubleToFloatRoundToOdd(double d);

}  // namespace tessera
