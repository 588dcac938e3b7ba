// com.microsoft QLinearAdd / QLinearMul: numpy broadcasting, int8 and
// uint8, saturation at both ends, extreme scales and zero points, empty
// tensors; every result within one step of dequantize -> op -> quantize in
// float, nearly all exact. The SIMD rows run on every compiled target.
#include <gtest/gtest.h>

#include "providers/cpu/qlinear_test_util.h"
#include "support/simd_targets.h"
#include "tessera/providers/cpu/simd_qlinear.h"

namespace tessera {
namespace {

using namespace test;
using namespace test::qlinear;

struct BinaryCase {
  BinaryCase(Shape a_, Shape b_, DataType t = DataType::kUInt8) : a(std::move(a_)), b(std::move(b_)), type(t) {}
  Shape a, b;
  DataType type = DataType::kUInt8;
  float as = 0.02f, bs = 0.03f, cs = 0.04f;
  int za = 120, zb = 130, zc = 128;
  bool params_constant = true;
};

// The reference: broadcast indices computed directly from the shapes.
std::vector<int> Reference(bool mul, const BinaryCase& c, const Tensor& a, const Tensor& b, const Shape& out) {
  const size_t r = out.size();
  const bool sg = c.type == DataType::kInt8;
  int64_t n = 1;
  for (int64_t d : out) n *= d;
  std::vector<int> want(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t rem = i, ia = 0, ib = 0, sa = 1, sb = 1;
    for (size_t d = r; d-- > 0;) {
      const int64_t k = rem % out[d];
      rem /= out[d];
      const size_t da = d + c.a.size() - r, db = d + c.b.size() - r;
      if (d + c.a.size() >= r) {
        ia += (c.a[da] == 1 ? 0 : k) * sa;
        sa *= c.a[da];
      }
      if (d + c.b.size() >= r) {
        ib += (c.b[db] == 1 ? 0 : k) * sb;
        sb *= c.b[db];
      }
    }
    const float fa = Dq(Q(a, ia), c.as, c.za), fb = Dq(Q(b, ib), c.bs, c.zb);
    want[static_cast<size_t>(i)] = Qz(mul ? fa * fb : fa + fb, c.cs, c.zc, sg);
  }
  return want;
}

Shape Broadcast(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t x = i + a.size() >= out.size() ? a[i + a.size() - out.size()] : 1;
    const int64_t y = i + b.size() >= out.size() ? b[i + b.size() - out.size()] : 1;
    out[i] = x == 1 ? y : x;
  }
  return out;
}

double Check(bool mul, const BinaryCase& c, uint32_t seed = 1, double min_exact = 0.9) {
  const Tensor a = Bytes(c.type, c.a, seed), b = Bytes(c.type, c.b, seed + 1);
  const bool k = c.params_constant;
  const Tensor got = RunNode(mul ? "QLinearMul" : "QLinearAdd",
                             {{"a", a}, {"as", ScaleT(c.as), k}, {"az", ZeroT(c.type, c.za), k},
                              {"b", b}, {"bs", ScaleT(c.bs), k}, {"bz", ZeroT(c.type, c.zb), k},
                              {"cs", ScaleT(c.cs), k}, {"cz", ZeroT(c.type, c.zc), k}});
  const Shape out = Broadcast(c.a, c.b);
  EXPECT_EQ(got.shape(), out);
  EXPECT_EQ(got.dtype(), c.type);
  return ExpectWithinOneStep(got, Reference(mul, c, a, b, out), min_exact);
}

TEST(QLinearBinary, SameShapeInt8AndUint8) {
  for (bool mul : {false, true})
    for (DataType t : {DataType::kUInt8, DataType::kInt8}) {
      SCOPED_TRACE(std::string(mul ? "Mul " : "Add ") + DataTypeName(t));
      BinaryCase c({2, 3, 37}, {2, 3, 37}, t);
      if (t == DataType::kInt8) c.za = -5, c.zb = 7, c.zc = 0;
      if (mul) c.cs = 0.5f;
      Check(mul, c);
    }
}

TEST(QLinearBinary, Broadcasts) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{2, 3, 4, 5}, {1, 3, 1, 1}},  // per channel
      {{2, 3, 4, 5}, {5}},           // per column
      {{4, 1}, {1, 6}},              // both ways
      {{3, 7}, {}},                  // B a scalar
      {{}, {3, 17}},                 // A a scalar
      {{1, 1}, {1}},                 // one element
      {{2, 1, 5}, {2, 3, 5}}};
  for (bool mul : {false, true})
    for (const auto& [a, b] : shapes) {
      SCOPED_TRACE(ShapeToString(a) + " x " + ShapeToString(b));
      BinaryCase c(a, b);
      if (mul) c.cs = 0.5f;
      Check(mul, c);
      c.type = DataType::kInt8;
      c.za = 3, c.zb = -9, c.zc = -1;
      Check(mul, c);
    }
}

