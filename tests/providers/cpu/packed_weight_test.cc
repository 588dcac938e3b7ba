// MatMul, Gemm and FusedMatMul with a constant float B: the kernel packs B
// once at creation (sgemm.h PackedB) and frees the initializer. Each case
// checks the packed path against a double-precision reference, at sizes
// that cross the packed panels and split over two threads.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "support/op_test.h"
#include "tessera/base/half.h"

namespace tessera::test {
namespace {

std::vector<float> Random(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

// [batches, m, k] from its transpose in each batch, [batches, k, m].
std::vector<float> Untransposed(const std::vector<float>& at, int64_t batches, int64_t k, int64_t m) {
  std::vector<float> a(at.size());
  for (int64_t bi = 0; bi < batches; ++bi)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p)
        a[static_cast<size_t>(bi * m * k + i * k + p)] = at[static_cast<size_t>(bi * k * m + p * m + i)];
  return a;
}

// y[rows, n] = alpha * a[rows, k] * op(b) (+ beta * c[n]), in double.
std::vector<float> Reference(const std::vector<float>& a, const std::vector<float>& b, int64_t rows, int64_t k,
                             int64_t n, bool trans_b, float alpha = 1.f, const std::vector<float>* c = nullptr,
                             float beta = 1.f) {
  std::vector<float> y(static_cast<size_t>(rows * n));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p)
        s += static_cast<double>(a[static_cast<size_t>(i * k + p)]) *
             b[static_cast<size_t>(trans_b ? j * k + p : p * n + j)];
      s *= alpha;
      if (c) s += static_cast<double>(beta) * (*c)[static_cast<size_t>(j)];
      y[static_cast<size_t>(i * n + j)] = static_cast<float>(s);
    }
  return y;
}

TEST(PackedWeight, MatMulFoldsTheBatchOfA) {
  const int64_t k = 300, n = 70;
  for (int threads : {1, 2}) {
    auto a = Random(2 * 37 * k, 1), b = Random(k * n, 2);
    OpTest("MatMul", 13)
        .Input("a", T_<float>(a, {2, 37, k}))
        .ConstantInput("b", T_<float>(b, {k, n}))
        .Output("y", T_<float>(Reference(a, b, 2 * 37, k, n, false), {2, 37, n}))
        .Tolerance(1e-4, 1e-4)
        .Threads(threads)
        .Run();
  }
}

TEST(PackedWeight, MatMulVectorAndSingleRow) {
  const int64_t k = 33, n = 65;
  auto a = Random(k, 3), b = Random(k * n, 4);
  const auto want = Reference(a, b, 1, k, n, false);
  OpTest("MatMul", 13)
      .Input("a", T_<float>(a, {k}))
      .ConstantInput("b", T_<float>(b, {k, n}))
      .Output("y", T_<float>(want, {n}))
      .Tolerance(1e-5, 1e-5)
      .Run();
  OpTest("MatMul", 13)
      .Input("a", T_<float>(a, {1, k}))
      .ConstantInput("b", T_<float>(b, {k, n}))
      .Output("y", T_<float>(want, {1, n}))
      .Tolerance(1e-5, 1e-5)
      .Threads(2)
      .Run();
}

TEST(PackedWeight, MatMulRejectsMismatchedOperands) {
  OpTest("MatMul", 13)
      .Input("a", T_<float>({1, 2, 3}, {1, 3}))
      .ConstantInput("b", T_<float>({1, 2, 3, 4}, {2, 2}))
      .Output("y", T_<float>({0, 0}, {1, 2}))
      .ExpectFailure("inner dimensions differ");
  OpTest("MatMul", 13)
      .Input("a", T_<double>({1, 2}, {1, 2}))
      .ConstantInput("b", T_<float>({1, 2, 3, 4}, {2, 2}))
      .Output("y", T_<double>({0, 0}, {1, 2}))
      .ExpectFailure("different element types");
}

TEST(PackedWeight, GemmTransposedBAlphaBetaAndBias) {
  const int64_t m = 45, k = 260, n = 97;
  for (int threads : {1, 2}) {
    auto a = Random(m * k, 5), b = Random(n * k, 6), c = Random(n, 7);
    OpTest("Gemm", 13)
        .Attr("transB", int64_t{1})
        .Attr("alpha", 0.5f)
        .Attr("beta", 2.0f)
        .Input("a", T_<float>(a, {m, k}))
        .ConstantInput("b", T_<float>(b, {n, k}))
        .ConstantInput("c", T_<float>(c, {n}))
        .Output("y", T_<float>(Reference(a, b, m, k, n, true, 0.5f, &c, 2.0f), {m, n}))
        .Tolerance(1e-4, 1e-4)
        .Threads(threads)
        .Run();
  }
}

TEST(PackedWeight, GemmTransposedA) {
  const int64_t m = 6, k = 19, n = 40;
  auto at = Random(k * m, 8), b = Random(k * n, 9), a = Untransposed(at, 1, k, m);
  OpTest("Gemm", 13)
      .Attr("transA", int64_t{1})
      .Input("a", T_<float>(at, {k, m}))
      .ConstantInput("b", T_<float>(b, {k, n}))
      .Output("y", T_<float>(Reference(a, b, m, k, n, false), {m, n}))
      .Tolerance(1e-5, 1e-5)
      .Run();
}

TEST(PackedWeight, GemmRejectsAWithTheWrongInnerDimension) {
  OpTest("Gemm", 13)
      .Input("a", T_<float>({1, 2, 3}, {1, 3}))
      .ConstantInput("b", T_<float>({1, 2, 3, 4}, {2, 2}))
      .Output("y", T_<float>({0, 0}, {1, 2}))
      .ExpectFailure("inner dimensions differ: float[1,3] x float[2,2]");
}

TEST(PackedWeight, FusedMatMulTransposedBWithBiasAndActivation) {
  const int64_t k = 129, n = 50;
  auto a = Random(3 * 11 * k, 10), b = Random(n * k, 11), bias = Random(n, 12);
  auto want = Reference(a, b, 3 * 11, k, n, true);
  for (size_t i = 0; i < want.size(); ++i) want[i] = std::max(0.f, want[i] + bias[i % static_cast<size_t>(n)]);
  OpTest("FusedMatMul", 1, "ai.tessera")
      .Attr("transB", int64_t{1})
      .Attr("activation", std::string("Relu"))
      .Input("a", T_<float>(a, {3, 11, k}))
      .ConstantInput("b", T_<float>(b, {n, k}))
      .ConstantInput("bias", T_<float>(bias, {n}))
      .Output("y", T_<float>(want, {3, 11, n}))
      .Tolerance(1e-4, 1e-4)
      .Threads(2)
      .Run();
}

// transA with a batch: one packed product per batch of A.
TEST(PackedWeight, FusedMatMulTransposedABatches) {
  const int64_t m = 5, k = 21, n = 18;
  auto at = Random(2 * k * m, 13), b = Random(k * n, 14), a = Untransposed(at, 2, k, m);
  OpTest("FusedMatMul", 1, "ai.tessera")
      .Attr("transA", int64_t{1})
      .Attr("alpha", 2.0f)
      .Input("a", T_<float>(at, {2, k, m}))
      .ConstantInput("b", T_<float>(b, {k, n}))
      .Output("y", T_<float>(Reference(a, b, 2 * m, k, n, false, 2.0f), {2, m, n}))
      .Tolerance(1e-5, 1e-5)
      .Run();
}

}  // namespace
}  // namespace tessera::test
