#include <cmath>
#include <limits>
#include <string>

#include "support/op_test.h"

namespace tessera::test {
namespace {

using S = std::string;
using I = std::vector<int64_t>;
using F = std::vector<float>;
using Strs = std::vector<std::string>;
const char* kMl = "ai.onnx.ml";
const float kNaN = std::numeric_limits<float>::quiet_NaN();

// Two stumps: tree 0 splits x0 <= 0.5 (leaves 1.0 / 2.0), tree 1 splits x1 > 1
// (leaves 10 / 20).
OpTest TwoTreeRegressor(const S& aggregate) {
  OpTest t("TreeEnsembleRegressor", 3, kMl);
  t.Attr("n_targets", int64_t{1})
      .Attr("aggregate_function", aggregate)
      .Attr("nodes_treeids", I{0, 0, 0, 1, 1, 1})
      .Attr("nodes_nodeids", I{0, 1, 2, 0, 1, 2})
      .Attr("nodes_featureids", I{0, 0, 0, 1, 0, 0})
      .Attr("nodes_modes", Strs{"BRANCH_LEQ", "LEAF", "LEAF", "BRANCH_GT", "LEAF", "LEAF"})
      .Attr("nodes_values", F{0.5f, 0, 0, 1.0f, 0, 0})
      .Attr("nodes_truenodeids", I{1, 0, 0, 1, 0, 0})
      .Attr("nodes_falsenodeids", I{2, 0, 0, 2, 0, 0})
      .Attr("nodes_missing_value_tracks_true", I{1, 0, 0, 0, 0, 0})
      .Attr("target_treeids", I{0, 0, 1, 1})
      .Attr("target_nodeids", I{1, 2, 1, 2})
      .Attr("target_ids", I{0, 0, 0, 0})
      .Attr("target_weights", F{1.0f, 2.0f, 10.0f, 20.0f})
      .Attr("base_values", F{100.0f});
  return t;
}

TEST(MlTest, TreeRegressorSum) {
  TwoTreeRegressor("SUM")
      .Input("x", T_<float>({0, 2, 1, 0, kNaN, 5}, {3, 2}))
      .Output("y", T_<float>({111, 122, 111}, {3, 1}))
      .Run();
}

TEST(MlTest, TreeRegressorAverageMinMax) {
  TwoTreeRegressor("AVERAGE")
      .Input("x", T_<double>({0, 2, 1, 0}, {2, 2}))
      .Output("y", T_<float>({105.5f, 111.0f}, {2, 1}))
      .Run();
  TwoTreeRegressor("MIN").Input("x", T_<int64_t>({0, 2, 1, 0}, {2, 2})).Output("y", T_<float>({101, 102}, {2, 1})).Run();
  TwoTreeRegressor("MAX").Input("x", T_<int32_t>({0, 2, 1, 0}, {2, 2})).Output("y", T_<float>({110, 120}, {2, 1})).Run();
}

TEST(MlTest, TreeRegressorTooFewFeaturesFails) {
  TwoTreeRegressor("SUM").Input("x", T_<float>({0, 1}, {2, 1})).Output("y", T_<float>({0, 0}, {2, 1})).ExpectFailure("feature");
}

TEST(MlTest, TreeRegressorMissingChildFails) {
  OpTest("TreeEnsembleRegressor", 3, kMl)
      .Attr("nodes_treeids", I{0, 0})
      .Attr("nodes_nodeids", I{0, 1})
      .Attr("nodes_featureids", I{0, 0})
      .Attr("nodes_modes", Strs{"BRANCH_LEQ", "LEAF"})
      .Attr("nodes_values", F{0, 0})
      .Attr("nodes_truenodeids", I{1, 0})
      .Attr("nodes_falsenodeids", I{7, 0})
      .Attr("target_treeids", I{0})
      .Attr("target_nodeids", I{1})
      .Attr("target_ids", I{0})
      .Attr("target_weights", F{1})
      .Input("x", T_<float>({0}, {1, 1}))
      .Output("y", T_<float>({0}, {1, 1}))
      .ExpectFailure("child");
}

// One tree: x0 <= 0 -> leaf votes {c0: 0.7, c1: 0.3}, else {c2: 0.9, c1: 0.1}.
TEST(MlTest, TreeClassifierMulticlass) {
  OpTest("TreeEnsembleClassifier", 1, kMl)
      .Attr("classlabels_int64s", I{10, 20, 30})
      .Attr("nodes_treeids", I{0, 0, 0})
      .Attr("nodes_nodeids", I{0, 1, 2})
      .Attr("nodes_featureids", I{0, 0, 0})
      .Attr("nodes_modes", Strs{"BRANCH_LEQ", "LEAF", "LEAF"})
      .Attr("nodes_values", F{0, 0, 0})
      .Attr("nodes_truenodeids", I{1, 0, 0})
      .Attr("nodes_falsenodeids", I{2, 0, 0})
      .Attr("class_treeids", I{0, 0, 0, 0})
      .Attr("class_nodeids", I{1, 1, 2, 2})
      .Attr("class_ids", I{0, 1, 2, 1})
      .Attr("class_weights", F{0.7f, 0.3f, 0.9f, 0.1f})
      .Input("x", T_<float>({-1, 1}, {2, 1}))
      .Output("y", T_<int64_t>({10, 30}, {2}))
      .Output("z", T_<float>({0.7f, 0.3f, 0, 0, 0.1f, 0.9f}, {2, 3}))
      .Run();
}

TEST(MlTest, TreeClassifierBinarySingleClassVotes) {
  OpTest("TreeEnsembleClassifier", 3, kMl)
      .Attr("classlabels_strings", Strs{"no", "yes"})
      .Attr("nodes_treeids", I{0, 0, 0})
      .Attr("nodes_nodeids", I{0, 1, 2})
      .Attr("nodes_featureids", I{0, 0, 0})
      .Attr("nodes_modes", Strs{"BRANCH_LT", "LEAF", "LEAF"})
      .Attr("nodes_values", F{0, 0, 0})
      .Attr("nodes_truenodeids", I{1, 0, 0})
      .Attr("nodes_falsenodeids", I{2, 0, 0})
      .Attr("class_treeids", I{0, 0})
      .Attr("class_nodeids", I{1, 2})
      .Attr("class_ids", I{0, 0})
      .Attr("class_weights", F{0.2f, 0.8f})
      .Input("x", T_<float>({-1, 1}, {2, 1}))
      .Output("y", T_<S>({"no", "yes"}, {2}))
      .Output("z", T_<float>({0.8f, 0.2f, 0.2f, 0.8f}, {2, 2}))
      .Run();
}

TEST(MlTest, TreeClassifierBinaryWithOneBaseValue) {
  // LightGBM's binary form: votes for class 0 only, one base value (0.5):
  // s = -1 + 0.5 or 2 + 0.5; scores [sigmoid(-s), sigmoid(s)] (ORT agrees).
  float a = 1.0f / (1.0f + std::exp(-0.5f)), b = 1.0f / (1.0f + std::exp(-2.5f));
  auto test = [](std::vector<float> base) {
    OpTest t("TreeEnsembleClassifier", 3, kMl);
    t.Attr("classlabels_int64s", I{0, 1})
        .Attr("post_transform", S("LOGISTIC"))
        .Attr("base_values", F(base))
        .Attr("nodes_treeids", I{0, 0, 0})
        .Attr("nodes_nodeids", I{0, 1, 2})
        .Attr("nodes_featureids", I{0, 0, 0})
        .Attr("nodes_modes", Strs{"BRANCH_LT", "LEAF", "LEAF"})
        .Attr("nodes_values", F{0, 0, 0})
        .Attr("nodes_truenodeids", I{1, 0, 0})
        .Attr("nodes_falsenodeids", I{2, 0, 0})
        .Attr("class_treeids", I{0, 0})
        .Attr("class_nodeids", I{1, 2})
        .Attr("class_ids", I{0, 0})
        .Attr("class_weights", F{-1.0f, 2.0f})
        .Input("x", T_<float>({-1, 1}, {2, 1}));
    return t;
  };
  test({0.5f})
      .Output("y", T_<int64_t>({0, 1}, {2}))
      .Output("z", T_<float>({a, 1 - a, 1 - b, b}, {2, 2}))
      .Run();
  test({0.5f, 0.1f, 0.2f}).Output("y", T_<int64_t>({0, 1}, {2})).ExpectFailure("base_values has 3 entries");
}

TEST(MlTest, TreeClassifierLogisticBinary) {
  // s = -1 (x < 0) or 2; scores [sigmoid(-s), sigmoid(s)].
  float a = 1.0f / (1.0f + std::exp(-1.0f)), b = 1.0f / (1.0f + std::exp(-2.0f));
  OpTest("TreeEnsembleClassifier", 3, kMl)
      .Attr("classlabels_int64s", I{0, 1})
      .Attr("post_transform", S("LOGISTIC"))
      .Attr("nodes_treeids", I{0, 0, 0})
      .Attr("nodes_nodeids", I{0, 1, 2})
      .Attr("nodes_featureids", I{0, 0, 0})
      .Attr("nodes_modes", Strs{"BRANCH_LT", "LEAF", "LEAF"})
      .Attr("nodes_values", F{0, 0, 0})
      .Attr("nodes_truenodeids", I{1, 0, 0})
      .Attr("nodes_falsenodeids", I{2, 0, 0})
      .Attr("class_treeids", I{0, 0})
      .Attr("class_nodeids", I{1, 2})
      .Attr("class_ids", I{1, 1})
      .Attr("class_weights", F{-1.0f, 2.0f})
      .Input("x", T_<float>({-1, 1}, {2, 1}))
      .Output("y", T_<int64_t>({0, 1}, {2}))
      .Output("z", T_<float>({a, 1 - a, 1 - b, b}, {2, 2}))
      .Run();
}

TEST(MlTest, TreeEnsembleV5AverageSoftmax) {
  // Two single-split trees over x0 (x <= 1) and x1 (x == 3), two targets.
  auto modes = T_<uint8_t>({0, 4}, {2});
  auto splits = T_<double>({1.0, 3.0}, {2});
  auto weights = T_<double>({2.0, 4.0, 6.0, 0.0}, {4});
  // Row [0, 3]: tree0 -> leaf0 (t0 += 2), tree1 -> leaf2 (t1 += 6): avg [1, 3] -> softmax.
  double s0 = 1.0 / (1.0 + std::exp(2.0)), s1 = 1.0 - s0;
  // Row [2, 0]: tree0 -> leaf1 (t1 += 4), tree1 -> leaf3 (t0 += 0): avg [0, 2].
  double r0 = 1.0 / (1.0 + std::exp(2.0)), r1 = 1.0 - r0;
  OpTest("TreeEnsemble", 5, kMl)
      .Attr("n_targets", int64_t{2})
      .Attr("aggregate_function", int64_t{0})
      .Attr("post_transform", int64_t{1})
      .Attr("nodes_featureids", I{0, 1})
      .Attr("nodes_modes", modes)
      .Attr("nodes_splits", splits)
      .Attr("nodes_truenodeids", I{0, 2})
      .Attr("nodes_trueleafs", I{1, 1})
      .Attr("nodes_falsenodeids", I{1, 3})
      .Attr("nodes_falseleafs", I{1, 1})
      .Attr("tree_roots", I{0, 1})
      .Attr("leaf_targetids", I{0, 1, 1, 0})
      .Attr("leaf_weights", weights)
      .Input("x", T_<double>({0, 3, 2, 0}, {2, 2}))
      .Output("y", T_<double>({s0, s1, r0, r1}, {2, 2}))
      .Run();
}

TEST(MlTest, TreeEnsembleV5BadRootFails) {
  OpTest("TreeEnsemble", 5, kMl)
      .Attr("nodes_featureids", I{0})
      .Attr("nodes_modes", T_<uint8_t>({0}, {1}))
      .Attr("nodes_splits", T_<float>({1}, {1}))
      .Attr("nodes_truenodeids", I{0})
      .Attr("nodes_trueleafs", I{1})
      .Attr("nodes_falsenodeids", I{0})
      .Attr("nodes_falseleafs", I{1})
      .Attr("tree_roots", I{3})
      .Attr("leaf_targetids", I{0})
      .Attr("leaf_weights", T_<float>({1}, {1}))
      .Input("x", T_<float>({0}, {1, 1}))
      .Output("y", T_<float>({0}, {1, 1}))
      .ExpectFailure("tree_roots");
}

TEST(MlTest, LinearClassifierSoftmax) {
  // raw = [1, 2, 2.5] for x = [1, 2].
  double e1 = std::exp(1.0), e2 = std::exp(2.0), e3 = std::exp(2.5), sum = e1 + e2 + e3;
  OpTest("LinearClassifier", 1, kMl)
      .Attr("classlabels_ints", I{7, 8, 9})
      .Attr("coefficients", F{1, 0, 0, 1, 1, 1})
      .Attr("intercepts", F{0, 0, -0.5f})
      .Attr("post_transform", S("SOFTMAX"))
      .Input("x", T_<float>({1, 2}, {1, 2}))
      .Output("y", T_<int64_t>({9}, {1}))
      .Output("z", T_<float>({float(e1 / sum), float(e2 / sum), float(e3 / sum)}, {1, 3}))
      .Run();
}

TEST(MlTest, LinearClassifierBinarySingleRow) {
  OpTest("LinearClassifier", 1, kMl)
      .Attr("classlabels_strings", Strs{"neg", "pos"})
      .Attr("coefficients", F{2, -1})
      .Attr("intercepts", F{0.5f})
      .Input("x", T_<int64_t>({1, 1, 0, 3}, {2, 2}))
      .Output("y", T_<S>({"pos", "neg"}, {2}))
      .Output("z", T_<float>({-1.5f, 1.5f, 2.5f, -2.5f}, {2, 2}))
      .Run();
}

TEST(MlTest, LinearClassifierFeatureMismatchFails) {
  OpTest("LinearClassifier", 1, kMl)
      .Attr("classlabels_ints", I{0, 1, 2})
      .Attr("coefficients", F{1, 0, 0, 1, 1, 1})
      .Input("x", T_<float>({1, 2, 3}, {1, 3}))
      .Output("y", T_<int64_t>({0}, {1}))
      .Output("z", T_<float>({0, 0, 0}, {1, 3}))
      .ExpectFailure("coefficients");
}

TEST(MlTest, LinearRegressorTwoTargets) {
  OpTest("LinearRegressor", 1, kMl)
      .Attr("coefficients", F{1, 2, 3, 4})
      .Attr("intercepts", F{1, -1})
      .Attr("targets", int64_t{2})
      .Input("x", T_<double>({1, 1, 2, 0}, {2, 2}))
      .Output("y", T_<float>({4, 6, 3, 5}, {2, 2}))
      .Run();
}

TEST(MlTest, SVMRegressorRbf) {
  float k = std::exp(-1.0f);
  OpTest("SVMRegressor", 1, kMl)
      .Attr("kernel_type", S("RBF"))
      .Attr("kernel_params", F{0.5f, 0, 0})
      .Attr("n_supports", int64_t{2})
      .Attr("support_vectors", F{0, 0, 1, 1})
      .Attr("coefficients", F{1, -1})
      .Attr("rho", F{0.5f})
      .Input("x", T_<float>({0, 0, 1, 0}, {2, 2}))
      .Output("y", T_<float>({1 - k + 0.5f, 0.5f}, {2, 1}))
      .Run();
}

TEST(MlTest, SVMRegressorOneClassPoly) {
  // (gamma * dot + coef0)^degree with gamma 1, coef0 1, degree 2: x=[1]: (1+1)^2 = 4.
  OpTest("SVMRegressor", 1, kMl)
      .Attr("kernel_type", S("POLY"))
      .Attr("kernel_params", F{1, 1, 2})
      .Attr("n_supports", int64_t{1})
      .Attr("one_class", int64_t{1})
      .Attr("support_vectors", F{1})
      .Attr("coefficients", F{1})
      .Attr("rho", F{-5})
      .Input("x", T_<float>({1, 2}, {2, 1}))
      .Output("y", T_<float>({-1, 1}, {2, 1}))
      .Run();
}

TEST(MlTest, SVMClassifierRbfBinary) {
  float d = 1 - std::exp(-1.0f);
  OpTest("SVMClassifier", 1, kMl)
      .Attr("classlabels_ints", I{0, 1})
      .Attr("kernel_type", S("RBF"))
      .Attr("kernel_params", F{0.5f, 0, 0})
      .Attr("vectors_per_class", I{1, 1})
      .Attr("support_vectors", F{0, 0, 1, 1})
      .Attr("coefficients", F{1, -1})
      .Attr("rho", F{0})
      .Input("x", T_<float>({0, 0, 1, 1}, {2, 2}))
      .Output("y", T_<int64_t>({0, 1}, {2}))
      .Output("z", T_<float>({-d, d, d, -d}, {2, 2}))
      .Run();
}

TEST(MlTest, SVMClassifierThreeClassVotes) {
  // Linear kernel, one support vector per class at x = 0, 1, 2 (1-D); every
  // pairwise decision d(i,j) = coef * K + rho; pick rho so class 2 wins.
  OpTest("SVMClassifier", 1, kMl)
      .Attr("classlabels_strings", Strs{"a", "b", "c"})
      .Attr("vectors_per_class", I{1, 1, 1})
      .Attr("support_vectors", F{0, 1, 2})
      .Attr("coefficients", F{0, 0, 0, 0, 0, 0})
      .Attr("rho", F{1, -1, -1})
      .Input("x", T_<float>({5}, {1, 1}))
      .Output("y", T_<S>({"c"}, {1}))
      .Output("z", T_<float>({1, -1, -1}, {1, 3}))
      .Run();
}

TEST(MlTest, SVMClassifierLinearNoSupportVectors) {
  OpTest("SVMClassifier", 1, kMl)
      .Attr("classlabels_strings", Strs{"a", "b"})
      .Attr("coefficients", F{1, 0, 0, 1})
      .Attr("rho", F{0})
      .Input("x", T_<float>({3, 1}, {1, 2}))
      .Output("y", T_<S>({"a"}, {1}))
      .Output("z", T_<float>({3, 1}, {1, 2}))
      .Run();
}

TEST(MlTest, ScalerPerFeature) {
  OpTest("Scaler", 1, kMl)
      .Attr("offset", F{1, 2})
      .Attr("scale", F{2, 0.5f})
      .Input("x", T_<int64_t>({1, 2, 3, 6}, {2, 2}))
      .Output("y", T_<float>({0, 0, 4, 2}, {2, 2}))
      .Run();
}

TEST(MlTest, NormalizerModes) {
  OpTest("Normalizer", 1, kMl).Attr("norm", S("L2")).Input("x", T_<float>({3, 4, 0, 0}, {2, 2})).Output("y", T_<float>({0.6f, 0.8f, 0, 0}, {2, 2})).Run();
  OpTest("Normalizer", 1, kMl).Attr("norm", S("L1")).Input("x", T_<double>({1, -3}, {2})).Output("y", T_<float>({0.25f, -0.75f}, {2})).Run();
  OpTest("Normalizer", 1, kMl).Attr("norm", S("MAX")).Input("x", T_<int32_t>({1, 2}, {1, 2})).Output("y", T_<float>({0.5f, 1}, {1, 2})).Run();
}

TEST(MlTest, ImputerNaNPerFeature) {
  OpTest("Imputer", 1, kMl)
      .Attr("imputed_value_floats", F{10, 20})
      .Attr("replaced_value_float", kNaN)
      .Input("x", T_<float>({kNaN, 1, 2, kNaN}, {2, 2}))
      .Output("y", T_<float>({10, 1, 2, 20}, {2, 2}))
      .Run();
}

TEST(MlTest, ImputerInt) {
  OpTest("Imputer", 1, kMl)
      .Attr("imputed_value_int64s", I{7})
      .Attr("replaced_value_int64", int64_t{-1})
      .Input("x", T_<int32_t>({-1, 3, -1}, {3}))
      .Output("y", T_<int32_t>({7, 3, 7}, {3}))
      .Run();
}

TEST(MlTest, OneHotEncoderInts) {
  OpTest("OneHotEncoder", 1, kMl)
      .Attr("cats_int64s", I{1, 3, 5})
      .Input("x", T_<int64_t>({3, 4}, {2}))
      .Output("y", T_<float>({0, 1, 0, 0, 0, 0}, {2, 3}))
      .Run();
  OpTest("OneHotEncoder", 1, kMl)
      .Attr("cats_strings", Strs{"a", "b"})
      .Input("x", T_<S>({"b", "a"}, {1, 2}))
      .Output("y", T_<float>({0, 1, 1, 0}, {1, 2, 2}))
      .Run();
}

TEST(MlTest, OneHotEncoderUnknownFailsWithoutZeros) {
  OpTest("OneHotEncoder", 1, kMl)
      .Attr("cats_int64s", I{1, 3, 5})
      .Attr("zeros", int64_t{0})
      .Input("x", T_<double>({3, 4}, {2}))
      .Output("y", T_<float>({0, 1, 0, 0, 0, 0}, {2, 3}))
      .ExpectFailure("not one of the categories");
}

TEST(MlTest, BinarizerInt) {
  OpTest("Binarizer", 1, kMl)
      .Attr("threshold", 2.0f)
      .Input("x", T_<int32_t>({1, 2, 3}, {3}))
      .Output("y", T_<int32_t>({0, 0, 1}, {3}))
      .Run();
}

TEST(MlTest, ArrayFeatureExtractorStringsAndRange) {
  OpTest("ArrayFeatureExtractor", 1, kMl)
      .Input("x", T_<S>({"a", "b", "c"}, {3}))
      .Input("y", T_<int64_t>({2, 0}, {2}))
      .Output("z", T_<S>({"c", "a"}, {1, 2}))
      .Run();
  OpTest("ArrayFeatureExtractor", 1, kMl)
      .Input("x", T_<float>({1, 2}, {2}))
      .Input("y", T_<int64_t>({2}, {1}))
      .Output("z", T_<float>({0}, {1, 1}))
      .ExpectFailure("out of range");
}

TEST(MlTest, CategoryMapperBothWays) {
  OpTest("CategoryMapper", 1, kMl)
      .Attr("cats_int64s", I{1, 2})
      .Attr("cats_strings", Strs{"one", "two"})
      .Attr("default_int64", int64_t{-7})
      .Input("x", T_<S>({"two", "three"}, {2}))
      .Output("y", T_<int64_t>({2, -7}, {2}))
      .Run();
  OpTest("CategoryMapper", 1, kMl)
      .Attr("cats_int64s", I{1, 2})
      .Attr("cats_strings", Strs{"one", "two"})
      .Input("x", T_<int64_t>({1, 5}, {1, 2}))
      .Output("y", T_<S>({"one", "_Unused"}, {1, 2}))
      .Run();
}

TEST(MlTest, FeatureVectorizerPadsAndTruncates) {
  OpTest("FeatureVectorizer", 1, kMl)
      .Attr("inputdimensions", I{1, 3})
      .Input("a", T_<int64_t>({1, 2, 3, 4}, {2, 2}))
      .Input("b", T_<float>({5, 6}, {2, 1}))
      .Output("y", T_<float>({1, 5, 0, 0, 3, 6, 0, 0}, {2, 4}))
      .Run();
}

TEST(MlTest, LabelEncoderV1) {
  OpTest("LabelEncoder", 1, kMl)
      .Attr("classes_strings", Strs{"x", "y"})
      .Attr("default_int64", int64_t{-3})
      .Input("x", T_<S>({"y", "z"}, {2}))
      .Output("y", T_<int64_t>({1, -3}, {2}))
      .Run();
}

TEST(MlTest, LabelEncoderFloatKeysWithNaN) {
  OpTest("LabelEncoder", 4, kMl)
      .Attr("keys_floats", F{1.5f, kNaN})
      .Attr("values_strings", Strs{"a", "nan"})
      .Attr("default_string", S("?"))
      .Input("x", T_<float>({kNaN, 1.5f, 2.0f}, {3}))
      .Output("y", T_<S>({"nan", "a", "?"}, {3}))
      .Run();
}

TEST(MlTest, LabelEncoderTypeMismatchFails) {
  OpTest("LabelEncoder", 2, kMl)
      .Attr("keys_int64s", I{1})
      .Attr("values_floats", F{1})
      .Input("x", T_<S>({"a"}, {1}))
      .Output("y", T_<float>({0}, {1}))
      .ExpectFailure("keys");
}

TEST(MlTest, DictVectorizerStringKeys) {
  MapValue m;
  m.key_type = DataType::kString;
  m.string_keys = {"b", "a", "zz"};
  m.values = std::make_shared<Value>(T_<float>({2, 1, 9}, {3}));
  OpTest("DictVectorizer", 1, kMl)
      .Attr("string_vocabulary", Strs{"a", "c", "b"})
      .Input("x", Value::Map(m))
      .Output("y", T_<float>({1, 0, 2}, {1, 3}))
      .Run();
}

TEST(MlTest, ZipMapStringLabels) {
  MapValue m0, m1;
  m0.key_type = m1.key_type = DataType::kString;
  m0.string_keys = m1.string_keys = {"x", "y"};
  m0.values = std::make_shared<Value>(T_<float>({0.2f, 0.8f}, {2}));
  m1.values = std::make_shared<Value>(T_<float>({0.6f, 0.4f}, {2}));
  SequenceValue seq;
  seq.items = {Value::Map(m0), Value::Map(m1)};
  OpTest("ZipMap", 1, kMl)
      .Attr("classlabels_strings", Strs{"x", "y"})
      .Input("x", T_<float>({0.2f, 0.8f, 0.6f, 0.4f}, {2, 2}))
      .Output("z", Value::Sequence(seq))
      .Run();
}

TEST(MlTest, CastMapDenseAndSparse) {
  MapValue m;
  m.key_type = DataType::kInt64;
  m.int_keys = {3, 1};
  m.values = std::make_shared<Value>(T_<float>({3.5f, 1.25f}, {2}));
  OpTest("CastMap", 1, kMl).Input("x", Value::Map(m)).Output("y", T_<float>({1.25f, 3.5f}, {1, 2})).Run();
  OpTest("CastMap", 1, kMl)
      .Attr("cast_to", S("TO_INT64"))
      .Attr("map_form", S("SPARSE"))
      .Attr("max_map", int64_t{5})
      .Input("x", Value::Map(m))
      .Output("y", T_<int64_t>({0, 1, 0, 3, 0}, {1, 5}))
      .Run();
}

}  // namespace
}  // namespace tessera::test
