// ConvInteger and QLinearConv on the int8 GEMM path (int8_conv.h): weights
// constant (packed at creation) or fed, int8 and uint8 data at their range
// ends, per-channel weight zero points and scales, padding (which must add
// nothing: it holds the input's zero point), stride, dilation, two groups,
// two images, bias; each against a direct integer convolution.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "support/int8_forms.h"
#include "support/op_test.h"
#include "tessera/providers/cpu/int8_gemm.h"

namespace tessera::test {
namespace {

template <typename T>
std::vector<T> RandomBytes(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  const int32_t lo = std::is_signed_v<T> ? -128 : 0, hi = std::is_signed_v<T> ? 127 : 255;
  std::vector<T> v(static_cast<size_t>(n));
  for (auto& x : v) {
    const uint32_t r = rng();
    x = static_cast<T>(r % 3 == 0 ? (r & 8 ? lo : hi) : lo + static_cast<int32_t>(r % 256));
  }
  return v;
}

struct Geometry {
  int64_t n = 2, c = 6, h = 9, w = 8, m = 10, k = 3, group = 2, stride = 2, dil = 1, pad = 1;
  int64_t oh() const { return (h + 2 * pad - (k - 1) * dil - 1) / stride + 1; }
  int64_t ow() const { return (w + 2 * pad - (k - 1) * dil - 1) / stride + 1; }
};

// Sums [n, m, oh, ow] of (x - xz)(w - wz[m]) over each window, directly.
template <typename X, typename W>
std::vector<int64_t> DirectSums(const Geometry& g, const std::vector<X>& x, int32_t xz, const std::vector<W>& w,
                                const std::vector<int32_t>& wz) {
  const int64_t cg = g.c / g.group, mg = g.m / g.group, oh = g.oh(), ow = g.ow();
  std::vector<int64_t> y(static_cast<size_t>(g.n * g.m * oh * ow));
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t m = 0; m < g.m; ++m)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          int64_t s = 0;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t ky = 0; ky < g.k; ++ky)
              for (int64_t kx = 0; kx < g.k; ++kx) {
                const int64_t iy = oy * g.stride - g.pad + ky * g.dil, ix = ox * g.stride - g.pad + kx * g.dil;
                if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
                const int64_t ci = (m / mg) * cg + c;
                s += (int64_t{x[static_cast<size_t>(((n * g.c + ci) * g.h + iy) * g.w + ix)]} - xz) *
                     (int64_t{w[static_cast<size_t>(((m * cg + c) * g.k + ky) * g.k + kx)]} -
                      wz[wz.size() == 1 ? 0 : static_cast<size_t>(m)]);
              }
          y[static_cast<size_t>(((n * g.m + m) * oh + oy) * ow + ox)] = s;
        }
  return y;
}

template <typename T>
OpTest& Weights(OpTest& t, const std::string& name, const Tensor& w, bool constant) {
  return constant ? t.ConstantInput(name, w) : t.Input(name, w);
}

template <typename X, typename W>
void CheckConvInteger(const Geometry& g, bool constant_w, int threads) {
  const auto x = RandomBytes<X>(g.n * g.c * g.h * g.w, 1);
  const auto w = RandomBytes<W>(g.m * (g.c / g.group) * g.k * g.k, 2);
  const int32_t xz = std::is_signed_v<X> ? 127 : 255;
  std::vector<int32_t> wz(static_cast<size_t>(g.m));
  for (size_t i = 0; i < wz.size(); ++i) wz[i] = std::is_signed_v<W> ? (i % 2 ? -128 : 3) : (i % 2 ? 255 : 0);
  const auto want = DirectSums(g, x, xz, w, wz);
  OpTest t("ConvInteger", 10);
  t.Input("x", T_<X>(x, {g.n, g.c, g.h, g.w}));
  Weights<W>(t, "w", T_<W>(w, {g.m, g.c / g.group, g.k, g.k}), constant_w);
  t.ConstantInput("x_zero_point", T_<X>({static_cast<X>(xz)}, {}))
      .ConstantInput("w_zero_point", T_<W>(std::vector<W>(wz.begin(), wz.end()), {g.m}))
      .Attr("group", g.group)
      .Attr("strides", std::vector<int64_t>{g.stride, g.stride})
      .Attr("dilations", std::vector<int64_t>{g.dil, g.dil})
      .Attr("pads", std::vector<int64_t>{g.pad, g.pad, g.pad, g.pad})
      .Output("y", T_<int32_t>(std::vector<int32_t>(want.begin(), want.end()), {g.n, g.m, g.oh(), g.ow()}))
      .Threads(threads)
      .Run();
}

