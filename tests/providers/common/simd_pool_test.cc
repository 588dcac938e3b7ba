// The pooling kernels of simd_pool.h against scalar references on every SIMD
// target. MaxWindowsF32: pixel widths on and off the vector length, strided
// and dilated windows, runs of outputs, and NaN and infinities in the
// windows. MaxRows*/MaxSliding*: float, uint8 and int8 rows shorter than,
// equal to and longer than a vector (the overlapping tail), strides 1 to 3,
// window widths 1 to 5, the types' extremes, and NaN for float.
#include "tessera/providers/common/simd_pool.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
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

template <typename T>
T RefMax(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a || b != b) return std::numeric_limits<T>::quiet_NaN();
  }
  return b > a ? b : a;
}

template <typename T>
bool SameResult(T got, T want) {
  if constexpr (std::is_floating_point_v<T>) {
    if (want != want) return got != got;
  }
  return got == want;
}

template <typename T>
std::vector<T> Sample(int64_t n, int seed) {
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const double s = std::sin(0.61 * static_cast<double>(i) + seed);
    if constexpr (std::is_floating_point_v<T>) {
      v[static_cast<size_t>(i)] = static_cast<T>(s * 50.0);
    } else {
      const double lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
      v[static_cast<size_t>(i)] = static_cast<T>(lo + (s + 1.0) / 2.0 * (hi - lo));
    }
  }
  if (n > 3) {
    v[1] = std::numeric_limits<T>::lowest();
    v[static_cast<size_t>(n - 2)] = std::numeric_limits<T>::max();
    if constexpr (std::is_floating_point_v<T>) {
      v[static_cast<size_t>(n / 2)] = std::numeric_limits<T>::quiet_NaN();
      v[static_cast<size_t>(n / 3)] = -std::numeric_limits<T>::infinity();
    }
  }
  return v;
}

template <typename T, typename Rows, typename Sliding>
void CheckRowsAndSliding(Rows rows_fn, Sliding sliding_fn) {
  for (int64_t n : {1, 5, 15, 16, 17, 31, 33, 55, 64, 111, 130}) {
    SCOPED_TRACE(testing::Message() << "row of " << n);
    for (int64_t k = 1; k <= 3; ++k) {
      std::vector<std::vector<T>> data;
      std::vector<const T*> rows;
      for (int64_t r = 0; r < k; ++r) data.push_back(Sample<T>(n, static_cast<int>(r * 7 + n)));
      for (const auto& d : data) rows.push_back(d.data());
      std::vector<T> y(static_cast<size_t>(n));
      rows_fn(rows.data(), k, n, y.data());
      for (int64_t i = 0; i < n; ++i) {
        T want = data[0][static_cast<size_t>(i)];
        for (int64_t r = 1; r < k; ++r) want = RefMax(want, data[static_cast<size_t>(r)][static_cast<size_t>(i)]);
        ASSERT_TRUE(SameResult(y[static_cast<size_t>(i)], want)) << "rows " << k << " element " << i;
      }
    }
    for (int64_t stride = 1; stride <= 3; ++stride)
      for (int64_t kw = 1; kw <= 5; ++kw) {
        const int64_t outs = n;
        std::vector<T> m = Sample<T>(MaxSlidingReach(kw, stride, outs), static_cast<int>(n + kw));
        std::vector<T> y(static_cast<size_t>(outs));
        sliding_fn(m.data(), kw, stride, outs, y.data());
        for (int64_t o = 0; o < outs; ++o) {
          T want = m[static_cast<size_t>(o * stride)];
          for (int64_t j = 1; j < kw; ++j) want = RefMax(want, m[static_cast<size_t>(o * stride + j)]);
          ASSERT_TRUE(SameResult(y[static_cast<size_t>(o)], want))
              << "stride " << stride << " width " << kw << " output " << o;
        }
      }
  }
}

TEST(SimdPool, RowMaximaAndSlidingMaximaMatchTheScalarReference) {
  test::OnEverySimdTarget([&] {
    CheckRowsAndSliding<float>(MaxRowsF32, MaxSlidingF32);
    CheckRowsAndSliding<uint8_t>(MaxRowsU8, MaxSlidingU8);
    CheckRowsAndSliding<int8_t>(MaxRowsI8, MaxSlidingI8);
  });
}

}  // namespace
}  // namespace tessera::cpu
