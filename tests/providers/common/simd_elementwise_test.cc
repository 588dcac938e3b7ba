// The vectorized elementwise kernels against scalar references, on every
// SIMD target Highway compiled them for.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include "support/simd_targets.h"
#include "tessera/providers/common/simd_elementwise.h"

namespace tessera::cpu {
namespace {

using test::OnEverySimdTarget;

double ExactSilu(double x) { return x / (1.0 + std::exp(-x)); }

void ExpectAccurate(const std::vector<float>& x, const std::vector<float>& y) {
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = ExactSilu(x[i]);
    // Relative, except near zero (|x| tiny) and far out (both ~0).
    EXPECT_NEAR(y[i], want, 3e-7 * std::abs(want) + 1e-30) << "x = " << x[i];
  }
}

TEST(SiluSimdTest, MatchesExactOnEveryTarget) {
  std::vector<float> x;
  for (float v = -100.f; v <= 100.f; v += 0.0137f) x.push_back(v);
  for (float v : {0.f, -0.f, 1e-20f, -1e-20f, 86.9f, -86.9f, 88.f, -88.f, 1e30f}) x.push_back(v);
  OnEverySimdTarget([&] {
    // Every tail length up to a few vectors, and the whole array.
    for (size_t n : {size_t{1}, size_t{3}, size_t{7}, size_t{15}, size_t{17}, size_t{33}, x.size()}) {
      std::vector<float> in(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n)), out(n, -1.f);
      SiluF32(in.data(), out.data(), static_cast<int64_t>(n));
      ExpectAccurate(in, out);
    }
  });
}

// Special values at every position of three full vectors of the widest
// target and of a tail, so both the vector loop and the tail path see each.
std::vector<float> SpecialValuesEverywhere() {
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {std::nanf(""), inf, -inf, 1000.f, -1000.f, 0.f, -0.f,
                            std::numeric_limits<float>::denorm_min(), -1e-40f, 1e-30f, -88.5f, -100.f, 100.f};
  std::vector<float> v(3 * 16 + 7);
  for (size_t i = 0; i < v.size(); ++i) v[i] = specials[i % std::size(specials)];
  return v;
}

// |got - want| within 3e-7 relative; where want is below the normal range,
// within FLT_MIN (denormal results may also flush to 0); NaN and infinities
// exactly.
void ExpectClose(float got, double want, const char* what, float x) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what << "(" << x << ") = " << got << ", want NaN";
  } else if (std::isinf(want)) {
    EXPECT_EQ(got, want) << what << "(" << x << ")";
  } else {
    const double floor = std::abs(want) < std::numeric_limits<float>::min() ? std::numeric_limits<float>::min() : 0.0;
    EXPECT_NEAR(got, want, 3e-7 * std::abs(want) + floor) << what << "(" << x << ")";
  }
}

double RefSigmoid(double x) { return std::isnan(x) ? x : (x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x))); }
double RefSwish(double x, double alpha) {
  if (std::isnan(x)) return x;
  const double s = RefSigmoid(alpha * x);
  return s == 0.0 ? 0.0 : x * s;  // x = -inf: the limit, 0
}

TEST(SiluSimdTest, SpecialValuesInVectorsAndTailsInPlaceOnEveryTarget) {
  const std::vector<float> x = SpecialValuesEverywhere();
  OnEverySimdTarget([&] {
    std::vector<float> v = x;
    SiluF32(v.data(), v.data(), static_cast<int64_t>(v.size()));
    for (size_t i = 0; i < x.size(); ++i) ExpectClose(v[i], RefSwish(x[i], 1.0), "silu", x[i]);
    EXPECT_EQ(v[3], 1000.f);  // exactly x: the sigmoid factor is 1 to float precision
    SiluF32(nullptr, nullptr, 0);  // nothing to do, nothing touched
  });
}

TEST(SwishSimdTest, SpecialValuesInVectorsAndTailsOnEveryTarget) {
  const std::vector<float> x = SpecialValuesEverywhere();
  OnEverySimdTarget([&] {
    for (float alpha : {1.0f, 0.5f, -2.0f, 0.0f}) {
      SCOPED_TRACE(alpha);
      std::vector<float> y(x.size(), -7.f);
      SwishF32(x.data(), y.data(), static_cast<int64_t>(x.size()), alpha);
      for (size_t i = 0; i < x.size(); ++i) {
        if (alpha == 0.0f && std::isinf(x[i])) continue;  // inf * 0.5: inf, as the exact formula says
        ExpectClose(y[i], RefSwish(x[i], alpha), "swish", x[i]);
      }
    }
  });
}

