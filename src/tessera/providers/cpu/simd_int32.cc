// Kernels of simd_int32.h, compiled once per x86 target by Highway.
#include "tessera/providers/cpu/simd_int32.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tessera/providers/cpu/simd_int32.cc"
#include "hwy/foreach_target.h"  // re-includes this file once per target
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::int32_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void RangeWithZero(const float* x, int64_t n, float* lo, float* hi) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  auto vlo = hn::Zero(d), vhi = hn::Zero(d);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(d, x + i);
    const auto ok = hn::Not(hn::IsNaN(v));  // a NaN lane keeps the running bounds
    vlo = hn::IfThenElse(ok, hn::Min(vlo, v), vlo);
    vhi = hn::IfThenElse(ok, hn::Max(vhi, v), vhi);
  }
  float l = hn::GetLane(hn::MinOfLanes(d, vlo)), h = hn::GetLane(hn::MaxOfLanes(d, vhi));
  for (; i < n; ++i) {
    if (x[i] < l) l = x[i];
    if (x[i] > h) h = x[i];
  }
  *lo = l;
  *hi = h;
}

// Values centered into A: int32_t, or float (exact: |value| <= 255).
template <typename A, typename T>
void CenterBytes(const T* src, int64_t stride, int64_t n, int32_t zero, A* dst) {
  const hn::ScalableTag<int32_t> d;
  const hn::Rebind<A, decltype(d)> da;
  const hn::Rebind<T, decltype(d)> dt;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto z = hn::Set(d, zero);
  const auto store = [&](hn::Vec<decltype(d)> v, A* out) {
    if constexpr (std::is_same_v<A, float>) {
      hn::StoreU(hn::ConvertTo(da, v), da, out);
    } else {
      hn::StoreU(v, d, out);
    }
  };
  int64_t j = 0;
  if (stride == 1) {
    for (; j + lanes <= n; j += lanes) store(hn::Sub(hn::PromoteTo(d, hn::LoadU(dt, src + j)), z), dst + j);
  } else if (stride == 2) {
    // Stride 2 reads each pair and keeps its first; the loop stops where
    // the pair of the last value would pass its end.
    for (; j + lanes < n; j += lanes) {
      hn::Vec<decltype(dt)> even, odd;
      hn::LoadInterleaved2(dt, src + 2 * j, even, odd);
      store(hn::Sub(hn::PromoteTo(d, even), z), dst + j);
    }
  }
  for (; j < n; ++j) dst[j] = static_cast<A>(int32_t{src[j * stride]} - zero);
}

template <typename A, typename T>
void PhasePlanesT(const T* in, int64_t h, int64_t w, int32_t zero, int64_t pad_t, int64_t pad_l, int64_t rows,
                  int64_t cols, int64_t sw, int64_t phase_w, A* phases) {
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t iy = r - pad_t;
    for (int64_t p = 0; p < sw; ++p) {
      A* dst = phases + (p * rows + r) * phase_w;
      const int64_t n = (cols - p + sw - 1) / sw;  // padded columns of this phase
      if (iy < 0 || iy >= h) {
        std::fill(dst, dst + n, A{0});
        continue;
      }
      // Phase columns j whose input column j * sw + p - pad_l is inside.
      const int64_t lo = std::min(n, std::max<int64_t>(0, (pad_l - p + sw - 1) / sw));
      const int64_t hi = std::max(lo, std::min(n, (pad_l + w - p + sw - 1) / sw));
      std::fill(dst, dst + lo, A{0});
      CenterBytes(in + iy * w + lo * sw + p - pad_l, sw, hi - lo, zero, dst + lo);
      std::fill(dst + hi, dst + n, A{0});
    }
  }
}

