#include <cmath>
#include <limits>

#include "support/op_test.h"

namespace tessera::test {
namespace {

TEST(ReduceTest, SumAxesInputKeepdims) {
  OpTest("ReduceSum", 13)
      .Input("x", T_<float>({1, 2, 3, 4, 5, 6}, {2, 3}))
      .Input("axes", T_<int64_t>({-1}, {1}))
      .Output("y", T_<float>({6, 15}, {2, 1}))
      .Run();
}

TEST(ReduceTest, SumLeadingAxis) {
  OpTest("ReduceSum", 13)
      .Attr("keepdims", int64_t{0})
      .Input("x", T_<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3}))
      .Input("axes", T_<int64_t>({0}, {1}))
      .Output("y", T_<int32_t>({5, 7, 9}, {3}))
      .Run();
}

TEST(ReduceTest, SumAllAxesWhenAxesOmitted) {
  OpTest("ReduceSum", 13)
      .Attr("keepdims", int64_t{0})
      .Input("x", T_<float>({1, 2, 3, 4}, {2, 2}))
      .Output("y", T_<float>({10}, {}))
      .Run();
}

TEST(ReduceTest, SumNonContiguousAxes) {
  // [2, 2, 2] reduced over axes 0 and 2.
  OpTest("ReduceSum", 13)
      .Attr("keepdims", int64_t{0})
      .Input("x", T_<float>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}))
      .Input("axes", T_<int64_t>({0, 2}, {2}))
      .Output("y", T_<float>({1 + 2 + 5 + 6, 3 + 4 + 7 + 8}, {2}))
      .Run();
}

TEST(ReduceTest, MeanMiddleAxisAttributeForm) {
  OpTest("ReduceMean", 13)
      .Attr("axes", std::vector<int64_t>{1})
      .Input("x", T_<float>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}))
      .Output("y", T_<float>({2, 3, 6, 7}, {2, 1, 2}))
      .Run();
}

// Over the spatial axes of an NCHW tensor (a global average written as a
// reduction): oneDNN runs these as pooling.
TEST(ReduceTest, MeanAndSumOverSpatialAxes) {
  const int64_t n = 2, c = 3, h = 4, w = 5;
  std::vector<float> x(static_cast<size_t>(n * c * h * w));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i * 7 % 23) - 11) * 0.25f;
  for (const char* op : {"ReduceMean", "ReduceSum"})
    for (int64_t keep : {0, 1}) {
      SCOPED_TRACE(std::string(op) + " keepdims " + std::to_string(keep));
      std::vector<float> want(static_cast<size_t>(n * c), 0.f);
      for (int64_t i = 0; i < n * c; ++i) {
        for (int64_t k = 0; k < h * w; ++k) want[static_cast<size_t>(i)] += x[static_cast<size_t>(i * h * w + k)];
        if (std::string(op) == "ReduceMean") want[static_cast<size_t>(i)] /= static_cast<float>(h * w);
      }
      OpTest t(op, 18);
      t.Attr("keepdims", keep)
          .Input("data", T_<float>(x, {n, c, h, w}))
          .ConstantInput("axes", T_<int64_t>({2, 3}, {2}))
          .Output("reduced", T_<float>(want, keep ? Shape{n, c, 1, 1} : Shape{n, c}));
      t.Run();
    }
}

TEST(ReduceTest, MaxMinOnIntegers) {
  OpTest("ReduceMax", 18)
      .Input("x", T_<int8_t>({-5, 3, -1, -7}, {2, 2}))
      .Input("axes", T_<int64_t>({1}, {1}))
      .Output("y", T_<int8_t>({3, -1}, {2, 1}))
      .Run();
  OpTest("ReduceMin", 18)
      .Input("x", T_<int64_t>({-5, 3, -1, -7}, {2, 2}))
      .Input("axes", T_<int64_t>({0}, {1}))
      .Output("y", T_<int64_t>({-5, -7}, {1, 2}))
      .Run();
}

TEST(ReduceTest, MinBoolOpset20) {
  OpTest("ReduceMin", 20)
      .Input("x", T_<bool>({true, false, true, true}, {2, 2}))
      .Input("axes", T_<int64_t>({1}, {1}))
      .Output("y", T_<bool>({false, true}, {2, 1}))
      .Run();
}

TEST(ReduceTest, EmptySetGivesIdentity) {
  OpTest("ReduceProd", 18)
      .Input("x", T_<float>({}, {2, 0}))
      .Input("axes", T_<int64_t>({1}, {1}))
      .Output("y", T_<float>({1, 1}, {2, 1}))
      .Run();
  OpTest("ReduceMin", 18)
      .Input("x", T_<int32_t>({}, {0, 2}))
      .Input("axes", T_<int64_t>({0}, {1}))
      .Output("y", T_<int32_t>({std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::max()}, {1, 2}))
      .Run();
}

TEST(ReduceTest, NoopWithEmptyAxes) {
  OpTest("ReduceL2", 18)
      .Attr("noop_with_empty_axes", int64_t{1})
      .Input("x", T_<float>({-3, 4}, {2}))
      .Input("axes", T_<int64_t>({}, {0}))
      .Output("y", T_<float>({-3, 4}, {2}))
      .Run();
}

