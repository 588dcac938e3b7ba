// Unit tests of DFT, STFT, the window generators and MelWeightMatrix: FFT
// results against a direct O(n^2) DFT for power-of-two, prime and large
// Bluestein lengths, zero padding and truncation by dft_length, inverse round
// trips, IRFFT of odd lengths, negative axes, complex STFT, window edge cases
// (size 1, integer output types) and invalid inputs.
#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "support/op_test.h"

namespace tessera::test {
namespace {

using cd = std::complex<double>;

// noinline: inlined into callers with constant sizes, GCC 12 reports false
// -Warray-bounds positives on the guarded loop.
[[gnu::noinline]] std::vector<cd> NaiveDft(const std::vector<cd>& x, int64_t n, bool inverse) {
  std::vector<cd> y(static_cast<size_t>(n));
  const int64_t m = std::min<int64_t>(n, static_cast<int64_t>(x.size()));
  for (int64_t k = 0; k < n; ++k) {
    cd s = 0;
    for (int64_t j = 0; j < m; ++j) {
      const double a = (inverse ? 2.0 : -2.0) * std::numbers::pi * static_cast<double>((k * j) % n) / static_cast<double>(n);
      s += x[static_cast<size_t>(j)] * cd(std::cos(a), std::sin(a));
    }
    y[static_cast<size_t>(k)] = inverse ? s / static_cast<double>(n) : s;
  }
  return y;
}

std::vector<cd> Signal(int64_t n, bool complex) {
  std::vector<cd> x(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    x[static_cast<size_t>(i)] = cd(std::sin(0.37 * static_cast<double>(i)) + 0.1 * static_cast<double>(i % 5),
                                   complex ? std::cos(1.3 * static_cast<double>(i)) : 0.0);
  return x;
}

template <typename T>
Tensor Pack(const std::vector<cd>& v, int comps, Shape shape) {
  std::vector<T> out;
  for (const cd& c : v) {
    out.push_back(static_cast<T>(c.real()));
    if (comps == 2) out.push_back(static_cast<T>(c.imag()));
  }
  return Tensor::FromVector<T>(out, std::move(shape));
}

// Checks DFT of a [1, n, comps] signal against the direct DFT.
void CheckDft(int64_t n, bool complex, int64_t dft_length, bool inverse, double atol) {
  const std::vector<cd> x = Signal(n, complex);
  std::vector<cd> padded(x.begin(), x.begin() + std::min(n, dft_length));
  const std::vector<cd> y = NaiveDft(padded, dft_length, inverse);
  OpTest("DFT", 20)
      .Attr("inverse", int64_t{inverse ? 1 : 0})
      .Input("x", Pack<double>(x, complex ? 2 : 1, {1, n, complex ? 2 : 1}))
      .Input("len", T_<int64_t>({dft_length}, {}))
      .Output("y", Pack<double>(y, 2, {1, dft_length, 2}))
      .Tolerance(1e-9, atol)
      .Run();
}

TEST(DftTest, MatchesDirectDftForManyLengths) {
  for (int64_t n : {1, 2, 3, 5, 7, 8, 12, 16, 17, 30, 64, 97}) {
    SCOPED_TRACE(n);
    CheckDft(n, false, n, false, 1e-10);
    CheckDft(n, true, n, true, 1e-10);
  }
}

TEST(DftTest, LargeBluesteinLengthIsAccurate) {
  CheckDft(1000, true, 1000, false, 1e-9);
  CheckDft(1031, false, 1031, false, 1e-9);
}

TEST(DftTest, ZeroPaddingAndTruncation) {
  CheckDft(5, true, 9, false, 1e-10);
  CheckDft(12, false, 7, false, 1e-10);
}

TEST(DftTest, FloatZerosAreAccurate) {
  // A constant signal: every bin but the first is exactly zero.
  const int64_t n = 36;
  std::vector<float> x(static_cast<size_t>(n), 1.0f);
  std::vector<float> y(static_cast<size_t>(2 * n), 0.0f);
  y[0] = static_cast<float>(n);
  OpTest("DFT", 20)
      .Input("x", T_<float>(x, {1, n, 1}))
      .Output("y", T_<float>(y, {1, n, 2}))
      .Tolerance(1e-6, 1e-7)
      .Run();
}

TEST(DftTest, NegativeAxisInputAndOnesided) {
  // x [2, 4, 1], axis -2 (= 1), onesided: 3 bins per row.
  std::vector<cd> r0 = {1, 2, 3, 4}, r1 = {0, 1, 0, -1};
  std::vector<cd> y0 = NaiveDft(r0, 4, false), y1 = NaiveDft(r1, 4, false);
  std::vector<cd> y = {y0[0], y0[1], y0[2], y1[0], y1[1], y1[2]};
  OpTest("DFT", 20)
      .Attr("onesided", int64_t{1})
      .Input("x", T_<float>({1, 2, 3, 4, 0, 1, 0, -1}, {2, 4, 1}))
      .OmittedInput()
      .Input("axis", T_<int64_t>({-2}, {}))
      .Output("y", Pack<float>(y, 2, {2, 3, 2}))
      .Run();
}

TEST(DftTest, Opset17AxisAttributeOnFirstDim) {
  // x [3, 2, 1]: transform along axis 0 for each of the 2 columns.
  std::vector<cd> c0 = {1, 3, 5}, c1 = {2, 4, 7};
  std::vector<cd> y0 = NaiveDft(c0, 3, false), y1 = NaiveDft(c1, 3, false);
  std::vector<cd> y = {y0[0], y1[0], y0[1], y1[1], y0[2], y1[2]};
  OpTest("DFT", 17)
      .Attr("axis", int64_t{0})
      .Input("x", T_<float>({1, 2, 3, 4, 5, 7}, {3, 2, 1}))
      .Output("y", Pack<float>(y, 2, {3, 2, 2}))
      .Run();
}

TEST(DftTest, IrfftOddLengthRoundTrip) {
  // Real signal of length 7 -> rfft (4 bins) -> irfft with dft_length 7.
  const std::vector<cd> x = Signal(7, false);
  const std::vector<cd> full = NaiveDft(x, 7, false);
  std::vector<cd> half(full.begin(), full.begin() + 4);
  OpTest("DFT", 20)
      .Attr("inverse", int64_t{1})
      .Attr("onesided", int64_t{1})
      .Input("x", Pack<double>(half, 2, {1, 4, 2}))
      .Input("len", T_<int64_t>({7}, {}))
      .Output("y", Pack<double>(x, 1, {1, 7, 1}))
      .Tolerance(1e-9, 1e-10)
      .Run();
}

TEST(DftTest, BadInputsFail) {
  OpTest("DFT", 20)
      .Input("x", T_<float>({1, 2, 3, 4}, {1, 4, 1}))
      .OmittedInput()
      .Input("axis", T_<int64_t>({-1}, {}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("axis");
  OpTest("DFT", 20)
      .Input("x", T_<float>({1, 2, 3, 4, 5, 6}, {1, 2, 3}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("last input dimension");
  OpTest("DFT", 20)
      .Input("x", T_<float>({1, 2}, {1, 2, 1}))
      .Input("len", T_<int64_t>({0}, {}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("dft_length");
}

TEST(StftTest, ComplexSignalTwoSided) {
  // Signal [1, 6, 2], frame_length 4, step 2 -> 2 frames of 4 bins.
  const std::vector<cd> x = Signal(6, true);
  std::vector<double> w = {0.5, 1.0, 1.0, 0.5};
  std::vector<cd> y;
  for (int f = 0; f < 2; ++f) {
    std::vector<cd> fr;
    for (int j = 0; j < 4; ++j) fr.push_back(x[static_cast<size_t>(2 * f + j)] * w[static_cast<size_t>(j)]);
    std::vector<cd> d = NaiveDft(fr, 4, false);
    y.insert(y.end(), d.begin(), d.end());
  }
  OpTest("STFT", 17)
      .Attr("onesided", int64_t{0})
      .Input("signal", Pack<double>(x, 2, {1, 6, 2}))
      .Input("step", T_<int64_t>({2}, {}))
      .Input("window", T_<double>(w, {4}))
      .Output("y", Pack<double>(y, 2, {1, 2, 4, 2}))
      .Tolerance(1e-9, 1e-10)
      .Run();
}

TEST(StftTest, BadInputsFail) {
  OpTest("STFT", 17)
      .Input("signal", T_<float>({1, 2, 3}, {1, 3, 1}))
      .Input("step", T_<int64_t>({1}, {}))
      .OmittedInput()
      .Input("len", T_<int64_t>({8}, {}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("exceeds");
  OpTest("STFT", 17)
      .Input("signal", T_<float>({1, 2, 3}, {1, 3, 1}))
      .Input("step", T_<int64_t>({0}, {}))
      .OmittedInput()
      .Input("len", T_<int64_t>({2}, {}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("frame_step");
}

TEST(WindowTest, EdgeCasesAndTypes) {
  OpTest("HannWindow", 17)
      .Attr("periodic", int64_t{0})
      .Input("n", T_<int64_t>({1}, {}))
      .Output("y", T_<float>({1.0f}, {1}))
      .Run();
  OpTest("HannWindow", 17)
      .Input("n", T_<int32_t>({0}, {}))
      .Output("y", T_<float>({}, {0}))
      .Run();
  OpTest("HammingWindow", 17)
      .Attr("output_datatype", int64_t{11})
      .Attr("periodic", int64_t{0})
      .Input("n", T_<int32_t>({3}, {}))
      .Output("y", T_<double>({4.0 / 46.0, 1.0, 4.0 / 46.0}, {3}))
      .Tolerance(1e-12, 1e-14)
      .Run();
  OpTest("HannWindow", 17)
      .Attr("output_datatype", int64_t{7})  // int64: truncation
      .Attr("periodic", int64_t{0})
      .Input("n", T_<int32_t>({3}, {}))
      .Output("y", T_<int64_t>({0, 1, 0}, {3}))
      .Run();
  OpTest("BlackmanWindow", 17)
      .Input("n", T_<int64_t>({4}, {}))
      .Output("y", T_<float>({0.0f, 0.34f, 1.0f, 0.34f}, {4}))
      .Run();
  OpTest("HannWindow", 17)
      .Input("n", T_<int32_t>({-1}, {}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("size");
  OpTest("HannWindow", 17)
      .Attr("output_datatype", int64_t{8})  // string
      .Input("n", T_<int32_t>({3}, {}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("output_datatype");
}

TEST(MelWeightMatrixTest, SmallMatrixAndDoubleOutput) {
  // 2 mel bins over [100, 8000] Hz, dft_length 16, rate 8000: the 4 band
  // edges (mel range / 4 steps) fall on spectrogram bins 0, 1, 4, 8.
  const double t = 1.0 / 3.0;
  OpTest("MelWeightMatrix", 17)
      .Attr("output_datatype", int64_t{11})
      .Input("m", T_<int64_t>({2}, {}))
      .Input("d", T_<int64_t>({16}, {}))
      .Input("r", T_<int64_t>({8000}, {}))
      .Input("lo", T_<float>({100.f}, {}))
      .Input("hi", T_<float>({8000.f}, {}))
      .Output("y", T_<double>({0, 0,          //
                               1, 0,          //
                               2 * t, t,      //
                               t, 2 * t,      //
                               0, 1,          //
                               0, 0.75,       //
                               0, 0.5,        //
                               0, 0.25,       //
                               0, 0},
                              {9, 2}))
      .Run();
  OpTest("MelWeightMatrix", 17)
      .Input("m", T_<int64_t>({2}, {}))
      .Input("d", T_<int64_t>({8}, {}))
      .Input("r", T_<int64_t>({0}, {}))
      .Input("lo", T_<float>({0.f}, {}))
      .Input("hi", T_<float>({4000.f}, {}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("sample_rate");
}

}  // namespace
}  // namespace tessera::test