template <typename A>
void PhasePlanesAs(const uint8_t* in, int64_t h, int64_t w, bool is_signed, int32_t zero, int64_t pad_t,
                   int64_t pad_l, int64_t rows, int64_t cols, int64_t sw, int64_t phase_w, A* phases) {
  if (is_signed) {
    PhasePlanesT(reinterpret_cast<const int8_t*>(in), h, w, zero, pad_t, pad_l, rows, cols, sw, phase_w, phases);
  } else {
    PhasePlanesT(in, h, w, zero, pad_t, pad_l, rows, cols, sw, phase_w, phases);
  }
}
void PhasePlanes(const uint8_t* in, int64_t h, int64_t w, bool is_signed, int32_t zero, int64_t pad_t, int64_t pad_l,
                 int64_t rows, int64_t cols, int64_t sw, int64_t phase_w, int32_t* phases) {
  PhasePlanesAs(in, h, w, is_signed, zero, pad_t, pad_l, rows, cols, sw, phase_w, phases);
}
void PhasePlanesF(const uint8_t* in, int64_t h, int64_t w, bool is_signed, int32_t zero, int64_t pad_t, int64_t pad_l,
                  int64_t rows, int64_t cols, int64_t sw, int64_t phase_w, float* phases) {
  PhasePlanesAs(in, h, w, is_signed, zero, pad_t, pad_l, rows, cols, sw, phase_w, phases);
}

// A depthwise plane's requantization as float vectors, set once a plane.
template <class D>
struct RequantLanes {
  using V = hn::Vec<D>;
  V bias, scale, zero, lo, hi, near_half;
  explicit RequantLanes(D d, const DepthwiseRequant& rq)
      : bias(hn::Set(d, static_cast<float>(rq.bias))),
        scale(hn::Set(d, static_cast<float>(rq.scale))),
        zero(hn::Set(d, static_cast<float>(rq.zero))),
        lo(hn::Set(d, rq.out_signed ? -128.f : 0.f)),
        hi(hn::Set(d, rq.out_signed ? 127.f : 255.f)),
        near_half(hn::Set(d, 0.5f - 1e-4f)) {}
};

// One vector of a depthwise plane's float sums (whole numbers within 2^23)
// requantized into rq.out from index `at`, `left` of them (at most a
// vector): in float lanes, unless one lies within 1e-4 of a half step,
// where the vector takes the double formula (RequantizeOneScale's rule).
template <class D>
HWY_INLINE void StoreRequantized(D d, hn::Vec<D> sum, const RequantLanes<D>& k, const DepthwiseRequant& rq, int64_t at,
                                 int64_t left) {
  const hn::RebindToSigned<D> di;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto v = hn::Mul(hn::Add(sum, k.bias), k.scale);
  const auto r = hn::Round(v);
  if (HWY_UNLIKELY(!hn::AllFalse(d, hn::Gt(hn::Abs(hn::Sub(v, r)), k.near_half)))) {
    HWY_ALIGN int32_t sums[64];
    hn::Store(hn::ConvertTo(di, sum), di, sums);
    for (int64_t i = 0; i < std::min(lanes, left); ++i)
      rq.out[at + i] = RequantizeOne(sums[i], rq.bias, rq.scale, rq.zero, rq.out_signed);
    return;
  }
  const auto q = hn::ConvertTo(di, hn::Min(hn::Max(hn::Add(r, k.zero), k.lo), k.hi));
  HWY_ALIGN uint8_t bytes[64];
  uint8_t* out = left >= lanes ? rq.out + at : bytes;
  if (rq.out_signed) {
    const hn::Rebind<int8_t, decltype(di)> d8;
    hn::StoreU(hn::DemoteTo(d8, q), d8, reinterpret_cast<int8_t*>(out));
  } else {
    const hn::Rebind<uint8_t, decltype(di)> d8;
    hn::StoreU(hn::DemoteTo(d8, q), d8, out);
  }
  if (out == bytes) std::copy(bytes, bytes + left, rq.out + at);
}

