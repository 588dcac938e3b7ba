// Unit tests of the elementwise unary, binary and logic kernels: broadcasting
// paths, legacy opset-1/6 forms, integer edge cases, bad input.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "support/op_test.h"
#include "tessera/base/half.h"

namespace tessera::test {
namespace {

Tensor F16(const std::vector<float>& v, Shape s) {
  std::vector<Float16> h;
  for (float f : v) h.push_back(Float16{FloatToHalf(f)});
  return Tensor::FromVector<Float16>(h, std::move(s));
}

// Reference for a numpy broadcast of two row-major arrays.
std::vector<float> RefBroadcast(const std::vector<float>& a, const Shape& as, const std::vector<float>& b,
                                const Shape& bs, const Shape& out, float (*op)(float, float)) {
  size_t rank = out.size();
  int64_t n = 1;
  for (int64_t d : out) n *= d;
  std::vector<float> r(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t rem = i, ia = 0, ib = 0, sa = 1, sb = 1;
    for (size_t d = rank; d-- > 0;) {
      int64_t idx = rem % out[d];
      rem /= out[d];
      size_t da = d + as.size() - rank, db = d + bs.size() - rank;
      if (d + as.size() >= rank) {
        int64_t ext = as[da];
        ia += (ext == 1 ? 0 : idx) * sa;
        sa *= ext;
      }
      if (d + bs.size() >= rank) {
        int64_t ext = bs[db];
        ib += (ext == 1 ? 0 : idx) * sb;
        sb *= ext;
      }
    }
    r[static_cast<size_t>(i)] = op(a[static_cast<size_t>(ia)], b[static_cast<size_t>(ib)]);
  }
  return r;
}

std::vector<float> Iota(int64_t n, float scale = 1.0f, float offset = 0.0f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i % 97) * scale + offset;
  return v;
}

int64_t Numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

void CheckAddBroadcast(const Shape& as, const Shape& bs, const Shape& out) {
  auto a = Iota(Numel(as), 0.5f);
  auto b = Iota(Numel(bs), -0.25f, 3.0f);
  auto expect = RefBroadcast(a, as, b, bs, out, [](float x, float y) { return x - y; });
  OpTest("Sub", 14)
      .Input("a", T_<float>(a, as))
      .Input("b", T_<float>(b, bs))
      .Output("c", T_<float>(expect, out))
      .Run();
}

// ---- binary broadcasting -------------------------------------------------
TEST(ElementwiseBinary, BroadcastShapes) {
  CheckAddBroadcast({2, 3, 4}, {2, 3, 4}, {2, 3, 4});
  CheckAddBroadcast({2, 3, 4}, {4}, {2, 3, 4});
  CheckAddBroadcast({2, 3, 4}, {}, {2, 3, 4});
  CheckAddBroadcast({}, {2, 3, 4}, {2, 3, 4});
  CheckAddBroadcast({2, 3, 4}, {3, 1}, {2, 3, 4});
  CheckAddBroadcast({2, 1, 4}, {3, 1}, {2, 3, 4});
  CheckAddBroadcast({1, 3, 1, 5}, {2, 1, 4, 1}, {2, 3, 4, 5});
  CheckAddBroadcast({5, 1}, {1, 6}, {5, 6});
  CheckAddBroadcast({1}, {7}, {7});
  CheckAddBroadcast({3, 1, 1}, {1, 1, 1}, {3, 1, 1});
}

TEST(ElementwiseBinary, LargeBroadcastUsesThreads) {
  // Large enough to be split across the pool, with runs crossing chunk edges.
  CheckAddBroadcast({64, 37, 29}, {37, 1}, {64, 37, 29});
  CheckAddBroadcast({3, 40000}, {40000}, {3, 40000});
  CheckAddBroadcast({50000}, {1}, {50000});
  CheckAddBroadcast({2, 1, 30000}, {1, 2, 1}, {2, 2, 30000});
}

TEST(ElementwiseBinary, EmptyTensors) {
  OpTest("Add", 14)
      .Input("a", T_<float>({}, {0, 3}))
      .Input("b", T_<float>({1, 2, 3}, {3}))
      .Output("c", T_<float>({}, {0, 3}))
      .Run();
  OpTest("Mul", 14)
      .Input("a", T_<float>({}, {2, 0}))
      .Input("b", T_<float>({1, 2}, {2, 1}))
      .Output("c", T_<float>({}, {2, 0}))
      .Run();
}

TEST(ElementwiseBinary, IncompatibleShapesFail) {
  OpTest("Add", 14)
      .Input("a", T_<float>({1, 2, 3}, {3}))
      .Input("b", T_<float>({1, 2}, {2}))
      .UncheckedOutput("out")
      .ExpectFailure("cannot be broadcast");
}

TEST(ElementwiseBinary, MismatchedTypesFail) {
  OpTest("Add", 14)
      .Input("a", T_<float>({1, 2}, {2}))
      .Input("b", T_<double>({1, 2}, {2}))
      .UncheckedOutput("out")
      .ExpectFailure("different element types");
}

TEST(ElementwiseBinary, LegacyBroadcastAxis) {
  // opset 6: B [3] aligned with A's axis 1.
  OpTest("Add", 6)
      .Attr("broadcast", int64_t{1})
      .Attr("axis", int64_t{1})
      .Input("a", T_<float>({0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1}, {2, 3, 2}))
      .Input("b", T_<float>({10, 20, 30}, {3}))
      .Output("c", T_<float>({10, 10, 20, 20, 30, 30, 11, 11, 21, 21, 31, 31}, {2, 3, 2}))
      .Run();
  // Suffix alignment without axis.
  OpTest("Mul", 6)
      .Attr("broadcast", int64_t{1})
      .Input("a", T_<float>({1, 2, 3, 4, 5, 6}, {2, 3}))
      .Input("b", T_<float>({1, 10, 100}, {3}))
      .Output("c", T_<float>({1, 20, 300, 4, 50, 600}, {2, 3}))
      .Run();
  // Size-1 broadcast at axis 0 (pytorch's add_size1_broadcast).
  OpTest("Sub", 6)
      .Attr("broadcast", int64_t{1})
      .Attr("axis", int64_t{0})
      .Input("a", T_<double>({1, 2, 3, 4, 5, 6}, {2, 3}))
      .Input("b", T_<double>({1, 2}, {2, 1}))
      .Output("c", T_<double>({0, 1, 2, 2, 3, 4}, {2, 3}))
      .Run();
  // Opset 1 (consumed_inputs era) with a scalar.
  OpTest("Div", 1)
      .Attr("broadcast", int64_t{1})
      .Input("a", T_<float>({2, 4, 6}, {3}))
      .Input("b", T_<float>({2}, {}))
      .Output("c", T_<float>({1, 2, 3}, {3}))
      .Run();
}

TEST(ElementwiseBinary, LegacyBroadcastErrors) {
  OpTest("Add", 6)
      .Input("a", T_<float>({1, 2, 3, 4, 5, 6}, {2, 3}))
      .Input("b", T_<float>({1, 2, 3}, {3}))
      .UncheckedOutput("out")
      .ExpectFailure("broadcast=1");
  OpTest("Add", 6)
      .Attr("broadcast", int64_t{1})
      .Attr("axis", int64_t{1})
      .Input("a", T_<float>({1, 2, 3, 4, 5, 6}, {2, 3}))
      .Input("b", T_<float>({1, 2}, {2}))
      .UncheckedOutput("out")
      .ExpectFailure("cannot be broadcast");
  OpTest("Add", 6)
      .Attr("broadcast", int64_t{1})
      .Attr("axis", int64_t{5})
      .Input("a", T_<float>({1, 2, 3, 4, 5, 6}, {2, 3}))
      .Input("b", T_<float>({1, 2}, {2}))
      .UncheckedOutput("out")
      .ExpectFailure("out of range");
}

TEST(ElementwiseBinary, IntegerArithmeticWraps) {
  OpTest("Add", 14)
      .Input("a", T_<int8_t>({127, -128, 5}, {3}))
      .Input("b", T_<int8_t>({1, -1, 5}, {3}))
      .Output("c", T_<int8_t>({-128, 127, 10}, {3}))
      .Run();
  OpTest("Mul", 14)
      .Input("a", T_<uint16_t>({65535, 300}, {2}))
      .Input("b", T_<uint16_t>({65535, 300}, {2}))
      .Output("c", T_<uint16_t>({1, static_cast<uint16_t>(90000 % 65536)}, {2}))
      .Run();
}

TEST(ElementwiseBinary, IntegerDivision) {
  OpTest("Div", 14)
      .Input("a", T_<int32_t>({7, -7, 7, -7, std::numeric_limits<int32_t>::min()}, {5}))
      .Input("b", T_<int32_t>({2, 2, -2, -2, -1}, {5}))
      .Output("c", T_<int32_t>({3, -3, -3, 3, std::numeric_limits<int32_t>::min()}, {5}))
      .Run();
  OpTest("Div", 14)
      .Input("a", T_<int64_t>({1, 2}, {2}))
      .Input("b", T_<int64_t>({1, 0}, {2}))
      .UncheckedOutput("out")
      .ExpectFailure("division by zero");
}

TEST(ElementwiseBinary, FloatDivisionByZero) {
  float inf = std::numeric_limits<float>::infinity();
  OpTest("Div", 14)
      .Input("a", T_<float>({1, -1}, {2}))
      .Input("b", T_<float>({0, 0}, {2}))
      .Output("c", T_<float>({inf, -inf}, {2}))
      .Run();
}

TEST(ElementwiseBinary, ModIntegerSigns) {
  OpTest("Mod", 13)
      .Input("a", T_<int32_t>({-4, 7, 5, -5, 0}, {5}))
      .Input("b", T_<int32_t>({3, -3, 3, -3, 2}, {5}))
      .Output("c", T_<int32_t>({2, -2, 2, -2, 0}, {5}))
      .Run();
  OpTest("Mod", 13)
      .Attr("fmod", int64_t{1})
      .Input("a", T_<int32_t>({-4, 7, 5, -5}, {4}))
      .Input("b", T_<int32_t>({3, -3, 3, -3}, {4}))
      .Output("c", T_<int32_t>({-1, 1, 2, -2}, {4}))
      .Run();
  OpTest("Mod", 13)
      .Attr("fmod", int64_t{1})
      .Input("a", T_<float>({-4.5f, 7.5f}, {2}))
      .Input("b", T_<float>({2, -2}, {2}))
      .Output("c", T_<float>({-0.5f, 1.5f}, {2}))
      .Run();
  OpTest("Mod", 13)
      .Input("a", T_<int8_t>({1}, {1}))
      .Input("b", T_<int8_t>({0}, {1}))
      .UncheckedOutput("out")
      .ExpectFailure("division by zero");
  OpTest("Mod", 13)
      .Attr("fmod", int64_t{2})
      .Input("a", T_<int8_t>({1}, {1}))
      .Input("b", T_<int8_t>({1}, {1}))
      .UncheckedOutput("out")
      .ExpectFailure("fmod");
}

TEST(ElementwiseBinary, PowMixedTypes) {
  OpTest("Pow", 15)
      .Input("x", T_<int64_t>({2, -3, 5, 1, -1, 2}, {6}))
      .Input("y", T_<int64_t>({10, 3, 0, -4, -3, -1}, {6}))
      .Output("z", T_<int64_t>({1024, -27, 1, 1, -1, 0}, {6}))
      .Run();
  OpTest("Pow", 15)
      .Input("x", T_<float>({2, 4, 9}, {3}))
      .Input("y", T_<int32_t>({3}, {1}))
      .Output("z", T_<float>({8, 64, 729}, {3}))
      .Run();
  OpTest("Pow", 15)
      .Input("x", T_<int32_t>({4, 9}, {2}))
      .Input("y", T_<float>({0.5f}, {}))
      .Output("z", T_<int32_t>({2, 3}, {2}))
      .Run();
  OpTest("Pow", 15)
      .Input("x", T_<float>({-3, 1.5f}, {2}))
      .Input("y", T_<float>({2}, {}))
      .Output("z", T_<float>({9, 2.25f}, {2}))
      .Run();
}

TEST(ElementwiseBinary, VariadicBroadcast) {
  OpTest("Max", 13)
      .Input("a", T_<float>({1, 5, 3}, {3}))
      .Input("b", T_<float>({4, 2}, {2, 1}))
      .Input("c", T_<float>({0}, {}))
      .Output("m", T_<float>({4, 5, 4, 2, 5, 3}, {2, 3}))
      .Run();
  OpTest("Min", 13)
      .Input("a", T_<int16_t>({1, 5, 3}, {3}))
      .Output("m", T_<int16_t>({1, 5, 3}, {3}))
      .Run();
  OpTest("Sum", 13)
      .Input("a", T_<double>({1, 2, 3}, {3}))
      .Input("b", T_<double>({10}, {1}))
      .Input("c", T_<double>({100, 200, 300}, {3}))
      .Output("s", T_<double>({111, 212, 313}, {3}))
      .Run();
  OpTest("Mean", 13)
      .Input("a", F16({1, 2, 3}, {3}))
      .Input("b", F16({2, 2, 2}, {3}))
      .Input("c", F16({3, 5, 7}, {3}))
      .Output("s", F16({2, 3, 4}, {3}))
      .Run();
}

TEST(ElementwiseBinary, MaxPropagatesNaN) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  OpTest("Max", 13)
      .Input("a", T_<float>({nan, 1, 2}, {3}))
      .Input("b", T_<float>({1, nan, 0}, {3}))
      .Output("m", T_<float>({nan, nan, 2}, {3}))
      .Run();
}

