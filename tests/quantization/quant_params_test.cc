#include "tessera/quantization/quant_params.h"

#include <gtest/gtest.h>

#include "tessera/base/status.h"

namespace tessera::quant {
namespace {

TEST(QuantParams, RangesAsOrtWritesThem) {
  EXPECT_EQ(IntRangeFor(DataType::kInt8, true, false).qmin, -127);
  EXPECT_EQ(IntRangeFor(DataType::kInt8, false, false).qmin, -128);
  EXPECT_EQ(IntRangeFor(DataType::kInt8, true, true).qmax, 64);
  EXPECT_EQ(IntRangeFor(DataType::kUInt8, false, true).qmax, 127);
  EXPECT_THROW(IntRangeFor(DataType::kInt16, false, false), Error);
}

TEST(QuantParams, AsymmetricRangeIsWidenedToHoldZero) {
  // [1, 5.1] becomes [0, 5.1]: scale 0.02, zero point 0.
  QuantParams p = ComputeQuantParams(1.0, 5.1, IntRangeFor(DataType::kUInt8, false, false), false);
  EXPECT_FLOAT_EQ(p.scale, 5.1f / 255.0f);
  EXPECT_EQ(p.zero_point, 0);
  // [-1, 3]: scale 4/255, zero point round(255/4) = 64.
  p = ComputeQuantParams(-1.0, 3.0, IntRangeFor(DataType::kUInt8, false, false), false);
  EXPECT_FLOAT_EQ(p.scale, 4.0f / 255.0f);
  EXPECT_EQ(p.zero_point, 64);
  // int8 asymmetric: [-1, 3] -> zero point -128 + 64 = -64.
  p = ComputeQuantParams(-1.0, 3.0, IntRangeFor(DataType::kInt8, false, false), false);
  EXPECT_EQ(p.zero_point, -64);
}

TEST(QuantParams, SymmetricAndEmptyRanges) {
  QuantParams p = ComputeQuantParams(-2.0, 1.0, IntRangeFor(DataType::kInt8, true, false), true);
  EXPECT_FLOAT_EQ(p.scale, 4.0f / 254.0f);
  EXPECT_EQ(p.zero_point, 0);
  p = ComputeQuantParams(0.0, 0.0, IntRangeFor(DataType::kUInt8, false, false), false);
  EXPECT_EQ(p.scale, 1.0f);
  EXPECT_EQ(p.zero_point, 0);
  p = ComputeQuantParams(-1.0, 1.0, IntRangeFor(DataType::kUInt8, true, false), true);
  EXPECT_EQ(p.zero_point, 128);  // round half to even of 127.5
}

TEST(QuantizeWeight, PerTensorValuesAreExact) {
  Tensor w = Tensor::FromVector<float>({-1.27f, 0.0f, 0.5f, 1.0f}, {2, 2});
  QuantizedWeight q = QuantizeWeight(w, DataType::kInt8, -1, true, false);
  EXPECT_FLOAT_EQ(q.scale.data<float>()[0], 0.01f);
  EXPECT_EQ(q.scale.rank(), 0);
  EXPECT_EQ(q.zero_point.data<int8_t>()[0], 0);
  const int8_t* v = q.values.data<int8_t>();
  EXPECT_EQ(v[0], -127);
  EXPECT_EQ(v[1], 0);
  EXPECT_EQ(v[2], 50);
  EXPECT_EQ(v[3], 100);
}

TEST(QuantizeWeight, PerChannelAlongEachAxis) {
  // Rows [1, -2] and [0.5, 0.25]: axis 0 gives one scale per row.
  Tensor w = Tensor::FromVector<float>({1.0f, -2.0f, 0.5f, 0.25f}, {2, 2});
  QuantizedWeight q = QuantizeWeight(w, DataType::kInt8, 0, true, false);
  ASSERT_EQ(q.scale.shape(), Shape({2}));
  EXPECT_FLOAT_EQ(q.scale.data<float>()[0], 2.0f / 127.0f);
  EXPECT_FLOAT_EQ(q.scale.data<float>()[1], 0.5f / 127.0f);
  EXPECT_EQ(q.values.data<int8_t>()[1], -127);
  EXPECT_EQ(q.values.data<int8_t>()[2], 127);
  EXPECT_EQ(q.values.data<int8_t>()[3], 64);  // 63.5 rounds to even
  // axis 1 (MatMul's columns): columns [1, 0.5] and [-2, 0.25].
  q = QuantizeWeight(w, DataType::kInt8, 1, true, false);
  EXPECT_FLOAT_EQ(q.scale.data<float>()[0], 1.0f / 127.0f);
  EXPECT_FLOAT_EQ(q.scale.data<float>()[1], 2.0f / 127.0f);
  EXPECT_EQ(q.values.data<int8_t>()[0], 127);
  EXPECT_EQ(q.values.data<int8_t>()[3], 16);  // 0.25 / (2/127) = 15.875
}

TEST(QuantizeWeight, ReduceRangeAndUint8) {
  Tensor w = Tensor::FromVector<float>({-1.0f, 1.0f}, {2});
  QuantizedWeight q = QuantizeWeight(w, DataType::kInt8, -1, true, true);
  EXPECT_EQ(q.values.data<int8_t>()[0], -64);
  EXPECT_EQ(q.values.data<int8_t>()[1], 64);
  // uint8, asymmetric: [-1, 3] -> scale 4/255, zero point round(63.75).
  w = Tensor::FromVector<float>({-1.0f, 3.0f}, {2});
  q = QuantizeWeight(w, DataType::kUInt8, -1, false, false);
  EXPECT_EQ(q.zero_point.data<uint8_t>()[0], 64);
  EXPECT_EQ(q.values.data<uint8_t>()[0], 0);
  EXPECT_EQ(q.values.data<uint8_t>()[1], 255);
}

TEST(QuantizeBias, Int32AtInputTimesWeightScale) {
  Tensor b = Tensor::FromVector<float>({0.5f, -0.25f}, {2});
  Tensor ws = Tensor::FromVector<float>({0.1f, 0.05f}, {2});
  QuantizedBias q = QuantizeBias(b, 0.5f, ws);
  EXPECT_FLOAT_EQ(q.scale.data<float>()[0], 0.05f);
  EXPECT_FLOAT_EQ(q.scale.data<float>()[1], 0.025f);
  EXPECT_EQ(q.values.data<int32_t>()[0], 10);
  EXPECT_EQ(q.values.data<int32_t>()[1], -10);
  EXPECT_THROW(QuantizeBias(Tensor::FromVector<float>({1, 2, 3}, {3}), 0.5f, ws), Error);
}

}  // namespace
}  // namespace tessera::quant