#if HWY_TARGET == HWY_AVX2
// Four vectors (32 contiguous outputs) of StoreRequantized at once: the
// saturating packs clamp to the output type (|v| < 2^31 with |scale| <
// 128) and move all 32 bytes in three packs and one permute. False (nothing
// stored) when a lane lies near a half step.
HWY_INLINE bool StoreRequantized32(const hn::Vec<hn::ScalableTag<float>> (&sum)[4],
                                   const RequantLanes<hn::ScalableTag<float>>& k, bool out_signed, uint8_t* out) {
  __m256i q[4];
  __m256 doubt = _mm256_setzero_ps();
  for (int c = 0; c < 4; ++c) {
    const __m256 v = _mm256_mul_ps(_mm256_add_ps(sum[c].raw, k.bias.raw), k.scale.raw);
    const __m256 r = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256 off = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), _mm256_sub_ps(v, r));
    doubt = _mm256_or_ps(doubt, _mm256_cmp_ps(off, k.near_half.raw, _CMP_GT_OQ));
    q[c] = _mm256_cvtps_epi32(_mm256_add_ps(r, k.zero.raw));  // whole numbers: exact
  }
  if (_mm256_movemask_ps(doubt) != 0) return false;
  const __m256i a = _mm256_packs_epi32(q[0], q[1]), b = _mm256_packs_epi32(q[2], q[3]);
  const __m256i bytes = out_signed ? _mm256_packs_epi16(a, b) : _mm256_packus_epi16(a, b);
  // Each 128-bit lane holds four values of each vector: put them in order.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permutevar8x32_epi32(bytes, order));
  return true;
}
#endif