TEST(ElementwiseBinary, ClipForms) {
  OpTest("Clip", 6)
      .Attr("min", -1.0f)
      .Attr("max", 1.0f)
      .Input("x", T_<float>({-3, 0.5f, 2}, {3}))
      .Output("y", T_<float>({-1, 0.5f, 1}, {3}))
      .Run();
  OpTest("Clip", 13)
      .Input("x", T_<int8_t>({-128, 0, 127}, {3}))
      .Input("min", T_<int8_t>({-5}, {}))
      .Output("y", T_<int8_t>({-5, 0, 127}, {3}))
      .Run();
  OpTest("Clip", 13)
      .Input("x", T_<uint64_t>({1, 50, 100}, {3}))
      .OmittedInput()
      .Input("max", T_<uint64_t>({60}, {}))
      .Output("y", T_<uint64_t>({1, 50, 60}, {3}))
      .Run();
  // min > max: everything becomes max.
  OpTest("Clip", 13)
      .Input("x", T_<float>({-3, 0.5f, 2}, {3}))
      .Input("min", T_<float>({2}, {}))
      .Input("max", T_<float>({1}, {}))
      .Output("y", T_<float>({1, 1, 1}, {3}))
      .Run();
  OpTest("Clip", 13)
      .Input("x", T_<float>({-3, 0.5f, 2}, {3}))
      .Input("min", T_<float>({2, 3}, {2}))
      .UncheckedOutput("out")
      .ExpectFailure("scalar");
}

