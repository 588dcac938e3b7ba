// Elementwise float kernels, vectorized with Highway and dispatched at run
// time: the CPU EP's activations and the oneDNN EP's host steps call them.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// y[i] = x[i] * sigmoid(x[i]) for i < n; x and y may be the same array.
// Relative error below 3e-7 against the exact function wherever the result
// is a normal float, on every SIMD target (a fitted exp polynomial, a
// refined reciprocal); NaN stays NaN, -inf gives 0. oneDNN 2.6 applies its
// swish post-op to a depthwise convolution at about 1 ns per value on
// AVX-512; this runs at about 0.3.
void SiluF32(const float* x, float* y, int64_t n);
// y[i] = x[i] * sigmoid(alpha * x[i]) (ONNX Swish), the same way.
void SwishF32(const float* x, float* y, int64_t n, float alpha);

// y[i] = 1 / (1 + exp(-x[i])) and y[i] = tanh(x[i]), relative error below
// 3e-7 where the result is a normal float (sigmoid goes on into the
// denormals: sigmoid(-100) = 3.7e-44); x and y may be the same array; NaN
// stays NaN.
void SigmoidF32(const float* x, float* y, int64_t n);
void TanhF32(const float* x, float* y, int64_t n);

// y[i] = erf(x[i]) for i < n; x and y may be the same array. Absolute
// error below 2e-7, relative below 3e-7 (NaN stays NaN, +-inf gives +-1).
void ErfF32(const float* x, float* y, int64_t n);

// For each of `rows` rows of n values: y[i] = x[i] * scale[i] + shift[i]
// (x[i] * scale[i] alone when shift is null), then max(., 0) when relu
// (NaN becomes 0). Rows start x_stride and y_stride floats apart, so a row
// can be a channel slice of a wider channels-last tensor. x and y may be
// the same array.
void ScaleShiftRowsF32(const float* x, int64_t x_stride, const float* scale, const float* shift, float* y,
                       int64_t y_stride, int64_t rows, int64_t n, bool relu);

// acc[i] += x[r * n + i] summed over r < rows, for i < n (column sums of a
// row-major [rows, n] block: channel sums of channels-last pixels).
void AddRowsF32(const float* x, int64_t rows, int64_t n, float* acc);

// y[j] = bias[j] + sum_i w[j * k + i] * x[i] for j < rows (bias may be
// null): a matrix-vector product over a row-major [rows, k] matrix.
void MatVecF32(const float* w, const float* x, int64_t rows, int64_t k, const float* bias, float* y);

// y[i] = keep[i] ? x[i] : fill for i < n (keep: 0 or not); x and y may be
// the same array.
void MaskedFillF32(const float* x, const uint8_t* keep, float fill, float* y, int64_t n);

// Layer normalization of one row of d floats: y = (x - mean) * inv *
// scale + bias (bias may be null), inv = 1 / sqrt(variance + epsilon).
// Sums run in float lanes and are combined in double; mean and inv are
// rounded to float, as the unvectorized kernels round them. Returns them in
// *mean and *inv. x and y may be the same array.
void LayerNormRowF32(const float* x, int64_t d, const float* scale, const float* bias, double epsilon, float* y,
                     float* mean, float* inv);

// ShuffleNet's channel shuffle of two channels-last tensors a and b (`half`
// channels each, `pixels` pixels): pixel p's interleaved row is a[p][0],
// b[p][0], a[p][1], b[p][1], ... When `second` is null, `first` receives the
// whole rows ([pixels, 2*half]); else `first` gets each row's first half and
// `second` its second half ([pixels, half] each).
void ShuffleChannelsF32(const float* a, const float* b, int64_t half, int64_t pixels, float* first, float* second);

}  // namespace tessera::cpu
