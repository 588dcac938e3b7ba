// com.microsoft QLinearSigmoid / QLinearLeakyRelu: every one of the 256
// inputs, int8 and uint8, tables built at creation (constant parameters) or
// per run (fed parameters); exact against Q(f(DQ(x))) in float.
#include <gtest/gtest.h>

#include "providers/cpu/qlinear_test_util.h"

namespace tessera {
namespace {

using namespace test;
using namespace test::qlinear;

// All 256 bit patterns, in a [4, 64] tensor.
Tensor AllBytes(DataType t) {
  Tensor x(t, {4, 64});
  for (int i = 0; i < 256; ++i) static_cast<uint8_t*>(x.raw_data())[i] = static_cast<uint8_t>(i);
  return x;
}

template <typename F>
void CheckLookup(const std::string& op, std::vector<Attribute> attrs, F&& f) {
  struct P {
    float xs, ys;
    int xz, yz;
  };
  for (DataType t : {DataType::kUInt8, DataType::kInt8})
    for (bool constant : {true, false}) {
      const bool sg = t == DataType::kInt8;
      // Typical, saturating (tiny output scale) and extreme zero points.
      const std::vector<P> params = {{0.05f, 1.0f / 256, sg ? 0 : 128, sg ? -128 : 0},
                                     {0.1f, 1e-4f, sg ? 10 : 3, sg ? 127 : 255},
                                     {1e3f, 0.02f, sg ? -128 : 255, sg ? 0 : 128}};
      for (const P& p : params) {
        SCOPED_TRACE(op + " " + DataTypeName(t) + (constant ? " constant" : " fed") + " xs " + std::to_string(p.xs));
        const Tensor x = AllBytes(t);
        const Tensor y = RunNode(op, {{"x", x}, {"xs", ScaleT(p.xs), constant}, {"xz", ZeroT(t, p.xz), constant},
                                      {"ys", ScaleT(p.ys), constant}, {"yz", ZeroT(t, p.yz), constant}},
                                 attrs);
        std::vector<int> want(256);
        for (int i = 0; i < 256; ++i) want[static_cast<size_t>(i)] = Qz(f(Dq(Q(x, i), p.xs, p.xz)), p.ys, p.yz, sg);
        EXPECT_EQ(y.shape(), x.shape());
        ExpectWithinOneStep(y, want, 1.0);
      }
    }
}

TEST(QLinearLookup, SigmoidIsExact) {
  CheckLookup("QLinearSigmoid", {}, [](float v) { return 1.0f / (1.0f + std::exp(-v)); });
}

TEST(QLinearLookup, LeakyReluIsExactWithItsAlpha) {
  CheckLookup("QLinearLeakyRelu", {FloatAttr("alpha", 0.125f)}, [](float v) { return v < 0 ? 0.125f * v : v; });
  CheckLookup("QLinearLeakyRelu", {}, [](float v) { return v < 0 ? 0.01f * v : v; });  // the default alpha
}

TEST(QLinearLookup, OmittedZeroPointsAndEmptyInput) {
  const Tensor x = Bytes(DataType::kUInt8, {0, 5}, 1);
  const Tensor y = RunNode("QLinearSigmoid", {{"x", x}, {"xs", ScaleT(0.1f), true}, {"", Tensor()},
                                              {"ys", ScaleT(1.0f / 256), true}});
  EXPECT_EQ(y.shape(), (Shape{0, 5}));
  const Tensor x2 = Bytes(DataType::kUInt8, {9}, 2);
  const Tensor y2 = RunNode("QLinearLeakyRelu", {{"x", x2}, {"xs", ScaleT(0.1f), true}, {"", Tensor()},
                                                 {"ys", ScaleT(0.1f), true}});
  std::vector<int> want(9);
  for (int i = 0; i < 9; ++i) want[static_cast<size_t>(i)] = Q(x2, i);  // zero points 0, equal scales: the identity
  ExpectWithinOneStep(y2, want, 1.0);
}

TEST(QLinearLookup, WrongElementTypeFails) {
  try {
    RunNode("QLinearSigmoid", {{"x", Tensor::FromVector<float>({1}, {1})}, {"xs", ScaleT(0.1f), true}, {"", Tensor()},
                               {"ys", ScaleT(0.1f), true}});
    ADD_FAILURE() << "float X must fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("X has element type float"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tessera
