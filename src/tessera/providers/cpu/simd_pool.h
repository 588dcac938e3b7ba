// The inner loop of max pooling over layouts whose channels are innermost
// (channels-last, or blocked by 8 or 16 channels), one output row at a time.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// y[o * lanes + l] = max over i < kh, j < kw of
//   x[i * row_step + j * col_step + o * out_step + l]
// for o < outs and l < lanes: `outs` windows of kh x kw pixels, each pixel
// `lanes` contiguous floats (a pixel's channels, or one channel block). The
// steps (in floats) carry the strides and dilations. A NaN in a window gives
// NaN.
void MaxWindowsF32(const float* x, int64_t row_step, int64_t col_step, int64_t out_step, int64_t kh, int64_t kw,
                   int64_t lanes, int64_t outs, float* y);

}  // namespace tessera::cpu
