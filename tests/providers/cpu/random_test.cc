// RandomNormal/Uniform(+Like), Multinomial, Bernoulli: values are random, so
// these check shapes, types, ranges, statistics and seed determinism.
#include <cmath>
#include <limits>
#include <thread>

#include "support/op_test.h"
#include "tessera/api/providers.h"
#include "tessera/runtime/session.h"

namespace tessera::test {
namespace {

// Runs the op's model once per call (a fresh session each time when fresh is true).
class Runner {
 public:
  explicit Runner(const OpTest& t) : model_(t.BuildModel()) {
    session_ = std::make_unique<Session>(model_, SessionOptions{}, MakeProviders({"cpu"}));
  }
  Tensor Run(const Feeds& feeds = {}) const { return session_->Run(feeds)[0].tensor(); }

 private:
  Model model_;
  std::unique_ptr<Session> session_;
};

std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.GetAsDouble(i);
  return v;
}

TEST(RandomTest, UniformRangeShapeAndType) {
  OpTest t("RandomUniform", 22);
  t.Attr("shape", std::vector<int64_t>{4, 250}).Attr("low", -2.0f).Attr("high", 3.0f)
      .Attr("dtype", int64_t{11}).UncheckedOutput("y");
  Tensor y = Runner(t).Run();
  EXPECT_EQ(y.dtype(), DataType::kDouble);
  EXPECT_EQ(y.shape(), (Shape{4, 250}));
  double sum = 0;
  for (double v : AsDoubles(y)) {
    EXPECT_GE(v, -2.0);
    EXPECT_LT(v, 3.0);
    sum += v;
  }
  EXPECT_NEAR(sum / 1000, 0.5, 0.25);
}

TEST(RandomTest, NormalStatistics) {
  OpTest t("RandomNormal", 22);
  t.Attr("shape", std::vector<int64_t>{20000}).Attr("mean", 5.0f).Attr("scale", 2.0f).UncheckedOutput("y");
  Tensor y = Runner(t).Run();
  EXPECT_EQ(y.dtype(), DataType::kFloat);
  double sum = 0, sq = 0;
  for (double v : AsDoubles(y)) {
    sum += v;
    sq += v * v;
  }
  double mean = sum / 20000, var = sq / 20000 - mean * mean;
  EXPECT_NEAR(mean, 5.0, 0.1);
  EXPECT_NEAR(std::sqrt(var), 2.0, 0.1);
}

TEST(RandomTest, SeededIsDeterministicAcrossRunsAndThreads) {
  OpTest t("RandomNormal", 22);
  t.Attr("shape", std::vector<int64_t>{64}).Attr("seed", 7.0f).UncheckedOutput("y");
  Runner r(t);
  std::vector<double> first = AsDoubles(r.Run());
  EXPECT_EQ(AsDoubles(Runner(t).Run()), first);  // a new session, same seed
  std::vector<std::vector<double>> got(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) threads.emplace_back([&, i] { got[static_cast<size_t>(i)] = AsDoubles(r.Run()); });
  for (auto& th : threads) th.join();
  for (const auto& g : got) EXPECT_EQ(g, first);

  OpTest other("RandomNormal", 22);
  other.Attr("shape", std::vector<int64_t>{64}).Attr("seed", 8.0f).UncheckedOutput("y");
  EXPECT_NE(AsDoubles(Runner(other).Run()), first);
}

TEST(RandomTest, UnseededDiffersBetweenRuns) {
  OpTest t("RandomUniform", 22);
  t.Attr("shape", std::vector<int64_t>{64}).UncheckedOutput("y");
  Runner r(t);
  EXPECT_NE(AsDoubles(r.Run()), AsDoubles(r.Run()));
}

TEST(RandomTest, Float16AndBFloat16Outputs) {
  for (int64_t dt : {int64_t{10}, int64_t{16}}) {
    OpTest t("RandomUniform", 22);
    t.Attr("shape", std::vector<int64_t>{3, 2}).Attr("dtype", dt).Attr("low", 1.0f).Attr("high", 2.0f)
        .UncheckedOutput("y");
    Tensor y = Runner(t).Run();
    EXPECT_EQ(static_cast<int64_t>(y.dtype()), dt);
    for (double v : AsDoubles(y)) {
      EXPECT_GE(v, 1.0);
      EXPECT_LE(v, 2.0);
    }
  }
}

TEST(RandomTest, UniformLikeTakesShapeAndType) {
  OpTest t("RandomUniformLike", 22);
  t.Input("x", T_<double>({0, 0, 0, 0, 0, 0}, {2, 3})).UncheckedOutput("y");
  Tensor y = Runner(t).Run({{"x", T_<double>({0, 0, 0, 0, 0, 0}, {2, 3})}});
  EXPECT_EQ(y.dtype(), DataType::kDouble);
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
}

TEST(RandomTest, NormalLikeWithDtypeOnIntInput) {
  OpTest t("RandomNormalLike", 22);
  t.Attr("dtype", int64_t{1}).Input("x", T_<int32_t>({1, 2, 3}, {3})).UncheckedOutput("y");
  Tensor y = Runner(t).Run({{"x", T_<int32_t>({1, 2, 3}, {3})}});
  EXPECT_EQ(y.dtype(), DataType::kFloat);
  EXPECT_EQ(y.shape(), (Shape{3}));
}

TEST(RandomTest, LikeWithIntInputAndNoDtypeFails) {
  OpTest("RandomUniformLike", 22)
      .Input("x", T_<int32_t>({1, 2, 3}, {3}))
      .Output("y", T_<float>({0, 0, 0}, {3}))
      .ExpectFailure("not a float type");
}

TEST(RandomTest, BadDtypeFails) {
  OpTest("RandomNormal", 22)
      .Attr("shape", std::vector<int64_t>{2})
      .Attr("dtype", int64_t{7})
      .Output("y", T_<float>({0, 0}, {2}))
      .ExpectFailure("dtype must be");
}

TEST(RandomTest, NegativeShapeFails) {
  OpTest("RandomUniform", 22)
      .Attr("shape", std::vector<int64_t>{2, -1})
      .Output("y", T_<float>({0, 0}, {2}))
      .ExpectFailure("negative dimension");
}

TEST(RandomTest, EmptyShape) {
  OpTest t("RandomUniform", 22);
  t.Attr("shape", std::vector<int64_t>{0, 3}).UncheckedOutput("y");
  EXPECT_EQ(Runner(t).Run().numel(), 0);
}

TEST(RandomTest, MultinomialSkipsImpossibleClasses) {
  const float ninf = -std::numeric_limits<float>::infinity();
  OpTest t("Multinomial", 22);
  t.Attr("sample_size", int64_t{500}).Attr("dtype", int64_t{7}).Attr("seed", 3.0f)
      .Input("x", T_<float>({0, ninf, 0, ninf, ninf, 1}, {2, 3})).UncheckedOutput("y");
  Tensor y = Runner(t).Run({{"x", T_<float>({0, ninf, 0, ninf, ninf, 1}, {2, 3})}});
  EXPECT_EQ(y.dtype(), DataType::kInt64);
  EXPECT_EQ(y.shape(), (Shape{2, 500}));
  int zeros = 0;
  for (int64_t i = 0; i < 500; ++i) {
    int64_t a = y.data<int64_t>()[i], b = y.data<int64_t>()[500 + i];
    EXPECT_TRUE(a == 0 || a == 2) << a;
    EXPECT_EQ(b, 2);
    zeros += a == 0;
  }
  EXPECT_GT(zeros, 175);  // about half
  EXPECT_LT(zeros, 325);
}

TEST(RandomTest, MultinomialDefaultInt32) {
  OpTest t("Multinomial", 22);
  t.Input("x", T_<double>({1, 2}, {1, 2})).UncheckedOutput("y");
  Tensor y = Runner(t).Run({{"x", T_<double>({1, 2}, {1, 2})}});
  EXPECT_EQ(y.dtype(), DataType::kInt32);
  EXPECT_EQ(y.shape(), (Shape{1, 1}));
}

TEST(RandomTest, MultinomialRank1Fails) {
  OpTest("Multinomial", 22)
      .Input("x", T_<float>({1, 2}, {2}))
      .Output("y", T_<int32_t>({0}, {1, 1}))
      .ExpectFailure("must be 2D");
}

TEST(RandomTest, BernoulliExtremesAndBool) {
  OpTest t("Bernoulli", 22);
  t.Attr("dtype", int64_t{9}).Input("x", T_<float>({0, 1, 0, 1}, {2, 2})).UncheckedOutput("y");
  Tensor y = Runner(t).Run({{"x", T_<float>({0, 1, 0, 1}, {2, 2})}});
  EXPECT_EQ(y.dtype(), DataType::kBool);
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_EQ(AsDoubles(y), (std::vector<double>{0, 1, 0, 1}));
}

TEST(RandomTest, BernoulliFrequencyAndSeed) {
  std::vector<float> p(4000, 0.3f);
  OpTest t("Bernoulli", 22);
  t.Attr("seed", 1.0f).Input("x", T_<float>(p, {4000})).UncheckedOutput("y");
  Runner r(t);
  Tensor y = r.Run({{"x", T_<float>(p, {4000})}});
  EXPECT_EQ(y.dtype(), DataType::kFloat);
  double ones = 0;
  for (double v : AsDoubles(y)) {
    EXPECT_TRUE(v == 0 || v == 1);
    ones += v;
  }
  EXPECT_NEAR(ones / 4000, 0.3, 0.04);
  EXPECT_EQ(AsDoubles(r.Run({{"x", T_<float>(p, {4000})}})), AsDoubles(y));
}

TEST(RandomTest, BernoulliOutOfRangeFails) {
  OpTest("Bernoulli", 22)
      .Input("x", T_<float>({0.5f, 1.5f}, {2}))
      .Output("y", T_<float>({0, 0}, {2}))
      .ExpectFailure("not a probability");
}

}  // namespace
}  // namespace tessera::test