TEST(ElementwiseBinary, BitShiftAndBitwise) {
  OpTest("BitShift", 11)
      .Attr("direction", std::string("LEFT"))
      .Input("x", T_<uint8_t>({1, 255, 3}, {3}))
      .Input("y", T_<uint8_t>({7, 1, 8}, {3}))
      .Output("z", T_<uint8_t>({128, 254, 0}, {3}))
      .Run();
  OpTest("BitShift", 11)
      .Attr("direction", std::string("RIGHT"))
      .Input("x", T_<uint64_t>({1024, 7}, {2}))
      .Input("y", T_<uint64_t>({3}, {}))
      .Output("z", T_<uint64_t>({128, 0}, {2}))
      .Run();
  OpTest("BitShift", 11)
      .Attr("direction", std::string("UP"))
      .Input("x", T_<uint8_t>({1}, {1}))
      .Input("y", T_<uint8_t>({1}, {1}))
      .UncheckedOutput("out")
      .ExpectFailure("direction");
  OpTest("BitwiseXor", 18)
      .Input("x", T_<int16_t>({0x0f0f, -1}, {2}))
      .Input("y", T_<int16_t>({0x00ff}, {1}))
      .Output("z", T_<int16_t>({0x0ff0, static_cast<int16_t>(~0x00ff)}, {2}))
      .Run();
  OpTest("BitwiseNot", 18)
      .Input("x", T_<uint8_t>({0, 0xf0}, {2}))
      .Output("y", T_<uint8_t>({0xff, 0x0f}, {2}))
      .Run();
}

