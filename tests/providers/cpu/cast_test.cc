// Unit tests of Cast, CastLike and BitCast: integer wrap-around, float to int
// out of range (defined, no crash), bool, strings both ways, float16/bfloat16
// rounding from double, float8 saturation, packed int4/int2/float4, e8m0
// rounding modes, Cast-1's string 'to', BitCast width checks.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "support/op_test.h"
#include "tessera/base/half.h"
#include "tessera/ir/float_formats.h"

namespace tessera::test {
namespace {

Tensor Packed(DataType dt, const std::vector<uint8_t>& codes, Shape shape) {
  Tensor t(dt, std::move(shape));
  int bits = ElementBits(dt);
  int per = 8 / bits;
  auto* b = static_cast<uint8_t*>(t.raw_data());
  for (size_t i = 0; i < t.nbytes(); ++i) b[i] = 0;
  for (size_t i = 0; i < codes.size(); ++i)
    b[i / per] = static_cast<uint8_t>(b[i / per] | ((codes[i] & ((1 << bits) - 1)) << ((i % per) * bits)));
  return t;
}

Tensor Bytes(DataType dt, const std::vector<uint8_t>& v, Shape shape) {
  Tensor t(dt, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) static_cast<uint8_t*>(t.raw_data())[i] = v[i];
  return t;
}

TEST(CastTest, IntegerWrapAndBool) {
  OpTest("Cast", 13)
      .Attr("to", int64_t{3})  // int8
      .Input("x", T_<int16_t>({200, -129, 5}, {3}))
      .Output("y", T_<int8_t>({-56, 127, 5}, {3}))
      .Run();
  OpTest("Cast", 13)
      .Attr("to", int64_t{9})
      .Input("x", T_<float>({0.0f, -0.0f, 0.1f, NAN}, {4}))
      .Output("y", T_<bool>({false, false, true, true}, {4}))
      .Run();
  OpTest("Cast", 13)
      .Attr("to", int64_t{1})
      .Input("x", T_<bool>({true, false}, {2}))
      .Output("y", T_<float>({1, 0}, {2}))
      .Run();
  OpTest("Cast", 13)
      .Attr("to", int64_t{12})  // uint32
      .Input("x", T_<int64_t>({-1, 4294967297LL}, {2}))
      .Output("y", T_<uint32_t>({4294967295u, 1u}, {2}))
      .Run();
}

TEST(CastTest, FloatToIntTruncatesAndOutOfRangeIsDefined) {
  OpTest("Cast", 13)
      .Attr("to", int64_t{6})
      .Input("x", T_<float>({2.9f, -2.9f, 1e20f, NAN, -1e20f}, {5}))
      .Output("y", T_<int32_t>({2, -2, 0, 0, 0}, {5}))
      .Run();
  OpTest("Cast", 13)
      .Attr("to", int64_t{2})  // uint8 from negative float wraps through int64
      .Input("x", T_<double>({-1.0, 256.5}, {2}))
      .Output("y", T_<uint8_t>({255, 0}, {2}))
      .Run();
  OpTest("Cast", 13)
      .Attr("to", int64_t{13})
      .Input("x", T_<double>({1.8446744073709550e19, 3.0}, {2}))
      .Output("y", T_<uint64_t>({18446744073709549568ULL, 3}, {2}))
      .Run();
}

TEST(CastTest, StringsBothWays) {
  OpTest("Cast", 13)
      .Attr("to", int64_t{1})
      .Input("x", T_<std::string>({"3.14", "1e-5", "1E8", "INF", "-inf", "+INF", " 7 "}, {7}))
      .Output("y", T_<float>({3.14f, 1e-5f, 1e8f, INFINITY, -INFINITY, INFINITY, 7}, {7}))
      .Run();
  OpTest("Cast", 13)
      .Attr("to", int64_t{1})
      .Input("x", T_<std::string>({"NaN", "nan"}, {2}))
      .Output("y", T_<float>({NAN, NAN}, {2}))
      .Run();
  OpTest("Cast", 13)
      .Attr("to", int64_t{7})
      .Input("x", T_<std::string>({"9223372036854775807", "-12", "100.5"}, {3}))
      .Output("y", T_<int64_t>({std::numeric_limits<int64_t>::max(), -12, 100}, {3}))
      .Run();
  OpTest("Cast", 13)
      .Attr("to", int64_t{8})
      .Input("x", T_<float>({314.15926f, 0.1f, -2.0f, NAN, INFINITY, -INFINITY, 1e-7f}, {7}))
      .Output("y", T_<std::string>({"314.15927", "0.1", "-2", "NaN", "INF", "-INF", "1e-07"}, {7}))
      .Run();
  OpTest("Cast", 13)
      .Attr("to", int64_t{8})
      .Input("x", T_<int64_t>({-5, 1234567890123LL}, {2}))
      .Output("y", T_<std::string>({"-5", "1234567890123"}, {2}))
      .Run();
  OpTest("Cast", 13)
      .Attr("to", int64_t{8})
      .Input("x", T_<Float16>({Float16{FloatToHalf(0.1f)}}, {1}))
      .Output("y", T_<std::string>({"0.1"}, {1}))
      .Run();
}

TEST(CastTest, DoubleToHalfRoundsOnce) {
  // 1 + 2^-11 + 2^-40 is just above the half-way point between two halves;
  // rounding through float first would land on the tie and round to even (1.0).
  const double v = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  OpTest("Cast", 13)
      .Attr("to", int64_t{10})
      .Input("x", T_<double>({v}, {1}))
      .Output("y", T_<Float16>({Float16{0x3c01}}, {1}))
      .Run();
}

TEST(CastTest, Float8SaturateAndNot) {
  OpTest("Cast", 19)
      .Attr("to", int64_t{17})
      .Input("x", T_<float>({1000.0f, -INFINITY, 0.5f, NAN}, {4}))
      .Output("y", Bytes(DataType::kFloat8E4M3FN, {0x7e, 0xfe, 0x30, 0x7f}, {4}))
      .Run();
  OpTest("Cast", 19)
      .Attr("to", int64_t{19})
      .Attr("saturate", int64_t{0})
      .Input("x", T_<float>({1e6f, -INFINITY}, {2}))
      .Output("y", Bytes(DataType::kFloat8E5M2, {0x7c, 0xfc}, {2}))
      .Run();
  OpTest("Cast", 19)
      .Attr("to", int64_t{1})
      .Input("x", Bytes(DataType::kFloat8E4M3FNUZ, {0x80, 0x08, 0x7f}, {3}))
      .Output("y", T_<float>({NAN, 0.0078125f, 240.0f}, {3}))
      .Run();
}

TEST(CastTest, PackedIntsAndFloat4) {
  OpTest("Cast", 21)
      .Attr("to", int64_t{22})  // int4 wraps
      .Input("x", T_<float>({-9, 8, 7, -8, 2.7f}, {5}))
      .Output("y", Packed(DataType::kInt4, {7, 8, 7, 8, 2}, {5}))
      .Run();
  OpTest("Cast", 21)
      .Attr("to", int64_t{6})
      .Input("x", Packed(DataType::kInt4, {15, 8, 7}, {3}))
      .Output("y", T_<int32_t>({-1, -8, 7}, {3}))
      .Run();
  OpTest("Cast", 25)
      .Attr("to", int64_t{26})  // int2
      .Input("x", T_<int64_t>({-3, -2, -1, 0, 1, 2, 3}, {7}))
      .Output("y", Packed(DataType::kInt2, {1, 2, 3, 0, 1, 2, 3}, {7}))
      .Run();
  OpTest("Cast", 23)
      .Attr("to", int64_t{23})
      .Input("x", T_<float>({0.25f, 0.75f, 5.0f, -7.0f, NAN}, {5}))
      .Output("y", Packed(DataType::kFloat4E2M1, {0, 2, 6, 15, 8}, {5}))
      .Run();
  // Cast between two packed types goes through the values.
  OpTest("Cast", 21)
      .Attr("to", int64_t{21})
      .Input("x", Packed(DataType::kInt4, {15, 1}, {2}))
      .Output("y", Packed(DataType::kUInt4, {15, 1}, {2}))
      .Run();
}

TEST(CastTest, E8M0RoundModes) {
  OpTest("Cast", 24)
      .Attr("to", int64_t{24})
      .Attr("round_mode", std::string("down"))
      .Input("x", T_<float>({3.0f, 1.0f}, {2}))
      .Output("y", Bytes(DataType::kFloat8E8M0, {0x80, 0x7f}, {2}))
      .Run();
  OpTest("Cast", 24)
      .Attr("to", int64_t{24})
      .Attr("round_mode", std::string("nearest"))
      .Input("x", T_<float>({3.0f, 2.9f}, {2}))
      .Output("y", Bytes(DataType::kFloat8E8M0, {0x81, 0x80}, {2}))
      .Run();
  OpTest("Cast", 24)
      .Attr("to", int64_t{24})
      .Attr("round_mode", std::string("sideways"))
      .Input("x", T_<float>({3.0f}, {1}))
      .Output("y", Bytes(DataType::kFloat8E8M0, {0}, {1}))
      .ExpectFailure("round_mode");
}

TEST(CastTest, Opset1StringTo) {
  OpTest("Cast", 1)
      .Attr("to", std::string("INT32"))
      .Input("x", T_<float>({1.5f}, {1}))
      .Output("y", T_<int32_t>({1}, {1}))
      .Run();
}

TEST(CastLikeTest, TakesTargetType) {
  OpTest("CastLike", 19)
      .Input("x", T_<float>({1.5f, -2.5f}, {2}))
      .Input("t", T_<double>({}, {0}))
      .Output("y", T_<double>({1.5, -2.5}, {2}))
      .Run();
}

TEST(BitCastTest, ReinterpretsAndChecksWidth) {
  OpTest("BitCast", 26)
      .Attr("to", int64_t{6})
      .Input("x", T_<float>({1.0f, -0.0f}, {2}))
      .Output("y", T_<int32_t>({0x3f800000, static_cast<int32_t>(0x80000000u)}, {2}))
      .Run();
  OpTest("BitCast", 26)
      .Attr("to", int64_t{6})
      .Input("x", T_<double>({1.0}, {1}))
      .Output("y", T_<int32_t>({}, {0}))
      .ExpectFailure("same bit width");
  OpTest("BitCast", 26)
      .Attr("to", int64_t{22})
      .Input("x", Packed(DataType::kUInt4, {15, 3, 9}, {3}))
      .Output("y", Packed(DataType::kInt4, {15, 3, 9}, {3}))
      .Run();
}

}  // namespace
}  // namespace tessera::test
