// Kernels of simd_pool.h, compiled once per x86 target by Highway.
#include "tessera/providers/cpu/simd_pool.h"

#include <cmath>
#include <limits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tessera/providers/cpu/simd_pool.cc"
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

}  // namespace HWY_NAMESPACE
}  // namespace tessera::cpu::pool_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::cpu {
namespace pool_detail {
HWY_EXPORT(MaxWindows);
}  // namespace pool_detail
using namespace pool_detail;  // NOLINT(google-build-using-namespace): see simd_elementwise.cc

void MaxWindowsF32(const float* x, int64_t row_step, int64_t col_step, int64_t out_step, int64_t kh, int64_t kw,
                   int64_t lanes, int64_t outs, float* y) {
  if (outs > 0 && lanes > 0 && kh > 0 && kw > 0)
    HWY_DYNAMIC_DISPATCH(MaxWindows)(x, row_step, col_step, out_step, kh, kw, lanes, outs, y);
}

}  // namespace tessera::cpu
#endif  // HWY_ONCE
