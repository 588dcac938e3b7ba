// DynamicQuantizeLinear's quantization, shared by that op and by
// com.microsoft DynamicQuantizeMatMul (which quantizes its A the same way).
#pragma once

#include <cstdint>

namespace tessera {
class ThreadPool;
}

namespace tessera::cpu {

// The scale and zero point DynamicQuantizeLinear picks for x.
struct DynamicQuantization {
  float scale = 1.0f;
  uint8_t zero = 0;
};

// y = saturate(round_half_even(x / scale) + zero) as uint8 over a range
// widened to hold 0 (a NaN to the zero point), split over `pool`; returns
// the parameters. Defined in quantization.cc.
DynamicQuantization DynamicQuantizeU8(const float* x, int64_t n, uint8_t* y, ThreadPool* pool);

}  // namespace tessera::cpu
