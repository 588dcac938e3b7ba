// MatMulInteger and QLinearMatMul on the int8 GEMM path: B constant (packed
// at creation, the initializer freed) or fed (packed per run), int8 and
// uint8 operands at their range ends, per-tensor, per-row and per-column
// zero points and scales, batched A, 1 and 2 threads; each against an exact
// integer reference, with requantization in double.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "support/int8_forms.h"
#include "support/op_test.h"

namespace tessera::test {
namespace {

template <typename T>
std::vector<T> RandomBytes(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) {
    const uint32_t r = rng();
    // A third of the values at the ends of the range.
    const int32_t lo = std::is_signed_v<T> ? -128 : 0, hi = std::is_signed_v<T> ? 127 : 255;
    v[i] = static_cast<T>(r % 3 == 0 ? (r & 8 ? lo : hi) : lo + static_cast<int32_t>(r % 256));
  }
  return v;
}

// C[rows, n] = sum_k (a - za[row]) * (b - zb[col]), exactly.
template <typename A, typename B>
std::vector<int64_t> Product(const std::vector<A>& a, const std::vector<int32_t>& za, const std::vector<B>& b,
                             const std::vector<int32_t>& zb, int64_t rows, int64_t k, int64_t n) {
  std::vector<int64_t> c(static_cast<size_t>(rows * n));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t s = 0;
      for (int64_t p = 0; p < k; ++p)
        s += (int64_t{a[static_cast<size_t>(i * k + p)]} - za[za.size() == 1 ? 0 : static_cast<size_t>(i)]) *
             (int64_t{b[static_cast<size_t>(p * n + j)]} - zb[zb.size() == 1 ? 0 : static_cast<size_t>(j)]);
      c[static_cast<size_t>(i * n + j)] = s;
    }
  return c;
}

template <typename A, typename B>
void CheckMatMulInteger(bool constant_b, int threads) {
  const int64_t rows = 2 * 19, k = 261, n = 37;
  const auto a = RandomBytes<A>(rows * k, 1);
  const auto b = RandomBytes<B>(k * n, 2);
  std::vector<int32_t> zb(static_cast<size_t>(n));
  for (size_t j = 0; j < zb.size(); ++j) zb[j] = std::is_signed_v<B> ? (j % 2 ? 127 : -128) : (j % 2 ? 255 : 3);
  const int32_t za = std::is_signed_v<A> ? -128 : 255;
  const auto want = Product(a, {za}, b, zb, rows, k, n);
  std::vector<int32_t> y(want.begin(), want.end());
  std::vector<B> zb_typed(zb.begin(), zb.end());
  OpTest t("MatMulInteger", 10);
  t.Input("a", T_<A>(a, {2, 19, k}));
  if (constant_b) {
    t.ConstantInput("b", T_<B>(b, {k, n}));
  } else {
    t.Input("b", T_<B>(b, {k, n}));
  }
  t.ConstantInput("a_zero_point", T_<A>({static_cast<A>(za)}, {}))
      .ConstantInput("b_zero_point", T_<B>(zb_typed, {n}))
      .Output("y", T_<int32_t>(y, {2, 19, n}))
      .Threads(threads)
      .Run();
}

// Every int8 GEMM form (a constant B takes the transposed byte-quad
// product where byte quads are chosen), B constant and fed, 1 and 2 threads.
TEST(QuantizedMatMul, MatMulIntegerIsExactForEveryOperandType) {
  for (const Int8Form& form : kInt8Forms)
    for (bool constant_b : {true, false})
      for (int threads : {1, 2}) {
        const ScopedInt8Form scoped(form);
        SCOPED_TRACE(testing::Message() << form.name << ", " << (constant_b ? "constant B" : "B fed") << ", "
                                        << threads << " threads");
        CheckMatMulInteger<uint8_t, int8_t>(constant_b, threads);
        CheckMatMulInteger<uint8_t, uint8_t>(constant_b, threads);
        CheckMatMulInteger<int8_t, int8_t>(constant_b, threads);
        CheckMatMulInteger<int8_t, uint8_t>(constant_b, threads);
      }
}

