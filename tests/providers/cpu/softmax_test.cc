#include <cmath>

#include "support/op_test.h"
#include "tessera/base/half.h"

namespace tessera::test {
namespace {

TEST(SoftmaxTest, LastAxisOpset13) {
  float e1 = std::exp(1.f), e2 = std::exp(2.f);
  float s = 1 + e1 + e2;
  OpTest("Softmax", 13)
      .Input("x", T_<float>({0, 1, 2, 2, 1, 0}, {2, 3}))
      .Output("y", T_<float>({1 / s, e1 / s, e2 / s, e2 / s, e1 / s, 1 / s}, {2, 3}))
      .Run();
}

TEST(SoftmaxTest, MiddleAxisOpset13) {
  // [1, 2, 2] over axis 1: pairs (0,1) and (2,3) columns.
  float a = 1 / (1 + std::exp(2.f)), b = 1 - a;
  OpTest("Softmax", 13)
      .Attr("axis", int64_t{1})
      .Input("x", T_<float>({0, 3, 2, 3}, {1, 2, 2}))
      .Output("y", T_<float>({a, 0.5f, b, 0.5f}, {1, 2, 2}))
      .Run();
}

TEST(SoftmaxTest, LegacyCoercesTo2D) {
  // opset 11, axis 1 on [1, 2, 2]: a single row of 4.
  float s = 1 + std::exp(1.f) + std::exp(2.f) + std::exp(3.f);
  OpTest("Softmax", 11)
      .Input("x", T_<float>({0, 1, 2, 3}, {1, 2, 2}))
      .Output("y", T_<float>({1 / s, std::exp(1.f) / s, std::exp(2.f) / s, std::exp(3.f) / s}, {1, 2, 2}))
      .Run();
}

TEST(SoftmaxTest, LargeNumbersAreStable) {
  OpTest("Softmax", 13)
      .Input("x", T_<double>({10000, 10000}, {2}))
      .Output("y", T_<double>({0.5, 0.5}, {2}))
      .Run();
}

TEST(SoftmaxTest, LogSoftmaxNegativeAxis) {
  float l = std::log(2.f);
  OpTest("LogSoftmax", 13)
      .Attr("axis", int64_t{-2})
      .Input("x", T_<float>({1, 5, 1, 5}, {2, 2}))
      .Output("y", T_<float>({-l, -l, -l, -l}, {2, 2}))
      .Run();
}

TEST(SoftmaxTest, HardmaxFirstMaxWins) {
  OpTest("Hardmax", 13)
      .Input("x", T_<float>({3, 1, 3, 0, 0, 0}, {2, 3}))
      .Output("y", T_<float>({1, 0, 0, 1, 0, 0}, {2, 3}))
      .Run();
}

TEST(SoftmaxTest, HardmaxStridedAxis) {
  OpTest("Hardmax", 13)
      .Attr("axis", int64_t{0})
      .Input("x", T_<float>({1, 5, 2, 4}, {2, 2}))
      .Output("y", T_<float>({0, 1, 1, 0}, {2, 2}))
      .Run();
}

TEST(SoftmaxTest, EmptyInput) {
  OpTest("Softmax", 13).Input("x", T_<float>({}, {0, 3})).Output("y", T_<float>({}, {0, 3})).Run();
}

TEST(SoftmaxTest, BadAxisFails) {
  OpTest("Softmax", 13)
      .Attr("axis", int64_t{2})
      .Input("x", T_<float>({1, 2}, {1, 2}))
      .Output("y", T_<float>({0, 0}, {1, 2}))
      .ExpectFailure("out of range");
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

Tensor Half(std::vector<float> v, Shape s) {
  Tensor t(DataType::kFloat16, std::move(s));
  for (size_t i = 0; i < v.size(); ++i) t.data<Float16>()[i] = Float16{FloatToHalf(v[i])};
  return t;
}

TEST(SoftmaxTest, Float16) {
  OpTest("Softmax", 13)
      .Input("x", Half({0, 0, 1, 1}, {2, 2}))
      .Output("y", Half({0.5f, 0.5f, 0.5f, 0.5f}, {2, 2}))
      .Run();
}

}  // namespace
}  // namespace tessera::test
