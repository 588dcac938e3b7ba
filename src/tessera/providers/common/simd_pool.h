// The inner loops of max pooling: over layouts whose channels are innermost
// (channels-last, or blocked by 8 or 16 channels), one output row at a time;
// and over planes (NCHW), as a maximum down a window's rows followed by a
// sliding maximum along the result.
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

// y[i] = max over r < nrows of rows[r][i], for i < n (nrows >= 1). A NaN in
// any row gives NaN.
void MaxRowsF32(const float* const* rows, int64_t nrows, int64_t n, float* y);
void MaxRowsU8(const uint8_t* const* rows, int64_t nrows, int64_t n, uint8_t* y);
void MaxRowsI8(const int8_t* const* rows, int64_t nrows, int64_t n, int8_t* y);

// y[o] = max over j < kw of m[o * stride + j], for o < outs. m must be
// readable up to m[MaxSlidingReach(kw, stride, outs)) (the vector loops read
// past the last window). A NaN in a window gives NaN.
int64_t MaxSlidingReach(int64_t kw, int64_t stride, int64_t outs);
void MaxSlidingF32(const float* m, int64_t kw, int64_t stride, int64_t outs, float* y);
void MaxSlidingU8(const uint8_t* m, int64_t kw, int64_t stride, int64_t outs, uint8_t* y);
void MaxSlidingI8(const int8_t* m, int64_t kw, int64_t stride, int64_t outs, int8_t* y);

}  // namespace tessera::cpu
