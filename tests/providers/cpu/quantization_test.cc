// Unit tests of QuantizeLinear / DequantizeLinear / DynamicQuantizeLinear:
// half-to-even rounding and saturation, negative axes, blocked layouts with a
// short last block, packed int4/int2 with odd element counts, float8
// saturate=0, output_dtype, int32 dequantization, old opsets, empty tensors
// and clear errors for inconsistent scale / zero-point shapes.
#include <cmath>
#include <vector>

#include "support/op_test.h"
#include "tessera/base/half.h"
#include "tessera/api/providers.h"
#include "tessera/ir/float_formats.h"
#include "tessera/runtime/session.h"

namespace tessera::test {
namespace {

Tensor Packed(DataType dt, const std::vector<int>& vals, Shape shape) {
  Tensor t(dt, std::move(shape));
  const int bits = ElementBits(dt);
  const int per = 8 / bits;
  auto* b = static_cast<uint8_t*>(t.raw_data());
  for (size_t i = 0; i < t.nbytes(); ++i) b[i] = 0;
  for (size_t i = 0; i < vals.size(); ++i)
    b[i / per] = static_cast<uint8_t>(b[i / per] | ((vals[i] & ((1 << bits) - 1)) << ((i % per) * bits)));
  return t;
}

Tensor Bytes(DataType dt, const std::vector<uint8_t>& v, Shape shape) {
  Tensor t(dt, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) static_cast<uint8_t*>(t.raw_data())[i] = v[i];
  return t;
}

Tensor Half(const std::vector<float>& v, Shape s) {
  std::vector<Float16> h;
  for (float f : v) h.push_back(Float16{FloatToHalf(f)});
  return Tensor::FromVector<Float16>(h, std::move(s));
}

TEST(QuantizeLinearTest, RoundsHalfToEvenAndSaturates) {
  OpTest("QuantizeLinear", 21)
      .Input("x", T_<float>({0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 1000.f, -1000.f, 3.49f}, {8}))
      .Input("s", T_<float>({1.0f}, {}))
      .Input("zp", T_<uint8_t>({10}, {}))
      .Output("y", T_<uint8_t>({10, 12, 12, 10, 8, 255, 0, 13}, {8}))
      .Run();
  OpTest("QuantizeLinear", 10)
      .Input("x", T_<float>({-300.f, 2.5f, 300.f}, {3}))
      .Input("s", T_<float>({1.0f}, {}))
      .Input("zp", T_<int8_t>({0}, {}))
      .Output("y", T_<int8_t>({-128, 2, 127}, {3}))
      .Run();
}

// The per-tensor float <-> 8-bit paths (their own vectorized loops) give
// exactly what the per-axis path gives with the same scale on every
// channel: halves, NaN, infinities, values far past the range, both types.
TEST(QuantizeLinearTest, PerTensorFastPathMatchesThePerAxisPath) {
  const float s = 0.37f;
  std::vector<float> x;
  for (int i = -700; i <= 700; ++i) x.push_back(static_cast<float>(i) * 0.5f * s);  // many exact halves
  for (float v : {NAN, INFINITY, -INFINITY, 3e9f, -3e9f, 1e-30f, -0.0f, 12345.678f}) x.push_back(v);
  while (x.size() % 3) x.push_back(0.1f);
  const int64_t n = static_cast<int64_t>(x.size());
  for (DataType t : {DataType::kUInt8, DataType::kInt8}) {
    SCOPED_TRACE(DataTypeName(t));
    Tensor zp_one(t, {}), zp_axis(t, {3});
    const uint8_t z = t == DataType::kUInt8 ? 77 : static_cast<uint8_t>(static_cast<int8_t>(-9));
    static_cast<uint8_t*>(zp_one.raw_data())[0] = z;
    for (int i = 0; i < 3; ++i) static_cast<uint8_t*>(zp_axis.raw_data())[i] = z;
    // Expected: the per-axis path on [n / 3, 3] with axis 1.
    OpTest per_axis("QuantizeLinear", 21);
    per_axis.Input("x", T_<float>(x, {n / 3, 3}))
        .Input("s", T_<float>({s, s, s}, {3}))
        .Input("zp", zp_axis)
        .Attr("axis", int64_t{1})
        .UncheckedOutput("y");
    Model m = per_axis.BuildModel();
    Session ref(std::move(m), SessionOptions(), MakeProviders({"cpu"}));
    Feeds feeds{{"x", Value(T_<float>(x, {n / 3, 3}))}, {"s", Value(T_<float>({s, s, s}, {3}))}, {"zp", Value(zp_axis)}};
    const Tensor want = ref.Run(feeds)[0].tensor();
    OpTest("QuantizeLinear", 21)
        .Input("x", T_<float>(x, {n / 3, 3}))
        .Input("s", T_<float>({s}, {}))
        .Input("zp", zp_one)
        .Output("y", want)
        .Tolerance(0, 0)
        .Threads(2)
        .Run();
    // And back: DequantizeLinear of those bytes, per tensor against per axis.
    OpTest dq_axis("DequantizeLinear", 21);
    dq_axis.Input("q", want).Input("s", T_<float>({s, s, s}, {3})).Input("zp", zp_axis).Attr("axis", int64_t{1}).UncheckedOutput("y");
    Session dref(dq_axis.BuildModel(), SessionOptions(), MakeProviders({"cpu"}));
    const Tensor back = dref.Run({{"q", Value(want)}, {"s", Value(T_<float>({s, s, s}, {3}))}, {"zp", Value(zp_axis)}})[0].tensor();
    OpTest("DequantizeLinear", 21)
        .Input("q", want)
        .Input("s", T_<float>({s}, {}))
        .Input("zp", zp_one)
        .Output("y", back)
        .Tolerance(0, 0)
        .Run();
  }
}

TEST(QuantizeLinearTest, NoZeroPointDefaultsToUint8AndOutputDtype) {
  OpTest("QuantizeLinear", 13)
      .Input("x", T_<float>({-4.f, 4.f, 6.f}, {3}))
      .Input("s", T_<float>({2.0f}, {}))
      .Output("y", T_<uint8_t>({0, 2, 3}, {3}))
      .Run();
  OpTest("QuantizeLinear", 21)
      .Attr("output_dtype", int64_t{3})  // int8
      .Input("x", T_<float>({-4.f, 4.f, 600.f}, {3}))
      .Input("s", T_<float>({2.0f}, {}))
      .Output("y", T_<int8_t>({-2, 2, 127}, {3}))
      .Run();
}

TEST(QuantizeLinearTest, OutputDtypeMustMatchZeroPoint) {
  OpTest("QuantizeLinear", 21)
      .Attr("output_dtype", int64_t{3})
      .Input("x", T_<float>({1.f}, {1}))
      .Input("s", T_<float>({1.0f}, {}))
      .Input("zp", T_<uint8_t>({0}, {}))
      .Output("y", T_<int8_t>({1}, {1}))
      .ExpectFailure("output_dtype");
}

TEST(QuantizeLinearTest, PerAxisNegativeAxis) {
  OpTest("QuantizeLinear", 13)
      .Attr("axis", int64_t{-1})
      .Input("x", T_<float>({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3}))
      .Input("s", T_<float>({1.f, 2.f, 4.f}, {3}))
      .Input("zp", T_<int8_t>({0, 1, -1}, {3}))
      .Output("y", T_<int8_t>({1, 2, 0, 4, 3, 1}, {2, 3}))
      .Run();
}

TEST(QuantizeLinearTest, PerAxisScaleLengthMismatchFails) {
  OpTest("QuantizeLinear", 13)
      .Attr("axis", int64_t{0})
      .Input("x", T_<float>({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3}))
      .Input("s", T_<float>({1.f, 2.f, 4.f}, {3}))
      .Input("zp", T_<uint8_t>({0, 1, 1}, {3}))
      .Output("y", T_<uint8_t>({0, 0, 0, 0, 0, 0}, {2, 3}))
      .ExpectFailure("input dimension 0");
  OpTest("QuantizeLinear", 13)
      .Attr("axis", int64_t{5})
      .Input("x", T_<float>({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3}))
      .Input("s", T_<float>({1.f, 2.f, 4.f}, {3}))
      .Output("y", T_<uint8_t>({0, 0, 0, 0, 0, 0}, {2, 3}))
      .ExpectFailure("out of range");
}

TEST(QuantizeLinearTest, BlockedWithShortLastBlock) {
  // x [2,5], blocks of 2 along axis 1 -> 3 scales per row (last block has 1).
  OpTest("QuantizeLinear", 21)
      .Attr("axis", int64_t{1})
      .Attr("block_size", int64_t{2})
      .Input("x", T_<float>({2, 4, 6, 8, 10, 1, 2, 3, 4, 5}, {2, 5}))
      .Input("s", T_<float>({1, 2, 5, 1, 1, 0.5f}, {2, 3}))
      .Input("zp", T_<int16_t>({0, 0, 0, 1, 2, 3}, {2, 3}))
      .Output("y", T_<int16_t>({2, 4, 3, 4, 2, 2, 3, 5, 6, 13}, {2, 5}))
      .Run();
}

TEST(QuantizeLinearTest, BlockedBadBlockSizeFails) {
  OpTest("QuantizeLinear", 21)
      .Attr("axis", int64_t{1})
      .Attr("block_size", int64_t{4})
      .Input("x", T_<float>({2, 4, 6, 8, 10, 1, 2, 3, 4, 5}, {2, 5}))
      .Input("s", T_<float>({1, 2, 5, 1, 1, 0.5f}, {2, 3}))
      .Output("y", T_<uint8_t>({0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {2, 5}))
      .ExpectFailure("block_size");
}

TEST(QuantizeLinearTest, PackedInt4AndInt2OddCounts) {
  OpTest("QuantizeLinear", 21)
      .Input("x", T_<float>({1.f, -3.f, 20.f, -20.f, 5.f}, {5}))
      .Input("s", T_<float>({1.0f}, {}))
      .Input("zp", Packed(DataType::kInt4, {1}, {}))
      .Output("y", Packed(DataType::kInt4, {2, -2, 7, -8, 6}, {5}))
      .Run();
  OpTest("QuantizeLinear", 25)
      .Input("x", T_<float>({1.f, -3.f, 20.f, 0.f, 0.4f, -1.f, 0.f}, {7}))
      .Input("s", T_<float>({1.0f}, {}))
      .Input("zp", Packed(DataType::kUInt2, {1}, {}))
      .Output("y", Packed(DataType::kUInt2, {2, 0, 3, 1, 1, 0, 1}, {7}))
      .Run();
}

TEST(QuantizeLinearTest, Float8SaturateAttribute) {
  const uint8_t max_e4m3 = FloatToFloat8(DataType::kFloat8E4M3FN, 448.0f, true);
  const uint8_t nan_e4m3 = FloatToFloat8(DataType::kFloat8E4M3FN, 1e5f, false);
  OpTest("QuantizeLinear", 19)
      .Input("x", T_<float>({1e5f, 2.0f}, {2}))
      .Input("s", T_<float>({1.0f}, {}))
      .Input("zp", Bytes(DataType::kFloat8E4M3FN, {0}, {}))
      .Output("y", Bytes(DataType::kFloat8E4M3FN, {max_e4m3, FloatToFloat8(DataType::kFloat8E4M3FN, 2.0f)}, {2}))
      .Run();
  OpTest("QuantizeLinear", 19)
      .Attr("saturate", int64_t{0})
      .Input("x", T_<float>({1e5f}, {1}))
      .Input("s", T_<float>({1.0f}, {}))
      .Input("zp", Bytes(DataType::kFloat8E4M3FN, {0}, {}))
      .Output("y", Bytes(DataType::kFloat8E4M3FN, {nan_e4m3}, {1}))
      .Run();
}

TEST(QuantizeLinearTest, Float16InputAndScale) {
  OpTest("QuantizeLinear", 21)
      .Input("x", Half({1.0f, 3.0f, -7.0f}, {3}))
      .Input("s", Half({2.0f}, {}))
      .Input("zp", T_<int8_t>({0}, {}))
      .Output("y", T_<int8_t>({0, 2, -4}, {3}))
      .Run();
}

TEST(QuantizeLinearTest, EmptyInput) {
  OpTest("QuantizeLinear", 21)
      .Input("x", T_<float>({}, {0, 3}))
      .Input("s", T_<float>({1.0f}, {}))
      .Input("zp", T_<uint8_t>({0}, {}))
      .Output("y", T_<uint8_t>({}, {0, 3}))
      .Run();
}

TEST(DequantizeLinearTest, Int32WithoutZeroPointAndPerAxis) {
  OpTest("DequantizeLinear", 13)
      .Input("x", T_<int32_t>({-1000000, 7, 3}, {3}))
      .Input("s", T_<float>({0.5f}, {}))
      .Output("y", T_<float>({-500000.f, 3.5f, 1.5f}, {3}))
      .Run();
  OpTest("DequantizeLinear", 13)
      .Attr("axis", int64_t{-2})
      .Input("x", T_<uint8_t>({10, 20, 30, 40}, {2, 2}))
      .Input("s", T_<float>({1.f, 0.5f}, {2}))
      .Input("zp", T_<uint8_t>({10, 0}, {2}))
      .Output("y", T_<float>({0.f, 10.f, 15.f, 20.f}, {2, 2}))
      .Run();
}

TEST(DequantizeLinearTest, BlockedAndOutputDtype) {
  OpTest("DequantizeLinear", 23)
      .Attr("axis", int64_t{0})
      .Attr("block_size", int64_t{2})
      .Attr("output_dtype", int64_t{10})  // float16
      .Input("x", T_<int8_t>({1, 2, 3, 4, 5, 6}, {3, 2}))
      .Input("s", T_<float>({1.f, 2.f, 10.f, 20.f}, {2, 2}))
      .Input("zp", T_<int8_t>({0, 1, 5, 0}, {2, 2}))
      .Output("y", Half({1.f, 2.f, 3.f, 6.f, 0.f, 120.f}, {3, 2}))
      .Run();
}

TEST(DequantizeLinearTest, PackedOddCount) {
  OpTest("DequantizeLinear", 21)
      .Input("x", Packed(DataType::kInt4, {-8, 7, 0}, {3}))
      .Input("s", T_<float>({0.5f}, {}))
      .Input("zp", Packed(DataType::kInt4, {-1}, {}))
      .Output("y", T_<float>({-3.5f, 4.f, 0.5f}, {3}))
      .Run();
}

TEST(DequantizeLinearTest, ZeroPointTypeMismatchFails) {
  OpTest("DequantizeLinear", 21)
      .Input("x", T_<uint8_t>({1}, {1}))
      .Input("s", T_<float>({1.f}, {}))
      .Input("zp", T_<int8_t>({0}, {}))
      .Output("y", T_<float>({1.f}, {1}))
      .ExpectFailure("zero_point");
}

TEST(DequantizeLinearTest, ZeroPointShapeMismatchFails) {
  OpTest("DequantizeLinear", 21)
      .Attr("axis", int64_t{0})
      .Input("x", T_<uint8_t>({1, 2}, {2}))
      .Input("s", T_<float>({1.f, 2.f}, {2}))
      .Input("zp", T_<uint8_t>({0, 0, 0}, {3}))
      .Output("y", T_<float>({1.f, 2.f}, {2}))
      .ExpectFailure("zero point shape");
}

TEST(DynamicQuantizeLinearTest, Basic) {
  OpTest("DynamicQuantizeLinear", 11)
      .Input("x", T_<float>({0.f, 2.f, -3.f, -2.5f, 1.34f, 0.5f}, {6}))
      .Output("y", T_<uint8_t>({153, 255, 0, 26, 221, 179}, {6}))
      .Output("s", T_<float>({5.0f / 255.0f}, {}))
      .Output("zp", T_<uint8_t>({153}, {}))
      .Run();
}

TEST(DynamicQuantizeLinearTest, AllZerosAndEmpty) {
  OpTest("DynamicQuantizeLinear", 11)
      .Input("x", T_<float>({0.f, 0.f}, {2}))
      .Output("y", T_<uint8_t>({0, 0}, {2}))
      .Output("s", T_<float>({1.0f}, {}))
      .Output("zp", T_<uint8_t>({0}, {}))
      .Run();
  OpTest("DynamicQuantizeLinear", 11)
      .Input("x", T_<float>({}, {0}))
      .Output("y", T_<uint8_t>({}, {0}))
      .Output("s", T_<float>({1.0f}, {}))
      .Output("zp", T_<uint8_t>({0}, {}))
      .Run();
}

}  // namespace
}  // namespace tessera::test
