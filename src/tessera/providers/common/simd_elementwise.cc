// Kernels of simd_elementwise.h, compiled once per x86 target by Highway.
#include "tessera/providers/common/simd_elementwise.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tessera/providers/common/simd_elementwise.cc"
#include "hwy/foreach_target.h"  // re-includes this file once per target
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::elementwise_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// exp(t) for t <= 0, down into the denormals (t below -103.98 gives 0):
// t = n*ln2 + r with |r| <= ln2/2, exp(r) by a degree-6 polynomial fitted
// here for least relative error on that interval (7e-9 before float
// rounding; evaluated in float, 1e-7 = the rounding floor), times 2^n: one
// scalef on AVX-512, else exponent bits.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ExpNonPositive(D d, V t) {
  t = hn::Max(t, hn::Set(d, -104.f));
  const V n = hn::Round(t * hn::Set(d, 1.44269504088896341f));
  V r = hn::MulAdd(n, hn::Set(d, -0.693145751953125f), t);  // ln2 split in two: exact n*hi
  r = hn::MulAdd(n, hn::Set(d, -1.428606765330187e-06f), r);
  V p = hn::Set(d, 1.3836807115580629e-3f);
  p = hn::MulAdd(p, r, hn::Set(d, 8.374809865535723e-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 4.166822583942995e-2f));
  p = hn::MulAdd(p, r, hn::Set(d, 0.16666420242649055f));
  p = hn::MulAdd(p, r, hn::Set(d, 0.49999992080653f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0000000363064614f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.000000000553963f));
#if HWY_TARGET <= HWY_AVX3
  if constexpr (std::is_same_v<V, hn::Vec512<float>>) return V{_mm512_scalef_ps(p.raw, n.raw)};
#endif
  // 2^(n + 64) is a normal float for every n in [-150, 0]; the exact
  // scaling by 2^-64 after it is the one product that may round into the
  // denormals.
  const hn::RebindToSigned<D> di;
  const V scaled = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hn::ConvertTo(di, n), hn::Set(di, 127 + 64))));
  return p * scaled * hn::Set(d, 5.421010862427522e-20f);  // 2^-64
}

// 1 / den, correctly rounded for all but a vanishing share of inputs, and
// exactly 1 for den = 1 (SiLU of a large x must give x). AVX-512's 14-bit
// estimate refined once as q + q (1 - den q), both steps fused, has 28 bits.
// SSE4/AVX2's estimate has 12, and one step leaves 1-2 ulp (1000 *
// 0.99999994 for SiLU(1000); 1e-7 off sigmoid near 1, which GRU's 1 - z
// amplifies): there, and elsewhere, divide. The divider is its own unit, so
// the division overlaps the exp polynomial's FMAs (measured faster than two
// refinements on AVX2).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Reciprocal(D d, V den) {
#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
  const V q = hn::ApproximateReciprocal(den);
  return hn::MulAdd(q, hn::NegMulAdd(den, q, hn::Set(d, 1.f)), q);
#else
  return hn::Div(hn::Set(d, 1.f), den);
#endif
}

// 1 / (1 + exp(-z)) from e = exp(-|z|): 1 / (1 + e) for z >= 0, e / (1 + e)
// below, so neither side overflows and a tiny result keeps its relative
// accuracy down to the denormals.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V LogisticOf(D d, V z) {
  const V e = ExpNonPositive(d, hn::Neg(hn::Abs(z)));
  const V r = Reciprocal(d, e + hn::Set(d, 1.f));
  return hn::IfThenElse(z >= hn::Zero(d), r, e * r);
}

// x * sigmoid(ax) for ax = alpha * x. Past ax = -104 the sigmoid factor is
// 0 and so is the result, also for x = -inf (the limit; -inf * 0 would be
// NaN); NaN stays NaN through the product.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Swish(D d, V x, V ax) {
  return hn::IfThenZeroElse(ax < hn::Set(d, -104.f), x * LogisticOf(d, ax));
}