// ---- unary ---------------------------------------------------------------
TEST(ElementwiseUnary, RoundHalfToEven) {
  OpTest("Round", 11)
      .Input("x", T_<float>({0.5f, 1.5f, 2.5f, -2.5f, -0.4f, 2.6f}, {6}))
      .Output("y", T_<float>({0, 2, 2, -2, -0.0f, 3}, {6}))
      .Run();
}

TEST(ElementwiseUnary, IntegerAbsNegSign) {
  OpTest("Abs", 13)
      .Input("x", T_<int8_t>({-128, -3, 4}, {3}))
      .Output("y", T_<int8_t>({-128, 3, 4}, {3}))
      .Run();
  OpTest("Neg", 13)
      .Input("x", T_<int32_t>({1, -2, 0}, {3}))
      .Output("y", T_<int32_t>({-1, 2, 0}, {3}))
      .Run();
  OpTest("Sign", 13)
      .Input("x", T_<double>({-2, 0, 3.5}, {3}))
      .Output("y", T_<double>({-1, 0, 1}, {3}))
      .Run();
  OpTest("Sign", 13)
      .Input("x", T_<uint32_t>({0, 7}, {2}))
      .Output("y", T_<uint32_t>({0, 1}, {2}))
      .Run();
}

TEST(ElementwiseUnary, Float16AndLargeTensors) {
  OpTest("Sqrt", 13).Input("x", F16({4, 9, 0.25f}, {3})).Output("y", F16({2, 3, 0.5f}, {3})).Run();
  std::vector<float> x(70000), y(70000);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(i % 100) * 0.01f;
    y[i] = std::exp(x[i]);
  }
  OpTest("Exp", 13).Input("x", T_<float>(x, {70000})).Output("y", T_<float>(y, {70000})).Run();
}