TEST(QuantizedConv, ConvIntegerIsExactOnTheInt8Path) {
  Geometry dilated;
  dilated.group = 1, dilated.m = 8, dilated.stride = 1, dilated.dil = 2, dilated.pad = 2;
  // Strided and dilated: the patch matrix (im2col); the others read taps
  // as slices of the padded image or of its stride phases.
  Geometry strided_dilated = dilated;
  strided_dilated.stride = 2;
  // ResNet's stem: 7x7, stride 2, pad 3, three channels.
  Geometry stem;
  stem.n = 1, stem.c = 3, stem.group = 1, stem.m = 8, stem.h = 15, stem.w = 13, stem.k = 7, stem.pad = 3;
  for (const Int8Form& form : kInt8Forms) {
    ScopedInt8Form scoped(form);
    for (const Geometry& g : {Geometry{}, dilated, strided_dilated, stem})
      for (bool constant_w : {true, false})
        for (int threads : {1, 2}) {
          SCOPED_TRACE(testing::Message() << "kernel " << g.k << ", stride " << g.stride << ", group " << g.group
                                          << ", dilation " << g.dil << (constant_w ? ", constant w" : ", w fed")
                                          << ", " << threads << " threads, " << form.name);
          CheckConvInteger<uint8_t, int8_t>(g, constant_w, threads);
          CheckConvInteger<uint8_t, uint8_t>(g, constant_w, threads);
          CheckConvInteger<int8_t, int8_t>(g, constant_w, threads);
        }
  }
}

TEST(QuantizedConv, DepthwiseConvIntegerIsExact) {
  for (int64_t stride : {1, 2})
    for (int64_t dil : {1, 2}) {
      Geometry g;
      g.c = g.m = g.group = 7, g.h = 11, g.w = 10, g.stride = stride, g.dil = dil, g.pad = dil;
      SCOPED_TRACE(testing::Message() << "stride " << stride << ", dilation " << dil);
      for (bool constant_w : {true, false}) {
        CheckConvInteger<uint8_t, int8_t>(g, constant_w, 2);
        CheckConvInteger<int8_t, uint8_t>(g, constant_w, 1);
      }
    }
}