// 1 / (1 + exp(-x)); NaN stays NaN.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Sigmoid(D d, V x) {
  return hn::IfThenElse(x == x, LogisticOf(d, x), x);
}

// tanh(x) = sign(x) (1 - e) / (1 + e) with e = exp(-2|x|), and its odd
// Taylor series to x^11 below |x| = 1/4, where that form would cancel (the
// next term is below 1e-10 there); NaN stays NaN.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Tanh(D d, V x) {
  const V one = hn::Set(d, 1.f);
  const V a = hn::Abs(x);
  const V e = ExpNonPositive(d, a * hn::Set(d, -2.f));
  const V big = (one - e) * Reciprocal(d, one + e);
  const V a2 = a * a;
  V series = hn::MulAdd(a2, hn::Set(d, -1382.f / 155925.f), hn::Set(d, 62.f / 2835.f));
  series = hn::MulAdd(a2, series, hn::Set(d, -17.f / 315.f));
  series = hn::MulAdd(a2, series, hn::Set(d, 2.f / 15.f));
  series = hn::MulAdd(a2, series, hn::Set(d, -1.f / 3.f));
  series = a * hn::MulAdd(a2, series, one);
  const V r = hn::CopySignToAbs(hn::IfThenElse(a < hn::Set(d, 0.25f), series, big), x);
  return hn::IfThenElse(x == x, r, x);
}

// erf(x). For |x| < 1 its Maclaurin series to x^21 (relative error 2e-8);
// beyond, Abramowitz and Stegun 7.1.26, 1 - poly(t) exp(-x^2) with
// t = 1 / (1 + 0.3275911 |x|) (absolute error 1.5e-7 where erf >= 0.84).
// erf is +-1 in float beyond |x| = 3.92.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Erf(D d, V x) {
  const V a = hn::Min(hn::Abs(x), hn::Set(d, 4.f));
  const V x2 = x * x;
  // Series in x^2, highest power first: (-1)^k / (k! (2k+1)) for k = 10..1.
  V s = hn::Set(d, -1.f / 76204800.f);
  for (float c : {1.f / 6894720.f, -1.f / 685440.f, 1.f / 75600.f, -1.f / 9360.f, 1.f / 1320.f, -1.f / 216.f,
                  1.f / 42.f, -1.f / 10.f, 1.f / 3.f})
    s = hn::MulAdd(s, x2, hn::Set(d, c));
  s = hn::NegMulAdd(s, x2, hn::Set(d, 1.f));
  const V small = x * s * hn::Set(d, 1.12837916709551257f);  // 2 / sqrt(pi)
  const V t = Reciprocal(d, hn::MulAdd(a, hn::Set(d, 0.3275911f), hn::Set(d, 1.f)));
  V p = hn::Set(d, 1.061405429f);
  p = hn::MulAdd(p, t, hn::Set(d, -1.453152027f));
  p = hn::MulAdd(p, t, hn::Set(d, 1.421413741f));
  p = hn::MulAdd(p, t, hn::Set(d, -0.284496736f));
  p = hn::MulAdd(p, t, hn::Set(d, 0.254829592f));
  const V large = hn::NegMulAdd(p * t, ExpNonPositive(d, hn::Neg(a * a)), hn::Set(d, 1.f));
  const V result = hn::IfThenElse(a < hn::Set(d, 1.f), small, hn::CopySignToAbs(large, x));
  return hn::IfThenElse(x == x, result, x);  // NaN (the clamp above dropped it)
}

// y = f(x) over n floats, the tail through a full-width buffer.
template <class F>
HWY_INLINE void MapArray(const float* x, float* y, int64_t n, F f) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(f(d, hn::LoadU(d, x + i)), d, y + i);
  if (i < n) {
    HWY_ALIGN float buf[hn::MaxLanes(d)] = {};
    for (int64_t k = i; k < n; ++k) buf[k - i] = x[k];
    hn::Store(f(d, hn::Load(d, buf)), d, buf);
    for (int64_t k = i; k < n; ++k) y[k] = buf[k - i];
  }
}