TEST(QLinearBinary, SaturatesAtBothEnds) {
  for (bool mul : {false, true})
    for (DataType t : {DataType::kUInt8, DataType::kInt8}) {
      BinaryCase c({300}, {300}, t);
      c.cs = mul ? 0.01f : 0.002f;  // most sums far outside the output's range
      c.zc = t == DataType::kInt8 ? 0 : 128;
      if (t == DataType::kInt8) c.za = c.zb = 0;
      const Tensor a = Bytes(t, c.a, 4), b = Bytes(t, c.b, 5);
      const Tensor got = RunNode(mul ? "QLinearMul" : "QLinearAdd",
                                 {{"a", a}, {"as", ScaleT(c.as), true}, {"az", ZeroT(t, c.za), true},
                                  {"b", b}, {"bs", ScaleT(c.bs), true}, {"bz", ZeroT(t, c.zb), true},
                                  {"cs", ScaleT(c.cs), true}, {"cz", ZeroT(t, c.zc), true}});
      ExpectWithinOneStep(got, Reference(mul, c, a, b, c.a));
      bool low = false, high = false;
      for (int64_t i = 0; i < got.numel(); ++i) {
        low |= Q(got, i) == (t == DataType::kInt8 ? -128 : 0);
        high |= Q(got, i) == (t == DataType::kInt8 ? 127 : 255);
      }
      EXPECT_TRUE(low && high) << "both ends reached";
    }
}

TEST(QLinearBinary, ExtremeScalesAndZeroPoints) {
  for (bool mul : {false, true}) {
    BinaryCase c({5, 64}, {5, 64});
    c.za = 0, c.zb = 255, c.zc = 255;
    c.as = 1e-6f, c.bs = 1e3f, c.cs = 1e3f;
    Check(mul, c, 7);
    c.type = DataType::kInt8;
    c.za = -128, c.zb = 127, c.zc = -128;
    c.as = 1e3f, c.bs = 1e-4f, c.cs = mul ? 1e3f : 7.5f;
    Check(mul, c, 8);
  }
}

TEST(QLinearBinary, ParametersFedAtRunTime) {
  BinaryCase c({2, 3, 4, 5}, {1, 3, 1, 1});
  c.params_constant = false;
  Check(false, c);
  Check(true, c);
}

TEST(QLinearBinary, EmptyTensors) {
  BinaryCase c({0, 3}, {3});
  Check(false, c);
  Check(true, c);
}