// y = saturate(round((sum + bias) * xs * ws[m] / ys) + yz), requantized
// in the GEMM's store (int8_gemm.h): K within one k-block and past it (the
// earlier blocks' sums kept in the scratch), depthwise, a product split by
// rows, int8 and uint8 outputs, weights constant (packed once) or fed, on
// each packed form (kInt8Forms), at 1 and 2 threads.
template <typename Y>
void CheckQLinearConv(const Geometry& g, bool constant_w, int threads) {
  const auto x = RandomBytes<uint8_t>(g.n * g.c * g.h * g.w, 3);
  const auto w = RandomBytes<int8_t>(g.m * (g.c / g.group) * g.k * g.k, 4);
  const uint8_t xz = 120;
  std::vector<int8_t> wz(static_cast<size_t>(g.m), 0);
  std::vector<float> ws(static_cast<size_t>(g.m));
  std::vector<int32_t> bias(static_cast<size_t>(g.m));
  const double k = static_cast<double>(g.c / g.group * g.k * g.k);
  for (int64_t m = 0; m < g.m; ++m) {
    // Scales that spread the sums over the output's range and past it.
    ws[static_cast<size_t>(m)] = static_cast<float>(0.03 * static_cast<double>(m + 1) / k);
    bias[static_cast<size_t>(m)] = static_cast<int32_t>(m * 997 - 4000);
  }
  const float xs = 0.02f, ys = 0.05f;
  const Y yz = static_cast<Y>(std::is_signed_v<Y> ? -3 : 128);
  const double lo = std::is_signed_v<Y> ? -128.0 : 0.0, hi = std::is_signed_v<Y> ? 127.0 : 255.0;
  const auto sums = DirectSums(g, x, xz, w, std::vector<int32_t>(wz.begin(), wz.end()));
  const int64_t plane = g.oh() * g.ow();
  std::vector<Y> want(sums.size());
  int saturated = 0, inside = 0;
  for (size_t i = 0; i < sums.size(); ++i) {
    const size_t m = static_cast<size_t>((static_cast<int64_t>(i) / plane) % g.m);
    const double v = std::nearbyint(static_cast<double>(sums[i] + bias[m]) * xs * ws[m] / ys) + yz;
    saturated += v < lo || v > hi;
    inside += v > lo && v < hi;
    want[i] = static_cast<Y>(std::clamp(v, lo, hi));
  }
  EXPECT_GT(saturated, 0) << "the data reaches the output's saturation";
  EXPECT_GT(inside, saturated / 4) << "most of the data lies inside the output's range";
  OpTest t("QLinearConv", 10);
  t.Input("x", T_<uint8_t>(x, {g.n, g.c, g.h, g.w}))
      .ConstantInput("x_scale", T_<float>({xs}, {}))
      .ConstantInput("x_zero_point", T_<uint8_t>({xz}, {}));
  Weights<int8_t>(t, "w", T_<int8_t>(w, {g.m, g.c / g.group, g.k, g.k}), constant_w);
  t.ConstantInput("w_scale", T_<float>(ws, {g.m}))
      .ConstantInput("w_zero_point", T_<int8_t>(wz, {g.m}))
      .ConstantInput("y_scale", T_<float>({ys}, {}))
      .ConstantInput("y_zero_point", T_<Y>({yz}, {}))
      .ConstantInput("B", T_<int32_t>(bias, {g.m}))
      .Attr("group", g.group)
      .Attr("strides", std::vector<int64_t>{g.stride, g.stride})
      .Attr("pads", std::vector<int64_t>{g.pad, g.pad, g.pad, g.pad})
      .Output("y", T_<Y>(want, {g.n, g.m, g.oh(), g.ow()}))
      .Threads(threads)
      .Run();
}

TEST(QuantizedConv, QLinearConvRequantizesPerChannel) {
  Geometry deep;  // K = 576: three k-blocks of the quad kernel
  deep.n = 1, deep.c = 64, deep.group = 1, deep.m = 20, deep.h = 7, deep.w = 6, deep.stride = 1;
  Geometry depthwise;
  depthwise.c = depthwise.m = depthwise.group = 8;
  // More output channels than pixels, and enough work for 2 threads: the
  // product splits by rows, in whole panels of the packed weights.
  Geometry tall;
  tall.n = 1, tall.c = 144, tall.group = 1, tall.m = 52, tall.h = tall.w = 3, tall.stride = 1;
  for (const Int8Form& form : kInt8Forms) {
    ScopedInt8Form scoped(form);
    for (const Geometry& g : {Geometry{}, deep, depthwise, tall})
      for (bool constant_w : {true, false})
        for (int threads : {1, 2}) {
          SCOPED_TRACE(testing::Message() << "K " << g.c / g.group * g.k * g.k << ", group " << g.group
                                          << (constant_w ? ", constant w" : ", w fed") << ", " << threads
                                          << " threads, " << form.name);
          CheckQLinearConv<uint8_t>(g, constant_w, threads);
          CheckQLinearConv<int8_t>(g, constant_w, threads);
        }
  }
}

}  // namespace
}  // namespace tessera::test