void SiluArray(const float* x, float* y, int64_t n) {
  MapArray(x, y, n, [](auto d, auto v) { return Swish(d, v, v); });
}
void SwishArray(const float* x, float* y, int64_t n, float alpha) {
  MapArray(x, y, n, [alpha](auto d, auto v) { return Swish(d, v, v * hn::Set(d, alpha)); });
}
void SigmoidArray(const float* x, float* y, int64_t n) {
  MapArray(x, y, n, [](auto d, auto v) { return Sigmoid(d, v); });
}
void TanhArray(const float* x, float* y, int64_t n) {
  MapArray(x, y, n, [](auto d, auto v) { return Tanh(d, v); });
}

void ErfArray(const float* x, float* y, int64_t n) {
  MapArray(x, y, n, [](auto d, auto v) { return Erf(d, v); });
}

// out[2i] = a[i], out[2i + 1] = b[i] for i < n.
HWY_INLINE void InterleaveRow(const float* a, const float* b, int64_t n, float* out) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreInterleaved2(hn::LoadU(d, a + i), hn::LoadU(d, b + i), d, out + 2 * i);
  for (; i < n; ++i) {
    out[2 * i] = a[i];
    out[2 * i + 1] = b[i];
  }
}

void ShuffleChannels(const float* a, const float* b, int64_t half, int64_t pixels, float* first, float* second) {
  std::vector<float> row;
  for (int64_t p = 0; p < pixels; ++p) {
    const float* ap = a + p * half;
    const float* bp = b + p * half;
    if (second == nullptr) {
      InterleaveRow(ap, bp, half, first + p * 2 * half);
    } else if (half % 2 == 0) {  // each half of the row interleaves half of a and of b
      InterleaveRow(ap, bp, half / 2, first + p * half);
      InterleaveRow(ap + half / 2, bp + half / 2, half / 2, second + p * half);
    } else {
      row.resize(static_cast<size_t>(2 * half));
      InterleaveRow(ap, bp, half, row.data());
      std::copy(row.begin(), row.begin() + half, first + p * half);
      std::copy(row.begin() + half, row.end(), second + p * half);
    }
  }
}

void ScaleShiftRows(const float* x, int64_t x_stride, const float* scale, const float* shift, float* y,
                    int64_t y_stride, int64_t rows, int64_t n, bool relu) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto zero = hn::Zero(d);
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * x_stride;
    float* yr = y + r * y_stride;
    int64_t i = 0;
    for (; i + lanes <= n; i += lanes) {
      auto v = hn::LoadU(d, xr + i) * hn::LoadU(d, scale + i);
      if (shift != nullptr) v = v + hn::LoadU(d, shift + i);
      if (relu) v = hn::IfThenElse(v > zero, v, zero);
      hn::StoreU(v, d, yr + i);
    }
    for (; i < n; ++i) {
      const float v = xr[i] * scale[i] + (shift != nullptr ? shift[i] : 0.f);
      yr[i] = relu ? (v > 0.f ? v : 0.f) : v;
    }
  }
}

void MatVec(const float* w, const float* x, int64_t rows, int64_t k, const float* bias, float* y) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t j = 0;
  // Four rows at a time: four independent sums, x loaded once for them.
  for (; j + 4 <= rows; j += 4) {
    const float* w0 = w + j * k;
    auto s0 = hn::Zero(d), s1 = s0, s2 = s0, s3 = s0;
    int64_t i = 0;
    for (; i + lanes <= k; i += lanes) {
      const auto xv = hn::LoadU(d, x + i);
      s0 = hn::MulAdd(hn::LoadU(d, w0 + i), xv, s0);
      s1 = hn::MulAdd(hn::LoadU(d, w0 + k + i), xv, s1);
      s2 = hn::MulAdd(hn::LoadU(d, w0 + 2 * k + i), xv, s2);
      s3 = hn::MulAdd(hn::LoadU(d, w0 + 3 * k + i), xv, s3);
    }
    float t[4] = {hn::GetLane(hn::SumOfLanes(d, s0)), hn::GetLane(hn::SumOfLanes(d, s1)), hn::GetLane(hn::SumOfLanes(d, s2)), hn::GetLane(hn::SumOfLanes(d, s3))};
    for (; i < k; ++i)
      for (int64_t r = 0; r < 4; ++r) t[r] += w0[r * k + i] * x[i];
    for (int64_t r = 0; r < 4; ++r) y[j + r] = t[r] + (bias != nullptr ? bias[j + r] : 0.f);
  }
  for (; j < rows; ++j) {
    const float* wj = w + j * k;
    auto s = hn::Zero(d);
    int64_t i = 0;
    for (; i + lanes <= k; i += lanes) s = hn::MulAdd(hn::LoadU(d, wj + i), hn::LoadU(d, x + i), s);
    float t = hn::GetLane(hn::SumOfLanes(d, s));
    for (; i < k; ++i) t += wj[i] * x[i];
    y[j] = t + (bias != nullptr ? bias[j] : 0.f);
  }
}