TEST(QuantizedMatMul, MatMulIntegerTakesPerRowZeroPointsOfA) {
  const int64_t m = 5, k = 8, n = 3;
  const auto a = RandomBytes<uint8_t>(m * k, 3);
  const auto b = RandomBytes<int8_t>(k * n, 4);
  const std::vector<int32_t> za = {0, 255, 17, 128, 3};
  const auto want = Product(a, za, b, {0}, m, k, n);
  for (const Int8Form& form : kInt8Forms) {
    const ScopedInt8Form scoped(form);
    SCOPED_TRACE(form.name);
    OpTest("MatMulInteger", 10)
        .Input("a", T_<uint8_t>(a, {m, k}))
        .ConstantInput("b", T_<int8_t>(b, {k, n}))
        .ConstantInput("a_zero_point", T_<uint8_t>({0, 255, 17, 128, 3}, {m}))
        .Output("y", T_<int32_t>(std::vector<int32_t>(want.begin(), want.end()), {m, n}))
        .Run();
  }
}

// y = saturate(round(C * sa * sb[j] / ys) + yz), as ONNX defines it.
TEST(QuantizedMatMul, QLinearMatMulRequantizesPerColumn) {
  const int64_t rows = 33, k = 130, n = 21;
  const auto a = RandomBytes<uint8_t>(rows * k, 5);
  const auto b = RandomBytes<int8_t>(k * n, 6);
  const uint8_t za = 131;
  std::vector<int8_t> zb(static_cast<size_t>(n));
  std::vector<float> sb(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    zb[static_cast<size_t>(j)] = static_cast<int8_t>(j % 5 - 2);
    sb[static_cast<size_t>(j)] = 0.002f * static_cast<float>(j + 1);
  }
  const float sa = 0.05f, ys = 0.7f;
  const uint8_t yz = 100;
  const auto c = Product(a, {za}, b, std::vector<int32_t>(zb.begin(), zb.end()), rows, k, n);
  std::vector<uint8_t> want(c.size());
  int saturated = 0;
  for (size_t o = 0; o < c.size(); ++o) {
    const double v = std::nearbyint(static_cast<double>(c[o]) * sa * sb[o % static_cast<size_t>(n)] / ys) + yz;
    saturated += v < 0 || v > 255;
    want[o] = static_cast<uint8_t>(std::clamp(v, 0.0, 255.0));
  }
  EXPECT_GT(saturated, 0) << "the data reaches the output's saturation";
  for (bool constant_b : {true, false})
    for (int threads : {1, 2}) {
      OpTest t("QLinearMatMul", 10);
      t.Input("a", T_<uint8_t>(a, {rows, k}))
          .ConstantInput("a_scale", T_<float>({sa}, {}))
          .ConstantInput("a_zero_point", T_<uint8_t>({za}, {}));
      if (constant_b) {
        t.ConstantInput("b", T_<int8_t>(b, {k, n}));
      } else {
        t.Input("b", T_<int8_t>(b, {k, n}));
      }
      t.ConstantInput("b_scale", T_<float>(sb, {n}))
          .ConstantInput("b_zero_point", T_<int8_t>(zb, {n}))
          .ConstantInput("y_scale", T_<float>({ys}, {}))
          .ConstantInput("y_zero_point", T_<uint8_t>({yz}, {}))
          .Output("y", T_<uint8_t>(want, {rows, n}))
          .Threads(threads)
          .Run();
    }
}

TEST(QuantizedMatMul, EmptyOperandsGiveEmptyOrZeroOutputs) {
  OpTest("MatMulInteger", 10)
      .Input("a", T_<uint8_t>({}, {2, 0}))
      .ConstantInput("b", T_<int8_t>({}, {0, 3}))
      .Output("y", T_<int32_t>({0, 0, 0, 0, 0, 0}, {2, 3}))
      .Run();
  OpTest("MatMulInteger", 10)
      .Input("a", T_<uint8_t>({1, 2, 3, 4, 5, 6}, {2, 3}))
      .ConstantInput("b", T_<int8_t>({}, {3, 0}))
      .Output("y", T_<int32_t>({}, {2, 0}))
      .Run();
}

TEST(QuantizedMatMul, ZeroPointOfAnotherTypeIsAnError) {
  OpTest("MatMulInteger", 10)
      .Input("a", T_<uint8_t>({1, 2, 3, 4}, {2, 2}))
      .ConstantInput("b", T_<int8_t>({1, 2, 3, 4}, {2, 2}))
      .ConstantInput("a_zero_point", T_<int8_t>({1}, {}))
      .Output("y", T_<int32_t>({0, 0, 0, 0}, {2, 2}))
      .ExpectFailure("a_zero_point has element type int8");
}

}  // namespace
}  // namespace tessera::test