TEST(SwishSimdTest, MatchesExactOnEveryTargetForAnyAlpha) {
  std::vector<float> x;
  for (float v = -60.f; v <= 60.f; v += 0.0213f) x.push_back(v);
  for (float v : {0.f, -0.f, 1e-20f, -1e-20f, 1e30f}) x.push_back(v);
  OnEverySimdTarget([&] {
    for (float alpha : {1.0f, 0.5f, -2.0f, 0.0f}) {
      SCOPED_TRACE(alpha);
      for (size_t n : {size_t{5}, size_t{19}, x.size()}) {
        std::vector<float> out(n, -1.f);
        SwishF32(x.data(), out.data(), static_cast<int64_t>(n), alpha);
        for (size_t i = 0; i < n; ++i) {
          const double want = x[i] / (1.0 + std::exp(-static_cast<double>(alpha) * x[i]));
          // Past |alpha x| = 87 the sigmoid factor stops at e^-87: an
          // absolute error below 2e-38 |x| (1e30 with alpha < 0: 1.6e-8).
          EXPECT_NEAR(out[i], want, 3e-7 * std::abs(want) + 2e-38 * std::abs(x[i]) + 1e-30) << "x = " << x[i];
        }
      }
    }
  });
}

TEST(AddRowsSimdTest, ColumnSumsOnEveryTarget) {
  OnEverySimdTarget([&] {
    for (int64_t n : {1, 7, 16, 33, 96}) {
      for (int64_t rows : {0, 1, 5}) {
        std::vector<float> x(static_cast<size_t>(rows * n)), acc(static_cast<size_t>(n));
        for (size_t i = 0; i < x.size(); ++i) x[i] = 0.25f * static_cast<float>(i % 13) - 1.0f;
        for (size_t i = 0; i < acc.size(); ++i) acc[i] = static_cast<float>(i);
        AddRowsF32(x.data(), rows, n, acc.data());
        for (int64_t i = 0; i < n; ++i) {
          float want = static_cast<float>(i);
          for (int64_t r = 0; r < rows; ++r) want += x[static_cast<size_t>(r * n + i)];
          EXPECT_FLOAT_EQ(acc[static_cast<size_t>(i)], want) << "n " << n << " rows " << rows << " column " << i;
        }
      }
    }
  });
}

TEST(MatVecSimdTest, MatchesDoubleOnEveryTarget) {
  OnEverySimdTarget([&] {
    for (int64_t rows : {1, 3, 4, 9}) {
      for (int64_t k : {1, 15, 16, 37}) {
        std::vector<float> w(static_cast<size_t>(rows * k)), x(static_cast<size_t>(k)), bias(static_cast<size_t>(rows));
        for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * static_cast<float>(static_cast<int>(i % 17) - 8);
        for (size_t i = 0; i < x.size(); ++i) x[i] = 0.3f * static_cast<float>(static_cast<int>(i % 5) - 2);
        for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(i) - 1.5f;
        for (const float* b : {static_cast<const float*>(nullptr), static_cast<const float*>(bias.data())}) {
          std::vector<float> y(static_cast<size_t>(rows), -7.f);
          MatVecF32(w.data(), x.data(), rows, k, b, y.data());
          for (int64_t j = 0; j < rows; ++j) {
            double want = b != nullptr ? b[j] : 0.0;
            for (int64_t i = 0; i < k; ++i) want += static_cast<double>(w[static_cast<size_t>(j * k + i)]) * x[static_cast<size_t>(i)];
            EXPECT_NEAR(y[static_cast<size_t>(j)], want, 1e-5) << "rows " << rows << " k " << k << " row " << j;
          }
        }
      }
    }
  });
}

TEST(MaskedFillSimdTest, KeepsOrFillsOnEveryTarget) {
  const float inf = std::numeric_limits<float>::infinity();
  OnEverySimdTarget([&] {
    for (int64_t n : {1, 15, 16, 37}) {
      std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n), 0.f);
      std::vector<uint8_t> keep(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        x[static_cast<size_t>(i)] = i % 5 == 0 ? inf : (i % 7 == 0 ? std::nanf("") : static_cast<float>(i));
        keep[static_cast<size_t>(i)] = static_cast<uint8_t>(i % 3 == 0 ? 0 : i % 3);  // 0, 1, 2: any nonzero keeps
      }
      MaskedFillF32(x.data(), keep.data(), -1e4f, y.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        const size_t k = static_cast<size_t>(i);
        if (keep[k] == 0) {
          EXPECT_EQ(y[k], -1e4f) << i;
        } else if (std::isnan(x[k])) {
          EXPECT_TRUE(std::isnan(y[k])) << i;
        } else {
          EXPECT_EQ(y[k], x[k]) << i;
        }
      }
    }
  });
}