TEST(QLinearBinary, BadInputsNameTheNode) {
  const Tensor a = Bytes(DataType::kUInt8, {4}, 1), b = Bytes(DataType::kInt8, {4}, 2);
  try {
    RunNode("QLinearAdd", {{"a", a}, {"as", ScaleT(1), true}, {"", Tensor()}, {"b", b}, {"bs", ScaleT(1), true},
                           {"", Tensor()}, {"cs", ScaleT(1), true}});
    ADD_FAILURE() << "mixed element types must fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(com.microsoft:QLinearAdd)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("B has element type int8"), std::string::npos) << e.what();
  }
  try {
    RunNode("QLinearMul", {{"a", a}, {"as", Tensor::FromVector<float>({1, 2}, {2}), true}, {"", Tensor()},
                           {"b", a}, {"bs", ScaleT(1), true}, {"", Tensor()}, {"cs", ScaleT(1), true}});
    ADD_FAILURE() << "a per-channel scale must fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("A scale must hold one value"), std::string::npos) << e.what();
  }
}

// Opset errors and missing imports name the com.microsoft domain, as they
// do for ai.onnx.
TEST(QLinearBinary, OpsetErrorsNameTheDomain) {
  Node n = MakeNode("add", "QLinearAdd", {"a", "s", "", "a", "s", "", "s"}, {"y"});
  n.domain = "com.microsoft";
  for (int64_t opset : {int64_t{2}, int64_t{-1}}) {
    Model m = MakeModel({n}, {TensorInfo("a", DataType::kUInt8, {4})}, {TensorInfo("y", DataType::kUInt8, {4})}, 17);
    m.graph->initializers["s"] = ScaleT(1);
    if (opset > 0) m.opset_imports.push_back({"com.microsoft", opset});
    try {
      Session s(std::move(m), SessionOptions{}, MakeProviders({"cpu"}));
      ADD_FAILURE() << "opset " << opset << " must fail";
    } catch (const Error& e) {
      const std::string want = opset > 0 ? "the model imports com.microsoft opset 2" : "uses domain 'com.microsoft'";
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  }
}

TEST(QLinearBinary, RowsOnEverySimdTarget) {
  for (bool is_signed : {false, true}) {
    const int64_t n = 203;
    const Tensor a = Bytes(is_signed ? DataType::kInt8 : DataType::kUInt8, {n}, 11);
    const Tensor b = Bytes(is_signed ? DataType::kInt8 : DataType::kUInt8, {n}, 12);
    cpu::QLinearBinaryRow p;
    p.za = is_signed ? -3 : 100, p.zb = is_signed ? 5 : 140, p.zc = is_signed ? 2 : 127;
    p.ka = 0.37f, p.kb = 0.61f;
    OnEverySimdTarget([&] {
      for (bool mul : {false, true})
        for (int scalar = 0; scalar < 3; ++scalar) {  // 0 none, 1 a, 2 b
          std::vector<uint8_t> c(static_cast<size_t>(n));
          const float k = mul ? 0.01f : p.ka;
          cpu::QLinearBinaryRow q = p;
          q.ka = k;
          if (mul) cpu::QLinearMulRow(a.raw_data(), scalar == 1, b.raw_data(), scalar == 2, n, q, is_signed, c.data());
          else cpu::QLinearAddRow(a.raw_data(), scalar == 1, b.raw_data(), scalar == 2, n, q, is_signed, c.data());
          for (int64_t i = 0; i < n; ++i) {
            const int x = Q(a, scalar == 1 ? 0 : i) - q.za, y = Q(b, scalar == 2 ? 0 : i) - q.zb;
            const double v = mul ? static_cast<double>(x) * y * k : x * static_cast<double>(q.ka) + y * static_cast<double>(q.kb);
            const double want = std::clamp(std::nearbyint(v) + q.zc, is_signed ? -128.0 : 0.0, is_signed ? 127.0 : 255.0);
            const int have = is_signed ? static_cast<int8_t>(c[static_cast<size_t>(i)]) : c[static_cast<size_t>(i)];
            ASSERT_LE(std::abs(have - want), 1) << "element " << i << (mul ? " mul" : " add") << " scalar " << scalar;
          }
        }
    });
  }
}

}  // namespace
}  // namespace tessera
