// Kernels of simd_pool.h, compiled once per x86 target by Highway.
#include "tessera/providers/common/simd_pool.h"

#include <cmath>
#include <limits>
#include <type_traits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tessera/providers/common/simd_pool.cc"
#include "hwy/foreach_target.h"  // re-includes this file once per target
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::pool_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void MaxWindows(const float* x, int64_t row_step, int64_t col_step, int64_t out_step, int64_t kh, int64_t kw,
                int64_t lanes, int64_t outs, float* y) {
  const hn::ScalableTag<float> d;
  const int64_t n = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t o = 0; o < outs; ++o) {
    const float* xo = x + o * out_step;
    float* yo = y + o * lanes;
    int64_t l = 0;
    // NaN is tracked apart: the max instruction drops a NaN operand.
    for (; l + n <= lanes; l += n) {
      auto m = hn::LoadU(d, xo + l);
      auto nan = hn::IsNaN(m);
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j) {
          const auto v = hn::LoadU(d, xo + i * row_step + j * col_step + l);
          m = hn::Max(m, v);
          nan = hn::Or(nan, hn::IsNaN(v));
        }
      hn::StoreU(hn::IfThenElse(nan, hn::Set(d, std::numeric_limits<float>::quiet_NaN()), m), d, yo + l);
    }
    for (; l < lanes; ++l) {
      float m = xo[l];
      bool nan = false;
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j) {
          const float v = xo[i * row_step + j * col_step + l];
          m = v > m ? v : m;
          nan |= std::isnan(v);
        }
      yo[l] = nan ? std::numeric_limits<float>::quiet_NaN() : m;
    }
  }
}

// Max that keeps a NaN of either operand, for float; plain Max for integers.
template <class D, class V>
V MaxKeepNaN(D d, V a, V b) {
  if constexpr (hwy::IsFloat<hn::TFromD<D>>()) {
    const auto m = hn::Max(a, b);
    return hn::IfThenElse(hn::Or(hn::IsNaN(a), hn::IsNaN(b)), hn::Add(a, b), m);
  } else {
    (void)d;
    return hn::Max(a, b);
  }
}

template <typename T>
T ScalarMaxKeepNaN(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a || b != b) return a + b;
  }
  return b > a ? b : a;
}

// At most 16 lanes: pooled rows are short (13 to 112 pixels), and a 64-lane
// 8-bit vector would leave most of a row to the scalar tail.
template <typename T>
using PoolTag = hn::CappedTag<T, 16>;

template <typename T>
void MaxRowsT(const T* const* rows, int64_t nrows, int64_t n, T* y) {
  const PoolTag<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto at = [&](int64_t i) {
    auto m = hn::LoadU(d, rows[0] + i);
    for (int64_t r = 1; r < nrows; ++r) m = MaxKeepNaN(d, m, hn::LoadU(d, rows[r] + i));
    hn::StoreU(m, d, y + i);
  };
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) at(i);
  // The tail as one vector overlapping the last: a maximum written twice is
  // the same value.
  if (i < n && n >= lanes) {
    at(n - lanes);
    i = n;
  }
  for (; i < n; ++i) {
    T m = rows[0][i];
    for (int64_t r = 1; r < nrows; ++r) m = ScalarMaxKeepNaN(m, rows[r][i]);
    y[i] = m;
  }
}

// Strides 1 and 2 (nearly every CNN pool) are vector loops: stride 2 splits
// the row into its even and odd elements, so window cell j of output o is
// element o + j / 2 of one of the two halves.
template <typename T>
void MaxSlidingT(const T* m, int64_t kw, int64_t stride, int64_t outs, T* y) {
  const PoolTag<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t o = 0;
  const auto stride1 = [&](int64_t o) {
    auto v = hn::LoadU(d, m + o);
    for (int64_t j = 1; j < kw; ++j) v = MaxKeepNaN(d, v, hn::LoadU(d, m + o + j));
    hn::StoreU(v, d, y + o);
  };
  const auto stride2 = [&](int64_t o) {
    hn::Vec<decltype(d)> even, odd;
    hn::LoadInterleaved2(d, m + 2 * o, even, odd);
    auto v = kw > 1 ? MaxKeepNaN(d, even, odd) : even;
    for (int64_t j = 2; j < kw; ++j) {
      hn::LoadInterleaved2(d, m + 2 * (o + j / 2), even, odd);
      v = MaxKeepNaN(d, v, (j & 1) ? odd : even);
    }
    hn::StoreU(v, d, y + o);
  };
  if ((stride == 1 || stride == 2) && outs >= lanes) {
    const auto& at = [&](int64_t o) { stride == 1 ? stride1(o) : stride2(o); };
    for (; o + lanes <= outs; o += lanes) at(o);
    if (o < outs) at(outs - lanes);  // overlapping tail, as in MaxRowsT
    o = outs;
  }
  for (; o < outs; ++o) {
    const T* w = m + o * stride;
    T v = w[0];
    for (int64_t j = 1; j < kw; ++j) v = ScalarMaxKeepNaN(v, w[j]);
    y[o] = v;
  }
}

