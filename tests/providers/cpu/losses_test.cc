#include <cmath>

#include "support/op_test.h"

namespace tessera::test {
namespace {

TEST(LossesTest, NllNoneReduction) {
  OpTest("NegativeLogLikelihoodLoss", 13)
      .Attr("reduction", std::string("none"))
      .Input("input", T_<float>({1, 2, 2, 2, 3, 2, 0, 1, 2, 2, 1, 2}, {2, 3, 2}))
      .Input("target", T_<int64_t>({2, 1, 0, 2}, {2, 2}))
      .Output("loss", T_<float>({-3, -2, -0, -2}, {2, 2}))
      .Run();
}

TEST(LossesTest, NllWeightedMean) {
  OpTest("NegativeLogLikelihoodLoss", 13)
      .Input("input", T_<float>({1, 2, 2, 2, 3, 2, 0, 1, 2, 2, 1, 2}, {2, 3, 2}))
      .Input("target", T_<int64_t>({2, 1, 0, 2}, {2, 2}))
      .Input("weight", T_<float>({0.2f, 0.3f, 0.1f}, {3}))
      .Output("loss", T_<float>({-1.1f / 0.7f}, {}))
      .Run();
}

TEST(LossesTest, NllIgnoreIndexMean) {
  // The ignored sample contributes neither loss nor weight.
  OpTest("NegativeLogLikelihoodLoss", 13)
      .Attr("ignore_index", int64_t{-1})
      .Input("input", T_<float>({-1, -2, -3, -4}, {2, 2}))
      .Input("target", T_<int32_t>({1, -1}, {2}))
      .Output("loss", T_<float>({2}, {}))
      .Run();
}

TEST(LossesTest, NllTargetOutOfRangeFails) {
  OpTest("NegativeLogLikelihoodLoss", 13)
      .Input("input", T_<float>({-1, -2, -3, -4}, {2, 2}))
      .Input("target", T_<int64_t>({1, 5}, {2}))
      .Output("loss", T_<float>({0}, {}))
      .ExpectFailure("out of range");
}

TEST(LossesTest, NllShapeMismatchFails) {
  OpTest("NegativeLogLikelihoodLoss", 13)
      .Input("input", T_<float>({-1, -2, -3, -4}, {2, 2}))
      .Input("target", T_<int64_t>({1, 0, 0}, {3}))
      .Output("loss", T_<float>({0}, {}))
      .ExpectFailure("target shape");
}

TEST(LossesTest, SoftmaxCrossEntropySumWithLogProb) {
  float l = std::log(2.f);
  OpTest("SoftmaxCrossEntropyLoss", 13)
      .Attr("reduction", std::string("sum"))
      .Input("scores", T_<float>({3, 3, 0, 0}, {2, 2}))
      .Input("labels", T_<int64_t>({0, 1}, {2}))
      .Output("loss", T_<float>({2 * l}, {}))
      .Output("log_prob", T_<float>({-l, -l, -l, -l}, {2, 2}))
      .Run();
}

TEST(LossesTest, SoftmaxCrossEntropyNdNone) {
  // N=1, C=2, d1=2: class axis is dim 1.
  float a = std::log1p(std::exp(-2.f));  // -log(softmax) of the larger score
  OpTest("SoftmaxCrossEntropyLoss", 13)
      .Attr("reduction", std::string("none"))
      .Input("scores", T_<float>({2, 0, 0, 2}, {1, 2, 2}))
      .Input("labels", T_<int64_t>({0, 1}, {1, 2}))
      .Output("loss", T_<float>({a, a}, {1, 2}))
      .Run();
}

}  // namespace
}  // namespace tessera::test
