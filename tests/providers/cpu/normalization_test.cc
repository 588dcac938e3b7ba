#include <cmath>

#include "support/op_test.h"

namespace tessera::test {
namespace {

TEST(NormalizationTest, BatchNormInference) {
  OpTest("BatchNormalization", 15)
      .Input("x", T_<float>({1, 2, 3, 4}, {1, 2, 2}))
      .Input("s", T_<float>({1, 2}, {2}))
      .Input("b", T_<float>({0, 1}, {2}))
      .Input("m", T_<float>({1, 3}, {2}))
      .Input("v", T_<float>({4, 1}, {2}))
      .Attr("epsilon", 0.0f)
      .Output("y", T_<float>({0, 0.5f, 1, 3}, {1, 2, 2}))
      .Run();
}

TEST(NormalizationTest, BatchNormOpset6SpatialZero) {
  // Per-activation parameters [C, D].
  OpTest("BatchNormalization", 6)
      .Attr("spatial", int64_t{0})
      .Attr("is_test", int64_t{1})
      .Attr("epsilon", 0.0f)
      .Input("x", T_<float>({1, 2, 3, 4}, {1, 2, 2}))
      .Input("s", T_<float>({1, 1, 1, 2}, {2, 2}))
      .Input("b", T_<float>({0, 0, 0, 0}, {2, 2}))
      .Input("m", T_<float>({1, 0, 0, 0}, {2, 2}))
      .Input("v", T_<float>({1, 1, 1, 1}, {2, 2}))
      .Output("y", T_<float>({0, 2, 3, 8}, {1, 2, 2}))
      .Run();
}

TEST(NormalizationTest, BatchNormMixedTypes) {
  OpTest("BatchNormalization", 15)
      .Attr("epsilon", 0.0f)
      .Input("x", T_<double>({1, 2}, {2, 1}))
      .Input("s", T_<float>({2}, {1}))
      .Input("b", T_<float>({1}, {1}))
      .Input("m", T_<float>({1}, {1}))
      .Input("v", T_<float>({1}, {1}))
      .Output("y", T_<double>({1, 3}, {2, 1}))
      .Run();
}

TEST(NormalizationTest, BatchNormBadScaleFails) {
  OpTest("BatchNormalization", 15)
      .Input("x", T_<float>({1, 2, 3, 4}, {1, 2, 2}))
      .Input("s", T_<float>({1, 2, 3}, {3}))
      .Input("b", T_<float>({0, 1}, {2}))
      .Input("m", T_<float>({1, 3}, {2}))
      .Input("v", T_<float>({4, 1}, {2}))
      .Output("y", T_<float>({0, 0, 0, 0}, {1, 2, 2}))
      .ExpectFailure("scale");
}

TEST(NormalizationTest, LayerNormBroadcastScaleNoBias) {
  // axis -1 over [2, 2]; scale of shape [1] broadcasts.
  float inv = 1.0f / std::sqrt(1.0f + 1e-5f);
  OpTest("LayerNormalization", 17)
      .Input("x", T_<float>({1, 3, 2, 6}, {2, 2}))
      .Input("w", T_<float>({2}, {1}))
      .Output("y", T_<float>({-2 * inv, 2 * inv, -1 / std::sqrt(4.0f + 1e-5f) * 4, 1 / std::sqrt(4.0f + 1e-5f) * 4},
                             {2, 2}))
      .Run();
}

TEST(NormalizationTest, LayerNormNegativeAxisBadFails) {
  OpTest("LayerNormalization", 17)
      .Attr("axis", int64_t{-3})
      .Input("x", T_<float>({1, 3, 2, 6}, {2, 2}))
      .Input("w", T_<float>({2}, {1}))
      .Output("y", T_<float>({0, 0, 0, 0}, {2, 2}))
      .ExpectFailure("axis");
}

TEST(NormalizationTest, InstanceNorm) {
  OpTest("InstanceNormalization", 6)
      .Input("x", T_<float>({1, 3, 5, 5}, {1, 2, 2}))
      .Input("s", T_<float>({1, 1}, {2}))
      .Input("b", T_<float>({0, 7}, {2}))
      .Output("y", T_<float>({-1, 1, 7, 7}, {1, 2, 2}))
      .Run();
}

TEST(NormalizationTest, GroupNormOpset18PerGroupScale) {
  OpTest("GroupNormalization", 18)
      .Attr("num_groups", int64_t{1})
      .Attr("epsilon", 0.0f)
      .Input("x", T_<float>({1, 3}, {1, 2, 1}))
      .Input("s", T_<float>({2}, {1}))
      .Input("b", T_<float>({1}, {1}))
      .Output("y", T_<float>({-1, 3}, {1, 2, 1}))
      .Run();
}

TEST(NormalizationTest, GroupNormIndivisibleFails) {
  OpTest("GroupNormalization", 21)
      .Attr("num_groups", int64_t{2})
      .Input("x", T_<float>({1, 3, 4}, {1, 3, 1}))
      .Input("s", T_<float>({1, 1, 1}, {3}))
      .Input("b", T_<float>({0, 0, 0}, {3}))
      .Output("y", T_<float>({0, 0, 0}, {1, 3, 1}))
      .ExpectFailure("divisible");
}

TEST(NormalizationTest, LpNormalizationAxis0) {
  OpTest("LpNormalization", 1)
      .Attr("axis", int64_t{0})
      .Attr("p", int64_t{1})
      .Input("x", T_<float>({1, 0, 3, 0}, {2, 2}))
      .Output("y", T_<float>({0.25f, 0, 0.75f, 0}, {2, 2}))
      .Run();
}

TEST(NormalizationTest, MeanVarianceNormalizationCustomAxes) {
  OpTest("MeanVarianceNormalization", 13)
      .Attr("axes", std::vector<int64_t>{-1})
      .Input("x", T_<float>({1, 3, 2, 2}, {2, 2}))
      .Output("y", T_<float>({-1, 1, 0, 0}, {2, 2}))
      .Tolerance(1e-5, 1e-6)
      .Run();
}

TEST(NormalizationTest, LRNSize1) {
  // size 1: y = x / (bias + alpha * x^2)^beta
  OpTest("LRN", 13)
      .Attr("size", int64_t{1})
      .Attr("alpha", 1.0f)
      .Attr("beta", 1.0f)
      .Attr("bias", 1.0f)
      .Input("x", T_<float>({1, 2}, {1, 2, 1, 1}))
      .Output("y", T_<float>({0.5f, 0.4f}, {1, 2, 1, 1}))
      .Run();
}

TEST(NormalizationTest, RMSNormalization) {
  OpTest("RMSNormalization", 23)
      .Attr("epsilon", 0.0f)
      .Input("x", T_<float>({3, 4}, {1, 2}))
      .Input("s", T_<float>({1, 2}, {2}))
      .Output("y", T_<float>({3 / std::sqrt(12.5f), 8 / std::sqrt(12.5f)}, {1, 2}))
      .Run();
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

TEST(NormalizationTest, LayerNormMeanAndInvStdOutputs) {
  OpTest("LayerNormalization", 17)
      .Attr("epsilon", 0.0f)
      .Input("x", T_<float>({1, 3, 2, 6}, {2, 2}))
      .Input("w", T_<float>({1, 1}, {2}))
      .Input("b", T_<float>({0, 0}, {2}))
      .Output("y", T_<float>({-1, 1, -1, 1}, {2, 2}))
      .Output("mean", T_<float>({2, 4}, {2, 1}))
      .Output("inv", T_<float>({1, 0.5f}, {2, 1}))
      .Run();
}

TEST(NormalizationTest, BatchNormTrainingOutputs) {
  // x per channel: [1, 3] -> mean 2, var 1; running = 0.9 * input + 0.1 * batch.
  OpTest("BatchNormalization", 15)
      .Attr("training_mode", int64_t{1})
      .Attr("epsilon", 0.0f)
      .Input("x", T_<float>({1, 3}, {2, 1}))
      .Input("s", T_<float>({1}, {1}))
      .Input("b", T_<float>({0}, {1}))
      .Input("m", T_<float>({0}, {1}))
      .Input("v", T_<float>({1}, {1}))
      .Output("y", T_<float>({-1, 1}, {2, 1}))
      .Output("rm", T_<float>({0.2f}, {1}))
      .Output("rv", T_<float>({1.0f}, {1}))
      .Run();
}

TEST(NormalizationTest, LRNZeroSizeFails) {
  OpTest("LRN", 13)
      .Attr("size", int64_t{0})
      .Input("x", T_<float>({1, 2}, {1, 2, 1, 1}))
      .Output("y", T_<float>({0, 0}, {1, 2, 1, 1}))
      .ExpectFailure("size");
}

}  // namespace
}  // namespace tessera::test