TEST(ElementwiseUnary, IsNaNIsInf) {
  float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  OpTest("IsNaN", 13).Input("x", F16({nan, 1, inf}, {3})).Output("y", T_<bool>({true, false, false}, {3})).Run();
  OpTest("IsInf", 10)
      .Attr("detect_negative", int64_t{0})
      .Input("x", T_<double>({-inf, inf, nan, 0}, {4}))
      .Output("y", T_<bool>({false, true, false, false}, {4}))
      .Run();
  OpTest("IsInf", 20)
      .Attr("detect_positive", int64_t{0})
      .Input("x", T_<float>({-inf, inf, nan, 0}, {4}))
      .Output("y", T_<bool>({true, false, false, false}, {4}))
      .Run();
}

TEST(ElementwiseUnary, WrongTypeFails) {
  OpTest("Exp", 13).Input("x", T_<int32_t>({1}, {1})).UncheckedOutput("out").ExpectFailure("int32");
}

// ---- logic ---------------------------------------------------------------
TEST(Logic, CompareBroadcast) {
  OpTest("Less", 13)
      .Input("a", T_<int64_t>({1, 2, 3, 4, 5, 6}, {2, 3}))
      .Input("b", T_<int64_t>({3}, {}))
      .Output("c", T_<bool>({true, true, false, false, false, false}, {2, 3}))
      .Run();
  OpTest("GreaterOrEqual", 16)
      .Input("a", F16({1, 2, 3}, {3, 1}))
      .Input("b", F16({2, 3}, {2}))
      .Output("c", T_<bool>({false, false, true, false, true, true}, {3, 2}))
      .Run();
  OpTest("Equal", 19)
      .Input("a", T_<std::string>({"a", "b", "c"}, {3}))
      .Input("b", T_<std::string>({"b"}, {1}))
      .Output("c", T_<bool>({false, true, false}, {3}))
      .Run();
  OpTest("Equal", 13)
      .Input("a", T_<bool>({true, false}, {2}))
      .Input("b", T_<bool>({true, true}, {2}))
      .Output("c", T_<bool>({true, false}, {2}))
      .Run();
}

