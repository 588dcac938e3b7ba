// Exhaustive checks of the float8 / float4 / e8m0 conversions: every code
// decodes and re-encodes to itself, encoding is round-to-nearest-even at every
// midpoint, saturation and the non-saturating special values follow the ONNX
// tables, and the double -> float round-to-odd helper.
#include <cmath>
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

#include "tessera/ir/float_formats.h"

namespace tessera {
namespace {

const DataType kF8[] = {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2,
                        DataType::kFloat8E5M2FNUZ};

bool IsNanCode(DataType t, int b) { return std::isnan(Float8ToFloat(t, static_cast<uint8_t>(b))); }

TEST(Float8Test, EveryCodeRoundTrips) {
  for (DataType t : kF8) {
    for (int b = 0; b < 256; ++b) {
      float v = Float8ToFloat(t, static_cast<uint8_t>(b));
      if (std::isnan(v)) continue;
      if (std::isinf(v)) {
        EXPECT_EQ(FloatToFloat8(t, v, false), b) << DataTypeName(t) << " code " << b;
        continue;
      }
      EXPECT_EQ(FloatToFloat8(t, v, true), b) << DataTypeName(t) << " code " << b << " value " << v;
      EXPECT_EQ(FloatToFloat8(t, v, false), b) << DataTypeName(t) << " code " << b << " value " << v;
    }
  }
}

TEST(Float8Test, NanCodes) {
  int nans = 0;
  for (int b = 0; b < 256; ++b) nans += IsNanCode(DataType::kFloat8E4M3FN, b);
  EXPECT_EQ(nans, 2);  // 0x7f, 0xff
  nans = 0;
  for (int b = 0; b < 256; ++b) nans += IsNanCode(DataType::kFloat8E4M3FNUZ, b);
  EXPECT_EQ(nans, 1);  // 0x80
  nans = 0;
  for (int b = 0; b < 256; ++b) nans += IsNanCode(DataType::kFloat8E5M2, b);
  EXPECT_EQ(nans, 6);
  nans = 0;
  for (int b = 0; b < 256; ++b) nans += IsNanCode(DataType::kFloat8E5M2FNUZ, b);
  EXPECT_EQ(nans, 1);
}

TEST(Float8Test, MidpointsRoundToEven) {
  for (DataType t : kF8) {
    // Consecutive positive finite codes c, c+1: the midpoint goes to the even code.
    for (int c = 0; c < 127; ++c) {
      float lo = Float8ToFloat(t, static_cast<uint8_t>(c));
      float hi = Float8ToFloat(t, static_cast<uint8_t>(c + 1));
      if (std::isnan(lo) || std::isnan(hi) || std::isinf(hi)) continue;
      float mid = (lo + hi) / 2;  // exact in float
      int want = (c % 2 == 0) ? c : c + 1;
      EXPECT_EQ(FloatToFloat8(t, mid, true), want) << DataTypeName(t) << " between codes " << c;
      EXPECT_EQ(FloatToFloat8(t, std::nextafter(mid, 0.0f), true), c) << DataTypeName(t);
      EXPECT_EQ(FloatToFloat8(t, std::nextafter(mid, 1e9f), true), c + 1) << DataTypeName(t);
      // Negative values mirror (except -0 in fnuz).
      uint8_t neg = FloatToFloat8(t, -std::nextafter(mid, 1e9f), true);
      EXPECT_EQ(Float8ToFloat(t, neg), -hi);
    }
  }
}

TEST(Float8Test, SaturationTables) {
  const float inf = std::numeric_limits<float>::infinity();
  // Saturating: inf and huge values clamp to +-max.
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, inf, true), 0x7e);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, -1e9f, true), 0xfe);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FNUZ, inf, true), 0x7f);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FNUZ, -inf, true), 0xff);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E5M2, inf, true), 0x7b);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E5M2FNUZ, -inf, true), 0xff);
  // Non-saturating.
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, inf, false), 0x7f);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, -inf, false), 0xff);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, 470.0f, false), 0x7f);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, 460.0f, false), 0x7e);  // rounds down to 448
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FNUZ, -inf, false), 0x80);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E5M2, -inf, false), 0xfc);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E5M2, 61440.0f, false), 0x7c);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E5M2FNUZ, 1e6f, false), 0x80);
  // Zeros: fnuz has no -0.
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, -0.0f), 0x80);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FNUZ, -0.0f), 0x00);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E5M2FNUZ, -1e-30f), 0x00);
  // NaN.
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E5M2FNUZ, std::nanf("")), 0x80);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E4M3FN, std::nanf("")), 0x7f);
}