// The plane's sums in A: int32 (multiply, add), or float (fused
// multiply-add, twice the rate, exact while every partial sum stays below
// 2^24). Four vectors of one output row at a time share each tap's
// broadcast; the sums are stored as int32.
template <typename A>
void DepthwisePlaneT(const A* phases, int64_t rows, int64_t phase_w, int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                     int64_t kh, int64_t kw, const A* taps, int64_t oh, int64_t ow, int32_t* y,
                     const DepthwiseRequant* rq = nullptr) {
  const hn::ScalableTag<A> d;
  const hn::RebindToSigned<decltype(d)> di;
  using V = hn::Vec<decltype(d)>;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t plane = rows * phase_w;
  HWY_ALIGN int32_t tail[64];
  // Each tap's offset from an output row's first input, computed once: a
  // division per tap and vector cost more than the products.
  const int64_t count = kh * kw;
  thread_local std::vector<int64_t> tap_offset;
  tap_offset.resize(static_cast<size_t>(count));
  for (int64_t ky = 0; ky < kh; ++ky)
    for (int64_t kx = 0; kx < kw; ++kx) {
      const int64_t off = kx * dw;
      tap_offset[static_cast<size_t>(ky * kw + kx)] = (off % sw) * plane + ky * dh * phase_w + off / sw;
    }
  const auto mul_add = [](V x, V w, V acc) {
    if constexpr (std::is_same_v<A, float>) {
      return hn::MulAdd(x, w, acc);
    } else {
      return hn::Add(acc, hn::Mul(x, w));
    }
  };
  const auto sums = [&](V acc) {
    if constexpr (std::is_same_v<A, float>) {
      return hn::ConvertTo(di, acc);  // whole numbers below 2^24: exact
    } else {
      return acc;
    }
  };
  using DF = std::remove_cvref_t<decltype(d)>;
  std::optional<RequantLanes<DF>> requant_lanes;
  if constexpr (std::is_same_v<A, float>) {
    if (rq != nullptr) requant_lanes.emplace(d, *rq);
  }
  const RequantLanes<DF>* lanes_rq = requant_lanes ? &*requant_lanes : nullptr;
  // The saturating packs clamp correctly while |v| < 2^31.
  [[maybe_unused]] const bool packs_clamp = rq != nullptr && std::abs(rq->scale) < 128;
  // R rows x C vectors of outputs from (oy, ox): R * C independent sums,
  // enough to cover the multiply-add's latency at 2 x 4. The last vector
  // of a row may pass ow: its loads stay inside phase_w, its store stops.
  const auto block = [&](auto rows_c, auto vecs_c, int64_t oy, int64_t ox) {
    constexpr int64_t kR = decltype(rows_c)::value, kC = decltype(vecs_c)::value;
    V acc[kR][kC];
    for (int64_t r = 0; r < kR; ++r)
      for (int64_t c = 0; c < kC; ++c) acc[r][c] = hn::Zero(d);
    for (int64_t t = 0; t < count; ++t) {
      const V w = hn::Set(d, taps[t]);
      for (int64_t r = 0; r < kR; ++r) {
        const A* in = phases + (oy + r) * sh * phase_w + tap_offset[static_cast<size_t>(t)] + ox;
        for (int64_t c = 0; c < kC; ++c) acc[r][c] = mul_add(hn::LoadU(d, in + c * lanes), w, acc[r][c]);
      }
    }
    if constexpr (std::is_same_v<A, float>) {
      if (rq != nullptr) {
        for (int64_t r = 0; r < kR; ++r) {
#if HWY_TARGET == HWY_AVX2
          if constexpr (kC == 4) {
            if (packs_clamp && ow - ox >= 4 * lanes &&
                StoreRequantized32(acc[r], *lanes_rq, rq->out_signed, rq->out + (oy + r) * ow + ox))
              continue;
          }
#endif
          for (int64_t c = 0; c < kC; ++c)
            StoreRequantized(DF(), acc[r][c], *lanes_rq, *rq, (oy + r) * ow + ox + c * lanes, ow - ox - c * lanes);
        }
        return;
      }
    }
    for (int64_t r = 0; r < kR; ++r)
      for (int64_t c = 0; c < kC; ++c) {
        int32_t* out = y + (oy + r) * ow + ox + c * lanes;
        const int64_t left = ow - ox - c * lanes;
        if (left >= lanes) {
          hn::StoreU(sums(acc[r][c]), di, out);
        } else {
          hn::Store(sums(acc[r][c]), di, tail);
          for (int64_t i = 0; i < left; ++i) out[i] = tail[i];
        }
      }
  };
  const int64_t vecs = (ow + lanes - 1) / lanes;
  const auto row_blocks = [&](auto rows_c, int64_t oy) {
    int64_t v = 0;
    for (; v + 4 <= vecs; v += 4) block(rows_c, std::integral_constant<int64_t, 4>(), oy, v * lanes);
    if (v + 2 <= vecs) block(rows_c, std::integral_constant<int64_t, 2>(), oy, v * lanes), v += 2;
    if (v < vecs) block(rows_c, std::integral_constant<int64_t, 1>(), oy, v * lanes);
  };
  int64_t oy = 0;
  for (; oy + 2 <= oh; oy += 2) row_blocks(std::integral_constant<int64_t, 2>(), oy);
  if (oy < oh) row_blocks(std::integral_constant<int64_t, 1>(), oy);
}
void DepthwisePlane(const int32_t* phases, int64_t rows, int64_t phase_w, int64_t sh, int64_t sw, int64_t dh,
                    int64_t dw, int64_t kh, int64_t kw, const int32_t* taps, int64_t oh, int64_t ow, int32_t* y) {
  DepthwisePlaneT(phases, rows, phase_w, sh, sw, dh, dw, kh, kw, taps, oh, ow, y);
}
void DepthwisePlaneF(const float* phases, int64_t rows, int64_t phase_w, int64_t sh, int64_t sw, int64_t dh,
                     int64_t dw, int64_t kh, int64_t kw, const float* taps, int64_t oh, int64_t ow, int32_t* y,
                     const DepthwiseRequant* rq) {
  DepthwisePlaneT(phases, rows, phase_w, sh, sw, dh, dw, kh, kw, taps, oh, ow, y, rq);
}