TEST(Logic, LegacyAndNot) {
  OpTest("And", 1)
      .Attr("broadcast", int64_t{1})
      .Attr("axis", int64_t{0})
      .Input("a", T_<bool>({true, true, false, true}, {2, 2}))
      .Input("b", T_<bool>({true, false}, {2}))
      .Output("c", T_<bool>({true, true, false, false}, {2, 2}))
      .Run();
  OpTest("Not", 1).Input("x", T_<bool>({true, false}, {2})).Output("y", T_<bool>({false, true}, {2})).Run();
  OpTest("Xor", 7)
      .Input("a", T_<bool>({true, false}, {2, 1}))
      .Input("b", T_<bool>({true, false}, {2}))
      .Output("c", T_<bool>({false, true, true, false}, {2, 2}))
      .Run();
  OpTest("Or", 7)
      .Input("a", T_<int32_t>({1}, {1}))
      .Input("b", T_<int32_t>({1}, {1}))
      .UncheckedOutput("out")
      .ExpectFailure("bool");
}

TEST(Logic, WhereThreeWayBroadcast) {
  OpTest("Where", 16)
      .Input("c", T_<bool>({true, false}, {2, 1, 1}))
      .Input("x", T_<int64_t>({1, 2, 3}, {3, 1}))
      .Input("y", T_<int64_t>({10, 20}, {2}))
      .Output("z", T_<int64_t>({1, 1, 2, 2, 3, 3, 10, 20, 10, 20, 10, 20}, {2, 3, 2}))
      .Run();
  OpTest("Where", 16)
      .Input("c", T_<bool>({true, false, true}, {3}))
      .Input("x", T_<std::string>({"x"}, {}))
      .Input("y", T_<std::string>({"a", "b", "c"}, {3}))
      .Output("z", T_<std::string>({"x", "b", "x"}, {3}))
      .Run();
  OpTest("Where", 16)
      .Input("c", T_<bool>({true, false}, {2}))
      .Input("x", F16({1, 2}, {2}))
      .Input("y", F16({3, 4}, {2}))
      .Output("z", F16({1, 4}, {2}))
      .Run();
  OpTest("Where", 16)
      .Input("c", T_<bool>({true, false}, {2}))
      .Input("x", T_<float>({1, 2, 3}, {3}))
      .Input("y", T_<float>({3, 4}, {2}))
      .UncheckedOutput("out")
      .ExpectFailure("cannot be broadcast");
}

}  // namespace
}  // namespace tessera::test