TEST(LayerNormRowSimdTest, MatchesDoubleOnEveryTarget) {
  OnEverySimdTarget([&] {
    for (int64_t d : {1, 7, 16, 70, 768}) {
      std::vector<float> x(static_cast<size_t>(d)), scale(x.size()), bias(x.size()), y(x.size());
      for (int64_t j = 0; j < d; ++j) {
        x[static_cast<size_t>(j)] = 3.0f + 0.37f * static_cast<float>((j * 7) % 11) - 0.01f * static_cast<float>(j);
        scale[static_cast<size_t>(j)] = 0.5f + 0.1f * static_cast<float>(j % 5);
        bias[static_cast<size_t>(j)] = -0.2f * static_cast<float>(j % 3);
      }
      for (const float* b : {static_cast<const float*>(nullptr), static_cast<const float*>(bias.data())}) {
        float mean = 0, inv = 0;
        LayerNormRowF32(x.data(), d, scale.data(), b, 1e-5, y.data(), &mean, &inv);
        double m = 0, v = 0;
        for (float e : x) m += e;
        m /= static_cast<double>(d);
        for (float e : x) v += (e - m) * (e - m);
        const double iv = 1.0 / std::sqrt(v / static_cast<double>(d) + 1e-5);
        EXPECT_NEAR(mean, m, 1e-6 * std::abs(m));
        EXPECT_NEAR(inv, iv, 1e-5 * iv);
        for (int64_t j = 0; j < d; ++j) {
          const size_t k = static_cast<size_t>(j);
          const double want = (x[k] - m) * iv * scale[k] + (b != nullptr ? b[k] : 0.0);
          EXPECT_NEAR(y[k], want, 1e-4 * std::abs(want) + 1e-5) << "d " << d << " j " << j;
        }
      }
    }
  });
}

TEST(SigmoidTanhSimdTest, MatchExactOnEveryTarget) {
  std::vector<float> x;
  for (float v = -95.f; v <= 95.f; v += 0.0113f) x.push_back(v);
  for (float v : {0.f, -0.f, 1e-30f, -1e-30f, 0.2499f, 0.2501f, -0.25f, 1e-4f, 1e30f, -1e30f}) x.push_back(v);
  OnEverySimdTarget([&] {
    for (size_t n : {size_t{3}, size_t{17}, x.size()}) {
      std::vector<float> in(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n)), sig(n), th(n);
      SigmoidF32(in.data(), sig.data(), static_cast<int64_t>(n));
      TanhF32(in.data(), th.data(), static_cast<int64_t>(n));
      for (size_t i = 0; i < n; ++i) {
        const double v = in[i];
        const double s = 1.0 / (1.0 + std::exp(-v)), t = std::tanh(v);
        EXPECT_NEAR(sig[i], s, 3e-7 * s + 1e-37) << "sigmoid x = " << v;
        EXPECT_NEAR(th[i], t, 3e-7 * std::abs(t) + 1e-37) << "tanh x = " << v;
      }
    }
  });
}

TEST(SigmoidTanhSimdTest, SpecialValuesInVectorsAndTailsOnEveryTarget) {
  const std::vector<float> x = SpecialValuesEverywhere();
  OnEverySimdTarget([&] {
    std::vector<float> sig = x, th(x.size(), -7.f);
    SigmoidF32(sig.data(), sig.data(), static_cast<int64_t>(x.size()));  // in place
    TanhF32(x.data(), th.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      ExpectClose(sig[i], RefSigmoid(x[i]), "sigmoid", x[i]);
      ExpectClose(th[i], std::tanh(static_cast<double>(x[i])), "tanh", x[i]);
    }
  });
}

// Relative accuracy where float has the most of it: near 0 (sigmoid near
// 1/2, tanh(x) = x), and sigmoid's tail far below 1, down to the smallest
// normal float and on into the denormals.
TEST(SigmoidTanhSimdTest, RelativeAccuracyNearZeroAndInTheTailsOnEveryTarget) {
  std::vector<float> x;
  for (float v = 1e-38f; v < 1.f; v *= 1.37f) {
    x.push_back(v);
    x.push_back(-v);
  }
  for (float v = -104.f; v <= -20.f; v += 0.0371f) x.push_back(v);
  for (float v = 8.f; v <= 20.f; v += 0.0173f) x.push_back(v);  // sigmoid just below 1: 1 - e^-x
  OnEverySimdTarget([&] {
    std::vector<float> sig(x.size()), th(x.size());
    SigmoidF32(x.data(), sig.data(), static_cast<int64_t>(x.size()));
    TanhF32(x.data(), th.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      ExpectClose(sig[i], RefSigmoid(x[i]), "sigmoid", x[i]);
      ExpectClose(th[i], std::tanh(static_cast<double>(x[i])), "tanh", x[i]);
    }
  });
}