// out[i] = saturate(round((acc[i] + add) * scale_i) + zero), scale_i =
// per_column[i] or scale; in double, rounding half to even, so the result
// is the scalar formula's bit for bit. A NaN product gives the zero point,
// as QuantizeLinear does.
template <typename T>
void Requantize(const int32_t* acc, int64_t n, int32_t add, double scale, const double* per_column, int32_t zero,
                T* out) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<int32_t, decltype(dd)> di;
  const hn::Rebind<T, decltype(dd)> dt;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(dd));
  const double lo = std::is_signed_v<T> ? -128.0 : 0.0, hi = std::is_signed_v<T> ? 127.0 : 255.0;
  const auto vlo = hn::Set(dd, lo), vhi = hn::Set(dd, hi), vz = hn::Set(dd, zero), vadd = hn::Set(dd, add);
  const auto vs = hn::Set(dd, scale);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    auto v = (hn::PromoteTo(dd, hn::LoadU(di, acc + i)) + vadd) * (per_column ? hn::LoadU(dd, per_column + i) : vs);
    v = hn::IfThenZeroElse(hn::IsNaN(v), v);  // a NaN scale (or 0 * inf) gives the zero point
    v = hn::Min(hn::Max(hn::Round(v) + vz, vlo), vhi);
    hn::StoreU(hn::DemoteTo(dt, hn::DemoteTo(di, v)), dt, out + i);
  }
  for (; i < n; ++i) {
    double v = (static_cast<double>(acc[i]) + add) * (per_column ? per_column[i] : scale);
    v = std::nearbyint(std::isnan(v) ? 0.0 : v) + zero;
    out[i] = static_cast<T>(std::min(std::max(v, lo), hi));
  }
}

// Requantize with one scale, twice the lanes: in float, where float gives
// the double formula's result. With |acc|, |add| < 2^23 the sum converts
// exactly, so the float product is within 2^-23 of the exact one
// relatively: under 1e-4 absolutely while |v| < 512, where it can change
// the rounding only near a half step. A vector with a lane that near a half
// step, or with |acc| out of that range, takes the double formula (rare:
// about one lane in 5,000 for spread values). Past |v| >= 512 every zero
// point saturates, whatever the rounding.
template <typename T>
void RequantizeOneScale(const int32_t* acc, int64_t n, int32_t add, double scale, int32_t zero, T* out) {
  constexpr int32_t kExact = 1 << 23;
  const float fscale = static_cast<float>(scale);
  if (add <= -kExact || add >= kExact || !(std::abs(scale) < 1e30) || std::isnan(fscale)) {
    Requantize(acc, n, add, scale, nullptr, zero, out);
    return;
  }
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<T, decltype(df)> dt;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  const float lo = std::is_signed_v<T> ? -128.f : 0.f, hi = std::is_signed_v<T> ? 127.f : 255.f;
  const auto vs = hn::Set(df, fscale), vz = hn::Set(df, static_cast<float>(zero));
  const auto vlo = hn::Set(df, lo), vhi = hn::Set(df, hi);
  const auto vadd = hn::Set(di, add);
  const auto near_half = hn::Set(df, 0.5f - 1e-4f);
  const auto exact_lo = hn::Set(di, -kExact), exact_hi = hn::Set(di, kExact);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto a = hn::LoadU(di, acc + i);
    const auto v = hn::Mul(hn::ConvertTo(df, hn::Add(a, vadd)), vs);
    const auto r = hn::Round(v);
    const auto in_range = hn::And(hn::Gt(a, exact_lo), hn::Lt(a, exact_hi));
    // Within 1e-4 of a half step (checked past 512 too, where it only
    // costs a fallback: every zero point saturates there).
    const auto doubt = hn::Gt(hn::Abs(hn::Sub(v, r)), near_half);
    if (!hn::AllTrue(df, hn::AndNot(doubt, hn::RebindMask(df, in_range)))) {
      Requantize(acc + i, lanes, add, scale, nullptr, zero, out + i);
      continue;
    }
    const auto q = hn::Min(hn::Max(hn::Add(r, vz), vlo), vhi);
    hn::StoreU(hn::DemoteTo(dt, hn::ConvertTo(di, q)), dt, out + i);
  }
  if (i < n) Requantize(acc + i, n - i, add, scale, nullptr, zero, out + i);
}