TEST(ReduceTest, L1L2SumSquareLogSum) {
  OpTest("ReduceL1", 18).Input("x", T_<float>({-3, 4}, {2})).Output("y", T_<float>({7}, {1})).Run();
  OpTest("ReduceL2", 18).Input("x", T_<float>({-3, 4}, {2})).Output("y", T_<float>({5}, {1})).Run();
  OpTest("ReduceSumSquare", 18).Input("x", T_<float>({-3, 4}, {2})).Output("y", T_<float>({25}, {1})).Run();
  OpTest("ReduceLogSum", 18).Input("x", T_<float>({1, 2}, {2})).Output("y", T_<float>({std::log(3.f)}, {1})).Run();
}

TEST(ReduceTest, LogSumExpIsStable) {
  OpTest("ReduceLogSumExp", 18)
      .Input("x", T_<double>({1000, 1000}, {2}))
      .Output("y", T_<double>({1000 + std::log(2.0)}, {1}))
      .Run();
  OpTest("ReduceLogSumExp", 11)
      .Attr("axes", std::vector<int64_t>{0})
      .Attr("keepdims", int64_t{0})
      .Input("x", T_<float>({0, 0, 0, 0}, {2, 2}))
      .Output("y", T_<float>({std::log(2.f), std::log(2.f)}, {2}))
      .Run();
}

TEST(ReduceTest, BadAxisFails) {
  OpTest("ReduceSum", 13)
      .Input("x", T_<float>({1, 2}, {2}))
      .Input("axes", T_<int64_t>({3}, {1}))
      .Output("y", T_<float>({0}, {1}))
      .ExpectFailure("out of range");
}

TEST(ReduceTest, ArgMaxSelectLastIndex) {
  OpTest("ArgMax", 13)
      .Attr("axis", int64_t{1})
      .Attr("select_last_index", int64_t{1})
      .Input("x", T_<float>({2, 5, 5, 1, 1, 0}, {2, 3}))
      .Output("y", T_<int64_t>({2, 1}, {2, 1}))
      .Run();
  OpTest("ArgMax", 13)
      .Attr("axis", int64_t{1})
      .Input("x", T_<float>({2, 5, 5, 1, 1, 0}, {2, 3}))
      .Output("y", T_<int64_t>({1, 0}, {2, 1}))
      .Run();
}

TEST(ReduceTest, ArgMinAxis0NoKeepdims) {
  OpTest("ArgMin", 13)
      .Attr("keepdims", int64_t{0})
      .Input("x", T_<int32_t>({2, 5, 1, 7}, {2, 2}))
      .Output("y", T_<int64_t>({1, 0}, {2}))
      .Run();
}

TEST(ReduceTest, ArgMaxEmptyAxisFails) {
  OpTest("ArgMax", 13)
      .Input("x", T_<float>({}, {0, 2}))
      .Output("y", T_<int64_t>({}, {1, 2}))
      .ExpectFailure("empty axis");
}

}  // namespace
}  // namespace tessera::test

// Large contiguous reductions split into chunks on a multi-threaded pool;
// check the chunked path against closed forms.
#include "tessera/api/providers.h"
#include "tessera/runtime/session.h"

namespace tessera::test {
namespace {

Tensor RunWithThreads(OpTest& t, const Tensor& x, int threads) {
  SessionOptions opts;
  opts.intra_op_num_threads = threads;
  Session session(t.BuildModel(), opts, MakeProviders({"cpu"}));
  auto out = session.Run({{"x", Value(x)}});
  return out.at(0).tensor();
}

TEST(ReduceTest, LargeReduceAllThreaded) {
  const int64_t n = 1 << 20;
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i % 7) - 3.0f;
  v[123457] = 100.0f;
  Tensor x = T_<float>(v, {n});
  double sum = 0;
  for (float f : v) sum += f;
  {
    OpTest t("ReduceSum", 13);
    t.Attr("keepdims", int64_t{0}).Input("x", x).Output("y", T_<float>({0}, {}));
    Tensor y = RunWithThreads(t, x, 4);
    EXPECT_NEAR(y.data<float>()[0], sum, 1e-3);
  }
  {
    OpTest t("ReduceMax", 18);
    t.Attr("keepdims", int64_t{0}).Input("x", x).Output("y", T_<float>({0}, {}));
    Tensor y = RunWithThreads(t, x, 4);
    EXPECT_EQ(y.data<float>()[0], 100.0f);
  }
  {
    OpTest t("ReduceLogSumExp", 18);
    t.Attr("keepdims", int64_t{0}).Input("x", x).Output("y", T_<float>({0}, {}));
    Tensor y = RunWithThreads(t, x, 4);
    EXPECT_NEAR(y.data<float>()[0], 100.0f, 1e-4);
  }
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

TEST(ReduceTest, ArgMaxNanWins) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  OpTest("ArgMax", 13)
      .Attr("keepdims", int64_t{0})
      .Input("x", T_<float>({1, nan, 5, nan}, {4}))
      .Output("y", T_<int64_t>({1}, {}))
      .Run();
  OpTest("ArgMin", 13)
      .Attr("keepdims", int64_t{0})
      .Attr("select_last_index", int64_t{1})
      .Input("x", T_<float>({1, nan, 5, nan}, {4}))
      .Output("y", T_<int64_t>({3}, {}))
      .Run();
}

}  // namespace
}  // namespace tessera::test