TEST(E8M0Test, DecodeAndRoundModes) {
  EXPECT_EQ(Float8ToFloat(DataType::kFloat8E8M0, 0x7f), 1.0f);
  EXPECT_EQ(Float8ToFloat(DataType::kFloat8E8M0, 0x00), std::ldexp(1.0f, -127));
  EXPECT_TRUE(std::isnan(Float8ToFloat(DataType::kFloat8E8M0, 0xff)));
  for (int b = 0; b < 255; ++b) {
    float v = Float8ToFloat(DataType::kFloat8E8M0, static_cast<uint8_t>(b));
    for (E8M0Rounding m : {E8M0Rounding::kUp, E8M0Rounding::kDown, E8M0Rounding::kNearest})
      EXPECT_EQ(FloatToFloat8(DataType::kFloat8E8M0, v, true, m), b) << b;
  }
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E8M0, 0.124f, true, E8M0Rounding::kUp), 0x7c);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E8M0, 1.1f, true, "up"), 0x80);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E8M0, 1.9f, true, "down"), 0x7f);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E8M0, 1.5f, true, "nearest"), 0x80);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E8M0, 1.49f, true, "nearest"), 0x7f);
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E8M0, inf, true), 0xfe);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E8M0, inf, false), 0xff);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E8M0, 0.0f, true), 0x00);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E8M0, 0.0f, false, "nearest"), 0xff);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E8M0, std::numeric_limits<float>::max(), true, "up"), 0xfe);
  EXPECT_EQ(FloatToFloat8(DataType::kFloat8E8M0, std::numeric_limits<float>::max(), false, "up"), 0xff);
  E8M0Rounding m;
  EXPECT_FALSE(ParseE8M0Rounding("bogus", &m));
}

TEST(Float4Test, AllCodesAndRounding) {
  for (int c = 0; c < 16; ++c) {
    float v = Float4E2M1ToFloat(static_cast<uint8_t>(c));
    EXPECT_EQ(FloatToFloat4E2M1(v), c) << c;
  }
  EXPECT_EQ(FloatToFloat4E2M1(0.25f), 0);
  EXPECT_EQ(FloatToFloat4E2M1(0.26f), 1);
  EXPECT_EQ(FloatToFloat4E2M1(-3.5f), 14);
  EXPECT_EQ(FloatToFloat4E2M1(5.0f), 6);
  EXPECT_EQ(FloatToFloat4E2M1(5.01f), 7);
  EXPECT_EQ(FloatToFloat4E2M1(1e30f), 7);
  EXPECT_EQ(FloatToFloat4E2M1(-std::numeric_limits<float>::infinity()), 15);
  EXPECT_EQ(FloatToFloat4E2M1(std::nanf("")), 8);
  EXPECT_EQ(FloatToFloat4E2M1(-0.0f), 8);
}

TEST(RoundToOddTest, Basics) {
  EXPECT_EQ(DoubleToFloatRoundToOdd(1.5), 1.5f);
  float f = DoubleToFloatRoundToOdd(1.0 + std::ldexp(1.0, -30));
  uint32_t u;
  std::memcpy(&u, &f, 4);
  EXPECT_EQ(u & 1u, 1u);
  EXPECT_GT(f, 1.0f);
  f = DoubleToFloatRoundToOdd(-(1.0 + std::ldexp(1.0, -30)));
  EXPECT_LT(f, -1.0f);
  EXPECT_TRUE(std::isinf(DoubleToFloatRoundToOdd(1e300)));
  EXPECT_TRUE(std::isnan(DoubleToFloatRoundToOdd(std::nan(""))));
  f = DoubleToFloatRoundToOdd(1e-300);
  EXPECT_GT(f, 0.0f);
}

}  // namespace
}  // namespace tessera