void RequantizeS8(const int32_t* acc, int64_t n, int32_t add, double scale, const double* per_column, int32_t zero,
                  int8_t* out) {
  if (per_column == nullptr) return RequantizeOneScale(acc, n, add, scale, zero, out);
  Requantize(acc, n, add, scale, per_column, zero, out);
}
void RequantizeU8(const int32_t* acc, int64_t n, int32_t add, double scale, const double* per_column, int32_t zero,
                  uint8_t* out) {
  if (per_column == nullptr) return RequantizeOneScale(acc, n, add, scale, zero, out);
  Requantize(acc, n, add, scale, per_column, zero, out);
}

// y = saturate(round_half_even(x / s) + zp), NaN to the zero point; |x / s|
// is clamped to 2^22 first (the result saturates past that anyway).
template <typename T>
void Quantize(const float* x, int64_t n, float s, float zp, T* y) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<T, decltype(df)> dt;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  const float lo = std::is_signed_v<T> ? -128.f : 0.f, hi = std::is_signed_v<T> ? 127.f : 255.f;
  const auto vs = hn::Set(df, s), vz = hn::Set(df, zp), vlo = hn::Set(df, lo), vhi = hn::Set(df, hi);
  const auto limit = hn::Set(df, 4194304.f), zero = hn::Zero(df);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    auto q = hn::Div(hn::LoadU(df, x + i), vs);
    q = hn::IfThenElse(hn::IsNaN(q), zero, hn::Min(hn::Max(q, hn::Neg(limit)), limit));
    const auto r = hn::Min(hn::Max(hn::Round(q) + vz, vlo), vhi);
    hn::StoreU(hn::DemoteTo(dt, hn::ConvertTo(di, r)), dt, y + i);
  }
  for (; i < n; ++i) {
    float q = x[i] / s;
    q = q == q ? std::min(4194304.f, std::max(-4194304.f, q)) : 0.f;
    y[i] = static_cast<T>(std::min(hi, std::max(lo, std::nearbyint(q) + zp)));
  }
}

// y = (x - zp) * s.
template <typename T>
void Dequantize(const T* x, int64_t n, float s, float zp, float* y) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<T, decltype(df)> dt;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  const auto vs = hn::Set(df, s), vz = hn::Set(df, zp);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU((hn::ConvertTo(df, hn::PromoteTo(di, hn::LoadU(dt, x + i))) - vz) * vs, df, y + i);
  for (; i < n; ++i) y[i] = (static_cast<float>(x[i]) - zp) * s;
}

void QuantizeS8(const float* x, int64_t n, float s, float zp, int8_t* y) { Quantize(x, n, s, zp, y); }
void QuantizeU8(const float* x, int64_t n, float s, float zp, uint8_t* y) { Quantize(x, n, s, zp, y); }
void DequantizeS8(const int8_t* x, int64_t n, float s, float zp, float* y) { Dequantize(x, n, s, zp, y); }
void DequantizeU8(const uint8_t* x, int64_t n, float s, float zp, float* y) { Dequantize(x, n, s, zp, y); }

}  // namespace HWY_NAMESPACE
}  // namespace tessera::cpu::int32_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::cpu {
namespace int32_detail {
HWY_EXPORT(DepthwisePlane);
HWY_EXPORT(DepthwisePlaneF);
HWY_EXPORT(PhasePlanesF);
HWY_EXPORT(RangeWithZero);
HWY_EXPORT(PhasePlanes);
HWY_EXPORT(RequantizeS8);
HWY_EXPORT(RequantizeU8);
HWY_EXPORT(QuantizeS8);
HWY_EXPORT(QuantizeU8);
HWY_EXPORT(DequantizeS8);
HWY_EXPORT(DequantizeU8);
}  // namespace int32_detail
using namespace int32_detail;  // NOLINT(google-build-using-namespace): see simd_elementwise.cc

