// Unit tests of the matmul family: MatMul, Gemm, MatMulInteger, QLinearMatMul, Einsum.
#include <cstdint>
#include <vector>

#include "support/op_test.h"
#include "tessera/base/half.h"

namespace tessera::test {
namespace {

using Ints = std::vector<int64_t>;

std::vector<float> Iota(int64_t n, float start = 0.0f, float step = 1.0f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = start + step * static_cast<float>(i);
  return v;
}

// Reference numpy-style batched matmul for rank>=2 operands with equal rank.
std::vector<float> RefBatchedMatMul(const std::vector<float>& a, const Shape& as, const std::vector<float>& b,
                                    const Shape& bs, Shape* out_shape) {
  size_t r = as.size();
  Shape os(r);
  for (size_t i = 0; i + 2 < r; ++i) os[i] = std::max(as[i], bs[i]);
  int64_t m = as[r - 2], k = as[r - 1], n = bs[r - 1];
  os[r - 2] = m;
  os[r - 1] = n;
  *out_shape = os;
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < r; ++i) batch *= os[i];
  std::vector<float> out(static_cast<size_t>(batch * m * n), 0.0f);
  for (int64_t bi = 0; bi < batch; ++bi) {
    int64_t rem = bi, aoff = 0, boff = 0, astride = 1, bstride = 1;
    for (size_t d = r - 2; d-- > 0;) {
      int64_t idx = rem % os[d];
      rem /= os[d];
      aoff += (as[d] == 1 ? 0 : idx) * astride;
      boff += (bs[d] == 1 ? 0 : idx) * bstride;
      astride *= as[d];
      bstride *= bs[d];
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float s = 0;
        for (int64_t p = 0; p < k; ++p)
          s += a[static_cast<size_t>(aoff * m * k + i * k + p)] * b[static_cast<size_t>(boff * k * n + p * n + j)];
        out[static_cast<size_t>(bi * m * n + i * n + j)] = s;
      }
  }
  return out;
}

TEST(MatMul, BroadcastsBatchDims) {
  Shape as = {2, 1, 2, 3}, bs = {1, 3, 3, 2}, os;
  auto a = Iota(12, -3.0f, 0.5f), b = Iota(18, 1.0f, -0.25f);
  auto expected = RefBatchedMatMul(a, as, b, bs, &os);
  OpTest("MatMul", 13)
      .Input("a", T_<float>(a, as))
      .Input("b", T_<float>(b, bs))
      .Output("y", T_<float>(expected, os))
      .Run();
}

TEST(MatMul, FoldsBatchWhenRightIsMatrix) {
  Shape as = {3, 4, 5}, bs = {1, 5, 2}, os;
  auto a = Iota(60, 0.0f, 0.1f), b = Iota(10, -1.0f, 0.3f);
  auto expected = RefBatchedMatMul(a, as, b, bs, &os);
  OpTest("MatMul", 13)
      .Input("a", T_<float>(a, as))
      .Input("b", T_<float>(b, {5, 2}))
      .Output("y", T_<float>(expected, os))
      .Run();
}

TEST(MatMul, VectorOperands) {
  // [3] x [3, 2] -> [2]; [2, 3] x [3] -> [2]; [3] x [3] -> []
  OpTest("MatMul", 13)
      .Input("a", T_<float>({1, 2, 3}, {3}))
      .Input("b", T_<float>({1, 2, 3, 4, 5, 6}, {3, 2}))
      .Output("y", T_<float>({22, 28}, {2}))
      .Run();
  OpTest("MatMul", 13)
      .Input("a", T_<float>({1, 2, 3, 4, 5, 6}, {2, 3}))
      .Input("b", T_<float>({1, 0, -1}, {3}))
      .Output("y", T_<float>({-2, -2}, {2}))
      .Run();
  OpTest("MatMul", 13)
      .Input("a", T_<float>({1, 2, 3}, {3}))
      .Input("b", T_<float>({4, 5, 6}, {3}))
      .Output("y", T_<float>({32}, {}))
      .Run();
}

TEST(MatMul, IntegerAndDouble) {
  OpTest("MatMul", 13)
      .Input("a", T_<int32_t>({1, -2, 3, 4}, {2, 2}))
      .Input("b", T_<int32_t>({5, 6, 7, 8}, {2, 2}))
      .Output("y", T_<int32_t>({-9, -10, 43, 50}, {2, 2}))
      .Run();
  OpTest("MatMul", 13)
      .Input("a", T_<uint64_t>({1, 2, 3, 4}, {2, 2}))
      .Input("b", T_<uint64_t>({5, 6, 7, 8}, {2, 2}))
      .Output("y", T_<uint64_t>({19, 22, 43, 50}, {2, 2}))
      .Run();
  OpTest("MatMul", 13)
      .Input("a", T_<double>({1, 2, 3, 4}, {2, 2}))
      .Input("b", T_<double>({5, 6, 7, 8}, {2, 2}))
      .Output("y", T_<double>({19, 22, 43, 50}, {2, 2}))
      .Run();
}

TEST(MatMul, Float16) {
  auto h = [](std::vector<float> v) {
    std::vector<Float16> r;
    for (float f : v) r.push_back(Float16{FloatToHalf(f)});
    return r;
  };
  OpTest("MatMul", 13)
      .Input("a", T_<Float16>(h({1, 2, 3, 4}), {2, 2}))
      .Input("b", T_<Float16>(h({0.5f, 1, 1.5f, 2}), {2, 2}))
      .Output("y", T_<Float16>(h({3.5f, 5, 7.5f, 11}), {2, 2}))
      .Run();
}

TEST(MatMul, EmptyInnerDimGivesZeros) {
  OpTest("MatMul", 13)
      .Input("a", T_<float>({}, {2, 0}))
      .Input("b", T_<float>({}, {0, 3}))
      .Output("y", T_<float>({0, 0, 0, 0, 0, 0}, {2, 3}))
      .Run();
  OpTest("MatMul", 13)
      .Input("a", T_<float>({}, {0, 2, 4}))
      .Input("b", T_<float>(Iota(12), {4, 3}))
      .Output("y", T_<float>({}, {0, 2, 3}))
      .Run();
}

TEST(MatMul, RejectsMismatchedShapes) {
  OpTest("MatMul", 13)
      .Input("a", T_<float>(Iota(6), {2, 3}))
      .Input("b", T_<float>(Iota(8), {4, 2}))
      .Output("y", T_<float>({}, {2, 2}))
      .ExpectFailure("inner dimensions");
  OpTest("MatMul", 13)
      .Input("a", T_<float>(Iota(12), {2, 2, 3}))
      .Input("b", T_<float>(Iota(18), {3, 3, 2}))
      .Output("y", T_<float>({}, {2, 2, 2}))
      .ExpectFailure("broadcast");
}

TEST(Gemm, TransposesAlphaBetaAndColumnBias) {
  // A^T: A stored [3,2]; B^T: B stored [2,3]; C [2,1] broadcast over columns.
  std::vector<float> a = {1, 2, 3, 4, 5, 6};    // A^T = [[1,3,5],[2,4,6]]
  std::vector<float> b = {1, 0, 2, -1, 1, 0};  // B^T = [[1,-1],[0,1],[2,0]]
  // A^T B^T = [[1+0+10, -1+3+0],[2+0+12, -2+4+0]] = [[11, 2],[14, 2]]
  OpTest("Gemm", 13)
      .Attr("transA", int64_t{1})
      .Attr("transB", int64_t{1})
      .Attr("alpha", 2.0f)
      .Attr("beta", 0.5f)
      .Input("a", T_<float>(a, {3, 2}))
      .Input("b", T_<float>(b, {2, 3}))
      .Input("c", T_<float>({10, 20}, {2, 1}))
      .Output("y", T_<float>({27, 9, 38, 14}, {2, 2}))
      .Run();
}

TEST(Gemm, OptionalBiasAndOldOpsets) {
  OpTest("Gemm", 11)
      .Input("a", T_<float>({1, 2, 3, 4}, {2, 2}))
      .Input("b", T_<float>({1, 1, 1, 1}, {2, 2}))
      .Output("y", T_<float>({3, 3, 7, 7}, {2, 2}))
      .Run();
  OpTest("Gemm", 6)
      .Attr("broadcast", int64_t{1})
      .Input("a", T_<float>({1, 2, 3, 4}, {2, 2}))
      .Input("b", T_<float>({1, 1, 1, 1}, {2, 2}))
      .Input("c", T_<float>({1, 2}, {2}))
      .Output("y", T_<float>({4, 5, 8, 9}, {2, 2}))
      .Run();
  OpTest("Gemm", 13)
      .Input("a", T_<int64_t>({1, 2, 3, 4}, {2, 2}))
      .Input("b", T_<int64_t>({1, 1, 1, 1}, {2, 2}))
      .Input("c", T_<int64_t>({100}, {}))
      .Output("y", T_<int64_t>({103, 103, 107, 107}, {2, 2}))
      .Run();
}

TEST(Gemm, RejectsBadShapes) {
  OpTest("Gemm", 13)
      .Input("a", T_<float>(Iota(6), {2, 3}))
      .Input("b", T_<float>(Iota(6), {3, 2}))
      .Input("c", T_<float>(Iota(3), {3}))
      .Output("y", T_<float>({}, {2, 2}))
      .ExpectFailure("cannot be broadcast");
  OpTest("Gemm", 13)
      .Input("a", T_<float>(Iota(6), {1, 2, 3}))
      .Input("b", T_<float>(Iota(6), {3, 2}))
      .Output("y", T_<float>({}, {2, 2}))
      .ExpectFailure("2-D");
}

TEST(MatMulInteger, PerRowAndPerColumnZeroPoints) {
  // A [2,3] uint8 with per-row zero points [1, 2]; B [3,2] int8 with per-column [0, -1].
  std::vector<uint8_t> a = {1, 2, 3, 4, 5, 6};
  std::vector<int8_t> b = {1, -1, 2, 0, -3, 1};
  // A - za = [[0,1,2],[2,3,4]]; B - zb = [[1,0],[2,1],[-3,2]]
  // product = [[0+2-6, 0+1+4],[2+6-12, 0+3+8]] = [[-4,5],[-4,11]]
  OpTest("MatMulInteger", 10)
      .Input("a", T_<uint8_t>(a, {2, 3}))
      .Input("b", T_<int8_t>(b, {3, 2}))
      .Input("az", T_<uint8_t>({1, 2}, {2}))
      .Input("bz", T_<int8_t>({0, -1}, {2}))
      .Output("y", T_<int32_t>({-4, 5, -4, 11}, {2, 2}))
      .Run();
  // Batched, no zero points.
  OpTest("MatMulInteger", 10)
      .Input("a", T_<int8_t>({1, 2, -1, -2}, {2, 1, 2}))
      .Input("b", T_<int8_t>({3, 4}, {2, 1}))
      .Output("y", T_<int32_t>({11, -11}, {2, 1, 1}))
      .Run();
}

TEST(QLinearMatMul, RequantizesWithRounding) {
  // a=[2,4] (zp 0, scale 0.5) -> real [1,2]; b=[[2],[2]] (scale 1, zp 0) -> real 6; y_scale 4 -> 1.5 -> 2 (even)
  OpTest("QLinearMatMul", 10)
      .Input("a", T_<uint8_t>({2, 4}, {1, 2}))
      .Input("as", T_<float>({0.5f}, {}))
      .Input("az", T_<uint8_t>({0}, {}))
      .Input("b", T_<uint8_t>({2, 2}, {2, 1}))
      .Input("bs", T_<float>({1.0f}, {}))
      .Input("bz", T_<uint8_t>({0}, {}))
      .Input("ys", T_<float>({4.0f}, {}))
      .Input("yz", T_<uint8_t>({10}, {}))
      .Output("y", T_<uint8_t>({12}, {1, 1}))
      .Run();
  // Saturation for int8.
  OpTest("QLinearMatMul", 21)
      .Input("a", T_<int8_t>({100, 100}, {1, 2}))
      .Input("as", T_<float>({1.0f}, {}))
      .Input("az", T_<int8_t>({0}, {}))
      .Input("b", T_<int8_t>({100, 100}, {2, 1}))
      .Input("bs", T_<float>({1.0f}, {}))
      .Input("bz", T_<int8_t>({0}, {}))
      .Input("ys", T_<float>({1.0f}, {}))
      .Input("yz", T_<int8_t>({0}, {}))
      .Output("y", T_<int8_t>({127}, {1, 1}))
      .Run();
}

TEST(Einsum, DiagonalTraceAndOuter) {
  auto m = Iota(9);  // [[0,1,2],[3,4,5],[6,7,8]]
  OpTest("Einsum", 12).Attr("equation", std::string("ii->i"))
      .Input("x", T_<float>(m, {3, 3})).Output("y", T_<float>({0, 4, 8}, {3})).Run();
  OpTest("Einsum", 12).Attr("equation", std::string("ii"))
      .Input("x", T_<float>(m, {3, 3})).Output("y", T_<float>({12}, {})).Run();
  OpTest("Einsum", 12).Attr("equation", std::string("i,j->ij"))
      .Input("a", T_<float>({1, 2}, {2})).Input("b", T_<float>({3, 4, 5}, {3}))
      .Output("y", T_<float>({3, 4, 5, 6, 8, 10}, {2, 3})).Run();
  // Implicit output sorted: "ba" -> "ab" i.e. a transpose.
  OpTest("Einsum", 12).Attr("equation", std::string("ba"))
      .Input("x", T_<float>({1, 2, 3, 4, 5, 6}, {2, 3}))
      .Output("y", T_<float>({1, 4, 2, 5, 3, 6}, {3, 2})).Run();
}

TEST(Einsum, ChainsAndEllipsisBroadcast) {
  // Three-operand chain equals ((A B) C).
  std::vector<float> a = Iota(6, 1.0f), b = Iota(12, -2.0f, 0.5f), c = Iota(8, 0.0f, 0.25f);
  Shape os;
  auto ab = RefBatchedMatMul(a, {2, 3}, b, {3, 4}, &os);
  auto abc = RefBatchedMatMul(ab, {2, 4}, c, {4, 2}, &os);
  OpTest("Einsum", 12).Attr("equation", std::string("ij,jk,kl->il"))
      .Input("a", T_<float>(a, {2, 3})).Input("b", T_<float>(b, {3, 4})).Input("c", T_<float>(c, {4, 2}))
      .Output("y", T_<float>(abc, {2, 2})).Run();
  // Ellipsis broadcasting: [2,1,2,3] x [3,3,2] over "...ij,...jk->...ik".
  std::vector<float> x = Iota(12, -1.0f, 0.5f), y = Iota(18, 2.0f, -0.5f);
  auto ref = RefBatchedMatMul(x, {2, 1, 2, 3}, y, {1, 3, 3, 2}, &os);
  OpTest("Einsum", 12).Attr("equation", std::string("...ij,...jk->...ik"))
      .Input("x", T_<float>(x, {2, 1, 2, 3})).Input("y", T_<float>(y, {3, 3, 2}))
      .Output("z", T_<float>(ref, os)).Run();
  // Summing a label present in one operand only, with a batch label.
  OpTest("Einsum", 12).Attr("equation", std::string("bij,bj->b"))
      .Input("x", T_<float>(Iota(12), {2, 2, 3})).Input("y", T_<float>({1, 0, 1, 0, 1, 0}, {2, 3}))
      .Output("z", T_<float>({0 + 2 + 3 + 5, 7 + 10}, {2})).Run();
}

TEST(Einsum, IntegerTypes) {
  OpTest("Einsum", 12).Attr("equation", std::string("ij,jk->ik"))
      .Input("a", T_<int32_t>({1, 2, 3, 4}, {2, 2})).Input("b", T_<int32_t>({5, 6, 7, 8}, {2, 2}))
      .Output("y", T_<int32_t>({19, 22, 43, 50}, {2, 2})).Run();
  OpTest("Einsum", 12).Attr("equation", std::string("ij->"))
      .Input("a", T_<int64_t>({1, 2, 3, 4}, {2, 2})).Output("y", T_<int64_t>({10}, {})).Run();
}

TEST(Einsum, RejectsBadEquations) {
  OpTest("Einsum", 12).Attr("equation", std::string("ij,jk->ik"))
      .Input("a", T_<float>(Iota(6), {2, 3})).Input("b", T_<float>(Iota(8), {4, 2}))
      .Output("y", T_<float>({}, {2, 2})).ExpectFailure("mismatch");
  OpTest("Einsum", 12).Attr("equation", std::string("ij->k"))
      .Input("a", T_<float>(Iota(6), {2, 3}))
      .Output("y", T_<float>({}, {2})).ExpectFailure("not found");
  OpTest("Einsum", 12).Attr("equation", std::string("ijk->i"))
      .Input("a", T_<float>(Iota(6), {2, 3}))
      .Output("y", T_<float>({}, {2})).ExpectFailure("rank");
}

}  // namespace
}  // namespace tessera::test