void MaskedFill(const float* x, const uint8_t* keep, float fill, float* y, int64_t n) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const hn::Rebind<uint8_t, decltype(d)> du8;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto fv = hn::Set(d, fill);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto k = hn::PromoteTo(di, hn::LoadU(du8, keep + i));
    hn::StoreU(hn::IfThenElse(hn::RebindMask(d, k != hn::Zero(di)), hn::LoadU(d, x + i), fv), d, y + i);
  }
  for (; i < n; ++i) y[i] = keep[i] != 0 ? x[i] : fill;
}

// Sum of f(x[i]) over i < n: four vector sums, then the lanes in double
// (of the tail's vector only the lanes that hold values).
template <class F>
HWY_INLINE double SumOf(const float* x, int64_t n, F f) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  auto s0 = hn::Zero(d), s1 = s0, s2 = s0, s3 = s0;
  int64_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    s0 = s0 + f(d, hn::LoadU(d, x + i));
    s1 = s1 + f(d, hn::LoadU(d, x + i + lanes));
    s2 = s2 + f(d, hn::LoadU(d, x + i + 2 * lanes));
    s3 = s3 + f(d, hn::LoadU(d, x + i + 3 * lanes));
  }
  for (; i + lanes <= n; i += lanes) s0 = s0 + f(d, hn::LoadU(d, x + i));
  HWY_ALIGN float lanes_out[4 * hn::MaxLanes(d)];
  hn::Store(s0, d, lanes_out);
  hn::Store(s1, d, lanes_out + lanes);
  hn::Store(s2, d, lanes_out + 2 * lanes);
  hn::Store(s3, d, lanes_out + 3 * lanes);
  double total = 0;
  for (int64_t k = 0; k < 4 * lanes; ++k) total += lanes_out[k];
  if (i < n) {
    HWY_ALIGN float tail[hn::MaxLanes(d)] = {};
    for (int64_t k = i; k < n; ++k) tail[k - i] = x[k];
    const auto t = f(d, hn::Load(d, tail));
    hn::Store(t, d, tail);
    for (int64_t k = 0; k < n - i; ++k) total += tail[k];
  }
  return total;
}

void LayerNormRow(const float* x, int64_t n, const float* scale, const float* bias, double epsilon, float* y,
                  float* mean_out, float* inv_out) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const float mean = static_cast<float>(SumOf(x, n, [](auto, auto v) { return v; }) / static_cast<double>(n));
  const auto m = hn::Set(d, mean);
  const double var = SumOf(x, n, [&m](auto, auto v) {
                       const auto c = v - m;
                       return c * c;
                     }) / static_cast<double>(n);
  const float inv = static_cast<float>(1.0 / std::sqrt(var + epsilon));
  const auto iv = hn::Set(d, inv);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    auto v = (hn::LoadU(d, x + i) - m) * iv * hn::LoadU(d, scale + i);
    if (bias != nullptr) v = v + hn::LoadU(d, bias + i);
    hn::StoreU(v, d, y + i);
  }
  for (; i < n; ++i) y[i] = (x[i] - mean) * inv * scale[i] + (bias != nullptr ? bias[i] : 0.f);
  *mean_out = mean;
  *inv_out = inv;
}

