#include "tessera/quantization/tensor_histogram.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace tessera::quant {
namespace {

TEST(TensorHistogram, MinMaxIsExactAcrossBatches) {
  TensorHistogram h(256);
  std::vector<float> a = {0.0f, 0.0f, 1.5f, -0.25f}, b = {7.0f, -3.0f, NAN};
  h.Add(a.data(), static_cast<int64_t>(a.size()));
  h.Add(b.data(), static_cast<int64_t>(b.size()));
  EXPECT_EQ(h.count(), 6);
  EXPECT_EQ(h.min(), -3.0);
  EXPECT_EQ(h.max(), 7.0);
  // The limit doubled from 1.5 to 12 (past 7): no value was lost.
  EXPECT_EQ(h.limit(), 12.0);
  double total = 0;
  for (double v : h.bins()) total += v;
  EXPECT_EQ(total, 6.0);
}

TEST(TensorHistogram, ZerosBeforeTheFirstNonzeroLandAtZero) {
  TensorHistogram h(8);
  std::vector<float> z(5, 0.0f), one = {1.0f};
  h.Add(z.data(), 5);
  h.Add(one.data(), 1);
  EXPECT_EQ(h.bins()[4], 5.0);  // the first bin at or above 0
  EXPECT_EQ(h.bins()[7], 1.0);
}

TEST(TensorHistogram, PercentileOfAKnownArray) {
  // 0..9999 uniformly: 99% of the values lie within [49.5, 9949.5].
  std::vector<float> v(10000);
  for (int i = 0; i < 10000; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i);
  TensorHistogram h(2048);
  h.Add(v.data(), static_cast<int64_t>(v.size()));
  const double width = 2 * h.limit() / 2048;
  auto [lo, hi] = h.PercentileRange(99.0, false);
  EXPECT_NEAR(lo, 50.0, width + 1);
  EXPECT_NEAR(hi, 9950.0, width + 1);
  // Symmetric: the |x| threshold under which 99% stay.
  auto [slo, shi] = h.PercentileRange(99.0, true);
  EXPECT_NEAR(shi, 9900.0, width + 1);
  EXPECT_EQ(slo, -shi);
  // 100% is MinMax.
  auto [alo, ahi] = h.PercentileRange(100.0, false);
  EXPECT_EQ(alo, 0.0);
  EXPECT_EQ(ahi, 9999.0);
}

TEST(TensorHistogram, EntropyClipsALongTail) {
  std::mt19937 gen(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(200000);
  for (auto& x : v) x = normal(gen);
  for (int i = 0; i < 20; ++i) v[static_cast<size_t>(i)] = 60.0f + static_cast<float>(i);  // outliers
  TensorHistogram h(2048);
  h.Add(v.data(), static_cast<int64_t>(v.size()));
  auto [lo, hi] = h.EntropyRange(128, false);
  EXPECT_LT(hi, 20.0);  // far below the max of 79
  EXPECT_GT(hi, 3.0);   // and above the bulk of the distribution
  EXPECT_LT(lo, -3.0);
  EXPECT_GT(h.max(), 70.0);
}

TEST(TensorHistogram, EntropyOfANonNegativeTensorStartsAtZero) {
  std::vector<float> v(10000);
  for (int i = 0; i < 10000; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i % 100) / 10.0f;
  TensorHistogram h(2048);
  h.Add(v.data(), static_cast<int64_t>(v.size()));
  auto [lo, hi] = h.EntropyRange(128, false);
  EXPECT_EQ(lo, 0.0);
  EXPECT_GT(hi, 5.0);
  EXPECT_LE(hi, 9.9);
}

}  // namespace
}  // namespace tessera::quant
