// Unit tests of the activation kernels: attribute handling, numeric edge
// cases, PRelu broadcasting (current and legacy), integer forms.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "support/op_test.h"
#include "tessera/base/half.h"
#include "tessera/providers/cpu/activation_impl.h"

namespace tessera::test {
namespace {

Tensor BF16(const std::vector<float>& v, Shape s) {
  std::vector<BFloat16> h;
  for (float f : v) h.push_back(BFloat16{FloatToBFloat16(f)});
  return Tensor::FromVector<BFloat16>(h, std::move(s));
}

TEST(Activations, SigmoidSoftplusExtremes) {
  OpTest("Sigmoid", 13)
      .Input("x", T_<float>({-1000, 0, 1000}, {3}))
      .Output("y", T_<float>({0, 0.5f, 1}, {3}))
      .Run();
  OpTest("Softplus", 22)
      .Input("x", T_<float>({-1000, 0, 1000}, {3}))
      .Output("y", T_<float>({0, std::log(2.0f), 1000}, {3}))
      .Run();
  OpTest("Mish", 22)
      .Input("x", T_<double>({-1000, 0, 1000}, {3}))
      .Output("y", T_<double>({0, 0, 1000}, {3}))
      .Run();
}

TEST(Activations, Attributes) {
  OpTest("LeakyRelu", 16)
      .Attr("alpha", 0.5f)
      .Input("x", T_<float>({-2, 3}, {2}))
      .Output("y", T_<float>({-1, 3}, {2}))
      .Run();
  OpTest("Elu", 6)
      .Attr("alpha", 2.0f)
      .Input("x", T_<float>({-1, 3}, {2}))
      .Output("y", T_<float>({2.0f * (std::exp(-1.0f) - 1.0f), 3}, {2}))
      .Run();
  OpTest("ThresholdedRelu", 10)
      .Attr("alpha", 2.0f)
      .Input("x", T_<float>({1, 2, 3}, {3}))
      .Output("y", T_<float>({0, 0, 3}, {3}))
      .Run();
  OpTest("HardSigmoid", 6)
      .Attr("alpha", 0.5f)
      .Attr("beta", 0.25f)
      .Input("x", T_<float>({-4, 0, 4}, {3}))
      .Output("y", T_<float>({0, 0.25f, 1}, {3}))
      .Run();
  OpTest("Swish", 24)
      .Attr("alpha", 2.0f)
      .Input("x", T_<float>({1}, {1}))
      .Output("y", T_<float>({1.0f / (1.0f + std::exp(-2.0f))}, {1}))
      .Run();
  OpTest("Celu", 12)
      .Attr("alpha", 2.0f)
      .Input("x", T_<float>({-2, 1}, {2}))
      .Output("y", T_<float>({2.0f * (std::exp(-1.0f) - 1.0f), 1}, {2}))
      .Run();
}

TEST(Activations, Gelu) {
  float x = 1.0f;
  float exact = 0.5f * x * (1.0f + std::erf(x / std::sqrt(2.0f)));
  float approx = 0.5f * x * (1.0f + std::tanh(std::sqrt(2.0f / 3.14159265f) * (x + 0.044715f * x * x * x)));
  OpTest("Gelu", 20).Input("x", T_<float>({x}, {1})).Output("y", T_<float>({exact}, {1})).Run();
  OpTest("Gelu", 20)
      .Attr("approximate", std::string("tanh"))
      .Input("x", T_<float>({x}, {1}))
      .Output("y", T_<float>({approx}, {1}))
      .Run();
  OpTest("Gelu", 20)
      .Attr("approximate", std::string("erf"))
      .Input("x", T_<float>({x}, {1}))
      .UncheckedOutput("out")
      .ExpectFailure("approximate");
}

TEST(Activations, ReluIntegerAndBFloat16) {
  OpTest("Relu", 14)
      .Input("x", T_<int8_t>({-5, 0, 7}, {3}))
      .Output("y", T_<int8_t>({0, 0, 7}, {3}))
      .Run();
  OpTest("Relu", 14).Input("x", BF16({-1.5f, 2.5f}, {2})).Output("y", BF16({0, 2.5f}, {2})).Run();
  OpTest("HardSwish", 22)
      .Input("x", BF16({-4, 1, 4}, {3}))
      .Output("y", BF16({0, 1.0f * (1.0f / 6.0f + 0.5f), 4}, {3}))
      .Tolerance(1e-2, 1e-3)
      .Run();
}

TEST(Activations, ShrinkIntegers) {
  OpTest("Shrink", 9)
      .Attr("lambd", 1.5f)
      .Attr("bias", 1.0f)
      .Input("x", T_<int32_t>({-3, -1, 0, 1, 2, 3}, {6}))
      .Output("y", T_<int32_t>({-2, 0, 0, 0, 1, 2}, {6}))
      .Run();
  OpTest("Shrink", 9)
      .Attr("lambd", 1.0f)
      .Attr("bias", 5.0f)
      .Input("x", T_<uint8_t>({0, 3, 200}, {3}))
      .Output("y", T_<uint8_t>({0, 0, 195}, {3}))
      .Run();
}

TEST(Activations, PReluBroadcast) {
  OpTest("PRelu", 16)
      .Input("x", T_<float>({-1, -2, -3, 4, -5, -6}, {2, 3}))
      .Input("slope", T_<float>({1, 2, 3}, {3}))
      .Output("y", T_<float>({-1, -4, -9, 4, -10, -18}, {2, 3}))
      .Run();
  OpTest("PRelu", 16)
      .Input("x", T_<int32_t>({-1, 2, -3, 4}, {2, 2}))
      .Input("slope", T_<int32_t>({3, 5}, {2, 1}))
      .Output("y", T_<int32_t>({-3, 2, -15, 4}, {2, 2}))
      .Run();
  // The slope may not enlarge X.
  OpTest("PRelu", 16)
      .Input("x", T_<float>({-1, 2}, {2}))
      .Input("slope", T_<float>({1, 2, 3, 4}, {2, 2}))
      .UncheckedOutput("out")
      .ExpectFailure("unidirectionally");
}

TEST(Activations, PReluLegacyChannels) {
  // Opset 6: a slope with X's channel count applies along dim 1.
  OpTest("PRelu", 6)
      .Input("x", T_<float>({-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}, {2, 3, 2}))
      .Input("slope", T_<float>({1, 2, 3}, {3}))
      .Output("y", T_<float>({-1, -1, -2, -2, -3, -3, -1, -1, -2, -2, -3, -3}, {2, 3, 2}))
      .Run();
}

TEST(Activations, NaNPassesThrough) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  OpTest("Relu", 14)
      .Input("x", T_<float>({nan}, {1}))
      .Output("y", T_<float>({nan}, {1}))
      .ExceptProvider("dnnl", "oneDNN's relu maps NaN to 0 (docs/execution-providers.md)")
      .Run();
  OpTest("Tanh", 13).Input("x", T_<float>({nan, 0}, {2})).Output("y", T_<float>({nan, 0}, {2})).Run();
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

// ExpFloat (the fused Sigmoid/SiLU epilogue's exp) against std::exp over
// the whole float range it handles, plus its clamps and NaN.
TEST(Activations, ExpFloatWithinTwoUlpOfStdExp) {
  double worst = 0;
  for (float x = -87.0f; x <= 88.0f; x += 0.001953125f) {
    double want = std::exp(static_cast<double>(x));
    double got = cpu::ExpFloat(x);
    worst = std::max(worst, std::abs(got - want) / want);
  }
  EXPECT_LT(worst, 2.5e-7);
  EXPECT_GT(cpu::ExpFloat(-1000.0f), 0.0f);  // clamped, not flushed to garbage
  EXPECT_TRUE(std::isfinite(cpu::ExpFloat(1000.0f)));
  EXPECT_TRUE(std::isnan(cpu::ExpFloat(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(cpu::ExpFloat(0.0f), 1.0f);
}

}  // namespace
}  // namespace tessera::test