void AddRows(const float* x, int64_t rows, int64_t n, float* acc) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    auto sum = hn::LoadU(d, acc + i);
    for (int64_t r = 0; r < rows; ++r) sum = sum + hn::LoadU(d, x + r * n + i);
    hn::StoreU(sum, d, acc + i);
  }
  for (; i < n; ++i)
    for (int64_t r = 0; r < rows; ++r) acc[i] += x[r * n + i];
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::cpu::elementwise_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::cpu {
namespace elementwise_detail {
HWY_EXPORT(SiluArray);
HWY_EXPORT(SwishArray);
HWY_EXPORT(SigmoidArray);
HWY_EXPORT(TanhArray);
HWY_EXPORT(ScaleShiftRows);
HWY_EXPORT(ErfArray);
HWY_EXPORT(ShuffleChannels);
HWY_EXPORT(AddRows);
HWY_EXPORT(MatVec);
HWY_EXPORT(MaskedFill);
HWY_EXPORT(LayerNormRow);
}  // namespace elementwise_detail
// Dispatch names the kernels unqualified: with a single compiled target
// (aarch64 builds NEON alone) HWY_DYNAMIC_DISPATCH becomes a static call
// that puts the target's namespace in front of the name it is given.
using namespace elementwise_detail;  // NOLINT(google-build-using-namespace)

void LayerNormRowF32(const float* x, int64_t d, const float* scale, const float* bias, double epsilon, float* y,
                     float* mean, float* inv) {
  if (d > 0) HWY_DYNAMIC_DISPATCH(LayerNormRow)(x, d, scale, bias, epsilon, y, mean, inv);
}

void MaskedFillF32(const float* x, const uint8_t* keep, float fill, float* y, int64_t n) {
  if (n > 0) HWY_DYNAMIC_DISPATCH(MaskedFill)(x, keep, fill, y, n);
}

void MatVecF32(const float* w, const float* x, int64_t rows, int64_t k, const float* bias, float* y) {
  if (rows > 0) HWY_DYNAMIC_DISPATCH(MatVec)(w, x, rows, k, bias, y);
}

void AddRowsF32(const float* x, int64_t rows, int64_t n, float* acc) {
  if (rows > 0 && n > 0) HWY_DYNAMIC_DISPATCH(AddRows)(x, rows, n, acc);
}

void SiluF32(const float* x, float* y, int64_t n) {
  if (n > 0) HWY_DYNAMIC_DISPATCH(SiluArray)(x, y, n);
}

void SwishF32(const float* x, float* y, int64_t n, float alpha) {
  if (n > 0) HWY_DYNAMIC_DISPATCH(SwishArray)(x, y, n, alpha);
}

void SigmoidF32(const float* x, float* y, int64_t n) {
  if (n > 0) HWY_DYNAMIC_DISPATCH(SigmoidArray)(x, y, n);
}

void TanhF32(const float* x, float* y, int64_t n) {
  if (n > 0) HWY_DYNAMIC_DISPATCH(TanhArray)(x, y, n);
}

void ErfF32(const float* x, float* y, int64_t n) {
  if (n > 0) HWY_DYNAMIC_DISPATCH(ErfArray)(x, y, n);
}

void ShuffleChannelsF32(const float* a, const float* b, int64_t half, int64_t pixels, float* first, float* second) {
  if (half > 0 && pixels > 0) HWY_DYNAMIC_DISPATCH(ShuffleChannels)(a, b, half, pixels, first, second);
}

void ScaleShiftRowsF32(const float* x, int64_t x_stride, const float* scale, const float* shift, float* y,
                       int64_t y_stride, int64_t rows, int64_t n, bool relu) {
  if (rows > 0 && n > 0)
    HWY_DYNAMIC_DISPATCH(ScaleShiftRows)(x, x_stride, scale, shift, y, y_stride, rows, n, relu);
}

}  // namespace tessera::cpu
#endif  // HWY_ONCE
