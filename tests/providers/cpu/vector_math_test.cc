// The in-place Gelu forms of vector_math.h (FusedMatMul/FusedGemm's
// epilogue) against double references, on every SIMD target, at lengths
// around their 512-value blocks.
#include "tessera/providers/cpu/vector_math.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "support/simd_targets.h"

namespace tessera::cpu {
namespace {

double GeluErf(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double GeluTanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(0.79788456080286535587989211986876 * (x + 0.044715 * x * x * x)));
}

std::vector<float> Inputs(size_t n) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = -9.f + 18.f * static_cast<float>(i) / static_cast<float>(n);
  const float specials[] = {0.f, -0.f, 1e-30f, -3.3f, 1e4f, -1e4f, std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN()};
  for (size_t i = 0; i < std::size(specials) && i < n; ++i) x[(i * 97) % n] = specials[i];
  return x;
}

template <class F>
void Check(void (*in_place)(float*, int64_t), F reference) {
  test::OnEverySimdTarget([&] {
    for (size_t n : {size_t{1}, size_t{8}, size_t{511}, size_t{512}, size_t{513}, size_t{1500}}) {
      const std::vector<float> x = Inputs(n);
      std::vector<float> y = x;
      in_place(y.data(), static_cast<int64_t>(n));
      for (size_t i = 0; i < n; ++i) {
        const double want = reference(static_cast<double>(x[i]));
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(y[i])) << "x = " << x[i];
        } else if (std::isinf(want)) {
          EXPECT_EQ(y[i], want) << "x = " << x[i];
        } else {
          // The SIMD erf/tanh are within 3e-7 absolute; Gelu scales that by |x| / 2.
          EXPECT_NEAR(y[i], want, 1e-6 * std::abs(want) + 3e-7 * std::max(1.0, std::abs(double{x[i]})))
              << "x = " << x[i] << " n = " << n;
        }
      }
    }
  });
}

TEST(GeluInPlaceTest, ErfFormMatchesDoubleOnEveryTarget) { Check(GeluErfInPlace, GeluErf); }
TEST(GeluInPlaceTest, TanhFormMatchesDoubleOnEveryTarget) { Check(GeluTanhInPlace, GeluTanh); }

}  // namespace
}  // namespace tessera::cpu