TEST(ErfSimdTest, MatchesStdErfOnEveryTarget) {
  std::vector<float> x;
  for (float v = -6.f; v <= 6.f; v += 0.00731f) x.push_back(v);
  for (float v : {0.f, -0.f, 1e-30f, -1e-30f, 1e-5f, 0.4999f, 0.5f, -0.5001f, 3.9f, 40.f, -1e20f}) x.push_back(v);
  OnEverySimdTarget([&] {
    for (size_t n : {size_t{1}, size_t{5}, size_t{13}, x.size()}) {
      std::vector<float> in(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n)), out(n, -7.f);
      ErfF32(in.data(), out.data(), static_cast<int64_t>(n));
      for (size_t i = 0; i < n; ++i) {
        const double want = std::erf(static_cast<double>(in[i]));
        EXPECT_NEAR(out[i], want, 3e-7 * std::abs(want) + 1e-37) << "x = " << in[i];
      }
    }
  });
}

TEST(ErfSimdTest, SpecialValuesInVectorsAndTailsOnEveryTarget) {
  const std::vector<float> x = SpecialValuesEverywhere();
  OnEverySimdTarget([&] {
    std::vector<float> v = x;
    ErfF32(v.data(), v.data(), static_cast<int64_t>(v.size()));
    for (size_t i = 0; i < x.size(); ++i) ExpectClose(v[i], std::erf(static_cast<double>(x[i])), "erf", x[i]);
  });
}

TEST(ShuffleChannelsTest, InterleavesAndSplitsOnEveryTarget) {
  for (int64_t half : {1, 7, 8, 29, 40}) {
    const int64_t pixels = 3;
    std::vector<float> a(static_cast<size_t>(pixels * half)), b(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = static_cast<float>(i);
      b[i] = -static_cast<float>(i) - 0.5f;
    }
    // The shuffled row of pixel p: a[p][0], b[p][0], a[p][1], ...
    auto want = [&](int64_t p, int64_t j) {
      const std::vector<float>& src = j % 2 == 0 ? a : b;
      return src[static_cast<size_t>(p * half + j / 2)];
    };
    SCOPED_TRACE("half " + std::to_string(half));
    OnEverySimdTarget([&] {
      std::vector<float> whole(static_cast<size_t>(pixels * 2 * half), -1.f);
      ShuffleChannelsF32(a.data(), b.data(), half, pixels, whole.data(), nullptr);
      std::vector<float> lo(static_cast<size_t>(pixels * half), -1.f), hi(lo.size(), -1.f);
      ShuffleChannelsF32(a.data(), b.data(), half, pixels, lo.data(), hi.data());
      for (int64_t p = 0; p < pixels; ++p)
        for (int64_t j = 0; j < 2 * half; ++j) {
          EXPECT_EQ(whole[static_cast<size_t>(p * 2 * half + j)], want(p, j)) << p << " " << j;
          const float split = j < half ? lo[static_cast<size_t>(p * half + j)] : hi[static_cast<size_t>(p * half + j - half)];
          EXPECT_EQ(split, want(p, j)) << p << " " << j;
        }
    });
  }
}

TEST(ScaleShiftRowsTest, StridedRowsWithAndWithoutReluOnEveryTarget) {
  // 3 rows of a 23-wide slice (off every vector length) at column 5 of a
  // 40-wide output, read from a 31-wide input.
  const int64_t rows = 3, n = 23, x_stride = 31, y_stride = 40, col = 5;
  std::vector<float> x(static_cast<size_t>(rows * x_stride)), scale(n), shift(n);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 17) - 8) * 0.37f;
  for (int64_t i = 0; i < n; ++i) {
    scale[static_cast<size_t>(i)] = 0.5f + 0.1f * static_cast<float>(i);
    shift[static_cast<size_t>(i)] = static_cast<float>(i % 5) - 2.f;
  }
  x[3] = std::nanf("");
  OnEverySimdTarget([&] {
    for (bool relu : {false, true}) {
      std::vector<float> y(static_cast<size_t>(rows * y_stride), -99.f);
      ScaleShiftRowsF32(x.data(), x_stride, scale.data(), shift.data(), y.data() + col, y_stride, rows, n, relu);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < y_stride; ++j) {
          const float got = y[static_cast<size_t>(r * y_stride + j)];
          if (j < col || j >= col + n) {
            EXPECT_EQ(got, -99.f) << "outside the slice, row " << r << " col " << j;
            continue;
          }
          const int64_t i = j - col;
          const float v = x[static_cast<size_t>(r * x_stride + i)];
          if (std::isnan(v)) {
            EXPECT_TRUE(relu ? got == 0.f : std::isnan(got)) << got;
            continue;
          }
          float want = v * scale[static_cast<size_t>(i)] + shift[static_cast<size_t>(i)];
          if (relu) want = std::max(want, 0.f);
          EXPECT_NEAR(got, want, 1e-6f) << "row " << r << " col " << j;
        }
    }
  });
}

}  // namespace
}  // namespace tessera::cpu