void MaxRowsF(const float* const* r, int64_t k, int64_t n, float* y) { MaxRowsT(r, k, n, y); }
void MaxRowsU(const uint8_t* const* r, int64_t k, int64_t n, uint8_t* y) { MaxRowsT(r, k, n, y); }
void MaxRowsI(const int8_t* const* r, int64_t k, int64_t n, int8_t* y) { MaxRowsT(r, k, n, y); }
void MaxSlidingF(const float* m, int64_t kw, int64_t s, int64_t outs, float* y) { MaxSlidingT(m, kw, s, outs, y); }
void MaxSlidingU(const uint8_t* m, int64_t kw, int64_t s, int64_t outs, uint8_t* y) {
  MaxSlidingT(m, kw, s, outs, y);
}
void MaxSlidingI(const int8_t* m, int64_t kw, int64_t s, int64_t outs, int8_t* y) { MaxSlidingT(m, kw, s, outs, y); }

}  // namespace HWY_NAMESPACE
}  // namespace tessera::cpu::pool_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::cpu {
namespace pool_detail {
HWY_EXPORT(MaxWindows);
HWY_EXPORT(MaxRowsF);
HWY_EXPORT(MaxRowsU);
HWY_EXPORT(MaxRowsI);
HWY_EXPORT(MaxSlidingF);
HWY_EXPORT(MaxSlidingU);
HWY_EXPORT(MaxSlidingI);
}  // namespace pool_detail
using namespace pool_detail;  // NOLINT(google-build-using-namespace): see simd_elementwise.cc

void MaxWindowsF32(const float* x, int64_t row_step, int64_t col_step, int64_t out_step, int64_t kh, int64_t kw,
                   int64_t lanes, int64_t outs, float* y) {
  if (outs > 0 && lanes > 0 && kh > 0 && kw > 0)
    HWY_DYNAMIC_DISPATCH(MaxWindows)(x, row_step, col_step, out_step, kh, kw, lanes, outs, y);
}

void MaxRowsF32(const float* const* rows, int64_t nrows, int64_t n, float* y) {
  if (n > 0) HWY_DYNAMIC_DISPATCH(MaxRowsF)(rows, nrows, n, y);
}
void MaxRowsU8(const uint8_t* const* rows, int64_t nrows, int64_t n, uint8_t* y) {
  if (n > 0) HWY_DYNAMIC_DISPATCH(MaxRowsU)(rows, nrows, n, y);
}
void MaxRowsI8(const int8_t* const* rows, int64_t nrows, int64_t n, int8_t* y) {
  if (n > 0) HWY_DYNAMIC_DISPATCH(MaxRowsI)(rows, nrows, n, y);
}

// A stride-2 vector loop reads the pair of the last window's last element:
// one element past it.
int64_t MaxSlidingReach(int64_t kw, int64_t stride, int64_t outs) {
  return outs <= 0 ? 0 : (outs - 1) * stride + kw + 1;
}
void MaxSlidingF32(const float* m, int64_t kw, int64_t stride, int64_t outs, float* y) {
  if (outs > 0) HWY_DYNAMIC_DISPATCH(MaxSlidingF)(m, kw, stride, outs, y);
}
void MaxSlidingU8(const uint8_t* m, int64_t kw, int64_t stride, int64_t outs, uint8_t* y) {
  if (outs > 0) HWY_DYNAMIC_DISPATCH(MaxSlidingU)(m, kw, stride, outs, y);
}
void MaxSlidingI8(const int8_t* m, int64_t kw, int64_t stride, int64_t outs, int8_t* y) {
  if (outs > 0) HWY_DYNAMIC_DISPATCH(MaxSlidingI)(m, kw, stride, outs, y);
}

}  // namespace tessera::cpu
#endif  // HWY_ONCE