void RangeWithZeroF32(const float* x, int64_t n, float* lo, float* hi) {
  *lo = *hi = 0.f;
  if (n > 0) HWY_DYNAMIC_DISPATCH(RangeWithZero)(x, n, lo, hi);
}

void PhasePlanesI32(const uint8_t* in, int64_t h, int64_t w, bool is_signed, int32_t zero, int64_t pad_t,
                    int64_t pad_l, int64_t rows, int64_t cols, int64_t sw, int64_t phase_w, int32_t* phases) {
  if (rows > 0 && cols > 0)
    HWY_DYNAMIC_DISPATCH(PhasePlanes)(in, h, w, is_signed, zero, pad_t, pad_l, rows, cols, sw, phase_w, phases);
}

void DepthwisePlaneI32(const int32_t* phases, int64_t rows, int64_t phase_w, int64_t sh, int64_t sw, int64_t dh,
                       int64_t dw, int64_t kh, int64_t kw, const int32_t* taps, int64_t oh, int64_t ow, int32_t* y) {
  if (oh > 0 && ow > 0)
    HWY_DYNAMIC_DISPATCH(DepthwisePlane)(phases, rows, phase_w, sh, sw, dh, dw, kh, kw, taps, oh, ow, y);
}

void PhasePlanesF32(const uint8_t* in, int64_t h, int64_t w, bool is_signed, int32_t zero, int64_t pad_t,
                    int64_t pad_l, int64_t rows, int64_t cols, int64_t sw, int64_t phase_w, float* phases) {
  if (rows > 0 && cols > 0)
    HWY_DYNAMIC_DISPATCH(PhasePlanesF)(in, h, w, is_signed, zero, pad_t, pad_l, rows, cols, sw, phase_w, phases);
}

bool DepthwiseRequantFuses(const DepthwiseRequant& rq, int64_t taps) {
  constexpr int32_t kExact = 1 << 23;
  return taps <= kDepthwiseFusedMaxTaps && rq.bias > -kExact && rq.bias < kExact && std::abs(rq.scale) < 1e30;
}

void DepthwisePlaneF32(const float* phases, int64_t rows, int64_t phase_w, int64_t sh, int64_t sw, int64_t dh,
                       int64_t dw, int64_t kh, int64_t kw, const float* taps, int64_t oh, int64_t ow, int32_t* y,
                       const DepthwiseRequant* rq) {
  if (oh > 0 && ow > 0)
    HWY_DYNAMIC_DISPATCH(DepthwisePlaneF)(phases, rows, phase_w, sh, sw, dh, dw, kh, kw, taps, oh, ow, y, rq);
}

void RequantizeI32(const int32_t* acc, int64_t n, int32_t add, double scale, const double* per_column, int32_t zero,
                   bool out_signed, void* out) {
  if (n <= 0) return;
  if (out_signed) HWY_DYNAMIC_DISPATCH(RequantizeS8)(acc, n, add, scale, per_column, zero, static_cast<int8_t*>(out));
  else HWY_DYNAMIC_DISPATCH(RequantizeU8)(acc, n, add, scale, per_column, zero, static_cast<uint8_t*>(out));
}

void QuantizeF32(const float* x, int64_t n, float scale, float zero, bool out_signed, void* y) {
  if (n <= 0) return;
  if (out_signed) HWY_DYNAMIC_DISPATCH(QuantizeS8)(x, n, scale, zero, static_cast<int8_t*>(y));
  else HWY_DYNAMIC_DISPATCH(QuantizeU8)(x, n, scale, zero, static_cast<uint8_t*>(y));
}

void DequantizeToF32(const void* x, bool in_signed, int64_t n, float scale, float zero, float* y) {
  if (n <= 0) return;
  if (in_signed) HWY_DYNAMIC_DISPATCH(DequantizeS8)(static_cast<const int8_t*>(x), n, scale, zero, y);
  else HWY_DYNAMIC_DISPATCH(DequantizeU8)(static_cast<const uint8_t*>(x), n, scale, zero, y);
}

}  // namespace tessera::cpu
#endif  // HWY_ONCE
