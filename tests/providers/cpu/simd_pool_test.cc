// MaxWindowsF32 (simd_pool.h) against a scalar reference on every SIMD
// target: pixel widths on and off the vector length, strided and dilated
// windows, runs of outputs, and NaN and infinities in the windows.
#include "tessera/providers/cpu/simd_pool.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "support/simd_targets.h"

namespace tessera::cpu {
namespace {

struct Case {
  int64_t lanes, kh, kw, stride, dil_h, dil_w, outs;
};

TEST(SimdPool, MaxWindowsMatchTheScalarReference) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const Case cases[] = {{8, 3, 3, 2, 1, 1, 27}, {16, 3, 3, 2, 1, 1, 5}, {1, 2, 2, 2, 1, 1, 7},
                        {3, 3, 2, 1, 2, 3, 4},  {20, 1, 3, 1, 1, 1, 9}, {64, 3, 3, 2, 1, 1, 3},
                        {8, 1, 1, 1, 1, 1, 1},  {17, 5, 4, 3, 2, 1, 6}};
  test::OnEverySimdTarget([&] {
    for (const Case& k : cases) {
      SCOPED_TRACE(testing::Message() << "lanes " << k.lanes << " window " << k.kh << "x" << k.kw);
      const int64_t W = (k.outs - 1) * k.stride + (k.kw - 1) * k.dil_w + 1, H = (k.kh - 1) * k.dil_h + 1;
      std::vector<float> x(static_cast<size_t>(H * W * k.lanes));
      for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * static_cast<float>(i)) * 100.f - 3.f;
      x[x.size() / 3] = nan;
      x[x.size() / 2] = inf;
      x[x.size() / 5] = -inf;
      x[x.size() - 1] = nan;
      std::vector<float> y(static_cast<size_t>(k.outs * k.lanes), 12345.f);
      MaxWindowsF32(x.data(), k.dil_h * W * k.lanes, k.dil_w * k.lanes, k.stride * k.lanes, k.kh, k.kw, k.lanes, k.outs,
                    y.data());
      for (int64_t o = 0; o < k.outs; ++o)
        for (int64_t l = 0; l < k.lanes; ++l) {
          float want = -inf;
          bool has_nan = false;
          for (int64_t i = 0; i < k.kh; ++i)
            for (int64_t j = 0; j < k.kw; ++j) {
              const float v = x[static_cast<size_t>(((i * k.dil_h) * W + o * k.stride + j * k.dil_w) * k.lanes + l)];
              has_nan |= std::isnan(v);
              want = v > want ? v : want;
            }
          const float got = y[static_cast<size_t>(o * k.lanes + l)];
          if (has_nan)
            EXPECT_TRUE(std::isnan(got)) << "output " << o << " lane " << l;
          else
            EXPECT_EQ(got, want) << "output " << o << " lane " << l;
        }
    }
  });
}

}  // namespace
}  // namespace tessera::cpu
