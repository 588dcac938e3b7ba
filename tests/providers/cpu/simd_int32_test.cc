// RangeWithZeroF32, PhasePlanes and DepthwisePlane (int32 and float, the
// float one with its fused requantization too) and RequantizeI32 (simd_int32.h) against scalar references on every SIMD
// target, at lengths around the vector widths: strided and dilated planes,
// halves rounded to even, saturation at both ends, per-column scales.
#include "tessera/providers/cpu/simd_int32.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "support/simd_targets.h"

namespace tessera::cpu {
namespace {

// The int32 and the float forms of the two depthwise functions.
void PhasePlanes(const uint8_t* in, int64_t h, int64_t w, bool is_signed, int32_t zero, int64_t pad_t, int64_t pad_l,
                 int64_t rows, int64_t cols, int64_t sw, int64_t phase_w, int32_t* phases) {
  PhasePlanesI32(in, h, w, is_signed, zero, pad_t, pad_l, rows, cols, sw, phase_w, phases);
}
void PhasePlanes(const uint8_t* in, int64_t h, int64_t w, bool is_signed, int32_t zero, int64_t pad_t, int64_t pad_l,
                 int64_t rows, int64_t cols, int64_t sw, int64_t phase_w, float* phases) {
  PhasePlanesF32(in, h, w, is_signed, zero, pad_t, pad_l, rows, cols, sw, phase_w, phases);
}
void DepthwisePlane(const int32_t* phases, int64_t rows, int64_t phase_w, int64_t sh, int64_t sw, int64_t dh,
                    int64_t dw, int64_t kh, int64_t kw, const int32_t* taps, int64_t oh, int64_t ow, int32_t* y) {
  DepthwisePlaneI32(phases, rows, phase_w, sh, sw, dh, dw, kh, kw, taps, oh, ow, y);
}
void DepthwisePlane(const float* phases, int64_t rows, int64_t phase_w, int64_t sh, int64_t sw, int64_t dh,
                    int64_t dw, int64_t kh, int64_t kw, const float* taps, int64_t oh, int64_t ow, int32_t* y) {
  DepthwisePlaneF32(phases, rows, phase_w, sh, sw, dh, dw, kh, kw, taps, oh, ow, y);
}

template <typename A>
class SimdDepthwise : public testing::Test {};
using DepthwiseTypes = testing::Types<int32_t, float>;
TYPED_TEST_SUITE(SimdDepthwise, DepthwiseTypes);

// Every padded position of every phase against the definition: strides 1
// to 3, padding on each side (and past the input), widths around the
// vector lengths, int8 and uint8 bytes.
TYPED_TEST(SimdDepthwise, PhasePlanesHoldTheCenteredPaddedInput) {
  using A = TypeParam;
  test::OnEverySimdTarget([] {
    for (int64_t sw : {1, 2, 3})
      for (int64_t w : {1, 5, 16, 17, 40})
        for (bool is_signed : {false, true}) {
          const int64_t h = 4, pad_t = 1, pad_l = 2, rows = h + 3, cols = w + 4;
          const int64_t phase_w = (cols + sw - 1) / sw + 64;
          std::vector<uint8_t> in(static_cast<size_t>(h * w));
          for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 37 + 11);
          std::vector<A> phases(static_cast<size_t>(sw * rows * phase_w), A{12345});
          PhasePlanes(in.data(), h, w, is_signed, 7, pad_t, pad_l, rows, cols, sw, phase_w, phases.data());
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c) {
              const int64_t iy = r - pad_t, ix = c - pad_l;
              int32_t want = 0;
              if (iy >= 0 && iy < h && ix >= 0 && ix < w) {
                const uint8_t byte = in[static_cast<size_t>(iy * w + ix)];
                want = (is_signed ? int32_t{static_cast<int8_t>(byte)} : int32_t{byte}) - 7;
              }
              ASSERT_EQ(phases[static_cast<size_t>(((c % sw) * rows + r) * phase_w + c / sw)], static_cast<A>(want))
                  << "stride " << sw << " width " << w << (is_signed ? " int8" : " uint8") << " at " << r << "," << c;
            }
        }
  });
}

// A plane against direct sums: strides 1 to 3, dilation, taps of both
// signs at the range ends, outputs on and off the vector length, even and
// odd row counts; and the float form's largest kernel with every product
// at its extreme (the sums just below 2^24).
TYPED_TEST(SimdDepthwise, DepthwisePlaneMatchesDirectSums) {
  using A = TypeParam;
  struct Case {
    int64_t k, sw, dil, ow, oh;
    bool extreme;
  };
  std::vector<Case> cases;
  for (int64_t sw : {1, 2, 3})
    for (int64_t dil : {1, 2})
      for (int64_t ow : {1, 7, 16, 19, 40})
        for (int64_t oh : {4, 5}) cases.push_back({3, sw, dil, ow, oh, false});
  cases.push_back({16, 1, 1, 21, 3, true});  // 256 taps <= kDepthwiseF32MaxTaps
  test::OnEverySimdTarget([&] {
    for (const Case& t : cases) {
      const int64_t kh = t.k, kw = t.k, sw = t.sw, sh = sw, dil = t.dil, ow = t.ow, oh = t.oh;
      const int64_t rows = (oh - 1) * sh + (kh - 1) * dil + 1, cols = (ow - 1) * sw + (kw - 1) * dil + 1;
      const int64_t phase_w = (cols + sw - 1) / sw + 64;
      std::vector<int32_t> padded(static_cast<size_t>(rows * cols));
      for (size_t i = 0; i < padded.size(); ++i)
        padded[i] = t.extreme ? -255 : static_cast<int32_t>((i * 7919) % 511) - 255;
      std::vector<A> phases(static_cast<size_t>(sw * rows * phase_w), A{0});
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          phases[static_cast<size_t>(((c % sw) * rows + r) * phase_w + c / sw)] =
              static_cast<A>(padded[static_cast<size_t>(r * cols + c)]);
      std::vector<A> taps = {-255, 255, 3, -1, 0, 254, -128, 127, 9};
      if (t.extreme) taps.assign(static_cast<size_t>(kh * kw), A{-255});
      std::vector<int32_t> y(static_cast<size_t>(oh * ow), -7);
      DepthwisePlane(phases.data(), rows, phase_w, sh, sw, dil, dil, kh, kw, taps.data(), oh, ow, y.data());
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          int64_t want = 0;
          for (int64_t ky = 0; ky < kh; ++ky)
            for (int64_t kx = 0; kx < kw; ++kx)
              want += static_cast<int64_t>(taps[static_cast<size_t>(ky * kw + kx)]) *
                      padded[static_cast<size_t>((oy * sh + ky * dil) * cols + ox * sw + kx * dil)];
          ASSERT_EQ(y[static_cast<size_t>(oy * ow + ox)], want) << "kernel " << t.k << " stride " << sw << " dilation "
                                                                << dil << " width " << ow << " at " << oy << "," << ox;
        }
    }
  });
}

// The float plane requantized in its store, against RequantizeOne of its
// own int32 sums: scales that put many sums on half steps (the float lanes
// must defer to the double formula there), saturation at both ends, int8
// and uint8 out, widths off the vector length, and the largest kernel
// that fuses with every product at its extreme.
TEST(SimdDepthwise, FusedRequantizationMatchesTheDoubleFormula) {
  struct Case {
    int64_t k, ow, oh;
    bool extreme;
  };
  const Case cases[] = {{3, 1, 3, false}, {3, 19, 4, false}, {3, 40, 5, false}, {11, 9, 2, true}};  // 121 taps <= kDepthwiseFusedMaxTaps
  test::OnEverySimdTarget([&] {
    for (const Case& t : cases)
      for (double scale : {1.0 / 64, 1.0 / 3000, 0.37, 2.0})
        for (bool out_signed : {false, true}) {
          SCOPED_TRACE(testing::Message() << "kernel " << t.k << " width " << t.ow << " scale " << scale
                                          << (out_signed ? " int8" : " uint8"));
          const int64_t kh = t.k, kw = t.k, ow = t.ow, oh = t.oh, rows = oh + kh - 1, cols = ow + kw - 1;
          const int64_t phase_w = cols + 64;
          std::vector<float> phases(static_cast<size_t>(rows * phase_w), 0.f);
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c)
              phases[static_cast<size_t>(r * phase_w + c)] =
                  t.extreme ? 255.f : static_cast<float>(static_cast<int32_t>((r * 131 + c * 7919) % 511) - 255);
          std::vector<float> taps(static_cast<size_t>(kh * kw));
          for (size_t i = 0; i < taps.size(); ++i)
            taps[i] = t.extreme ? 255.f : static_cast<float>(static_cast<int32_t>((i * 37) % 255) - 127);
          ASSERT_LE(kh * kw, kDepthwiseFusedMaxTaps);
          std::vector<int32_t> sums(static_cast<size_t>(oh * ow));
          DepthwisePlaneF32(phases.data(), rows, phase_w, 1, 1, 1, 1, kh, kw, taps.data(), oh, ow, sums.data());
          std::vector<uint8_t> got(sums.size() + 8, 0xAB);  // past the end stays untouched
          DepthwiseRequant rq{-301, scale, out_signed ? -3 : 120, out_signed, got.data()};
          ASSERT_TRUE(DepthwiseRequantFuses(rq, kh * kw));
          std::vector<int32_t> unused(sums.size(), 0);
          DepthwisePlaneF32(phases.data(), rows, phase_w, 1, 1, 1, 1, kh, kw, taps.data(), oh, ow, unused.data(), &rq);
          for (size_t i = 0; i < sums.size(); ++i)
            ASSERT_EQ(got[i], RequantizeOne(sums[i], rq.bias, scale, rq.zero, out_signed)) << "at " << i;
          for (size_t i = sums.size(); i < got.size(); ++i) ASSERT_EQ(got[i], 0xAB) << "past the plane at " << i;
          EXPECT_EQ(unused, std::vector<int32_t>(sums.size(), 0)) << "the int32 plane is not written";
        }
  });
}

TEST(SimdDepthwise, RequantizationDoesNotFuseForLargeKernelsOrBiases) {
  DepthwiseRequant rq;
  EXPECT_TRUE(DepthwiseRequantFuses(rq, kDepthwiseFusedMaxTaps));
  EXPECT_FALSE(DepthwiseRequantFuses(rq, kDepthwiseFusedMaxTaps + 1));
  rq.bias = 1 << 23;
  EXPECT_FALSE(DepthwiseRequantFuses(rq, 9));
  rq.bias = 0, rq.scale = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(DepthwiseRequantFuses(rq, 9));
}

template <typename T>
T Expected(int32_t acc, int32_t add, double scale, int32_t zero) {
  const double lo = std::is_signed_v<T> ? -128.0 : 0.0, hi = std::is_signed_v<T> ? 127.0 : 255.0;
  return static_cast<T>(std::clamp(std::nearbyint((static_cast<double>(acc) + add) * scale) + zero, lo, hi));
}

TEST(SimdInt32, RequantizeRoundsHalvesToEvenAndSaturates) {
  test::OnEverySimdTarget([] {
    for (int64_t n : {1, 3, 4, 8, 9, 33}) {
      std::vector<int32_t> acc(static_cast<size_t>(n));
      std::vector<double> per(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        // Multiples of 5 at scale 0.1 hit exact halves (2.5, -7.5, ...).
        acc[static_cast<size_t>(i)] = static_cast<int32_t>((i % 7 - 3) * 25 + (i % 2 ? 2147480000 * (i % 3 - 1) : 0));
        per[static_cast<size_t>(i)] = 0.1 * static_cast<double>(i % 4 + 1);
      }
      for (bool column : {false, true}) {
        std::vector<int8_t> s8(static_cast<size_t>(n));
        std::vector<uint8_t> u8(static_cast<size_t>(n));
        RequantizeI32(acc.data(), n, column ? 0 : 5, 0.1, column ? per.data() : nullptr, -3, true, s8.data());
        RequantizeI32(acc.data(), n, column ? 0 : 5, 0.1, column ? per.data() : nullptr, 130, false, u8.data());
        for (int64_t i = 0; i < n; ++i) {
          const double s = column ? per[static_cast<size_t>(i)] : 0.1;
          const int32_t add = column ? 0 : 5;
          EXPECT_EQ(s8[static_cast<size_t>(i)], Expected<int8_t>(acc[static_cast<size_t>(i)], add, s, -3)) << i;
          EXPECT_EQ(u8[static_cast<size_t>(i)], Expected<uint8_t>(acc[static_cast<size_t>(i)], add, s, 130)) << i;
        }
      }
    }
  });
}

// One scale takes a float path that must still give the double formula's
// result: values a hair from half steps (where float rounding alone would
// flip them), sums that do not convert to float exactly, huge scales and
// biases past 2^23, over lengths that leave vector tails.
TEST(SimdInt32, RequantizeWithOneScaleMatchesTheDoubleFormulaNearHalfSteps) {
  test::OnEverySimdTarget([] {
    const double scales[] = {0.1, 1.0 / 3.0, 0.5 + 1e-9, 0.5 - 1e-9, 0.0123456789, 1e-5, 3e4, 1e31};
    const int32_t adds[] = {0, 5, -9000000, 8388608};
    for (int64_t n : {5, 16, 47, 1000}) {
      std::vector<int32_t> acc(static_cast<size_t>(n));
      uint32_t state = 12345u;
      for (int64_t i = 0; i < n; ++i) {
        state = state * 1664525u + 1013904223u;
        int32_t v = static_cast<int32_t>(state >> 12) - (1 << 19);  // within 2^20
        if (i % 5 == 1) v = 2 * (v % 600) + 1;                      // odd: halves at scale 0.5
        if (i % 13 == 3) v = static_cast<int32_t>(state) | 0x40000000;  // past 2^23
        acc[static_cast<size_t>(i)] = v;
      }
      for (double scale : scales)
        for (int32_t add : adds) {
          std::vector<int8_t> s8(static_cast<size_t>(n));
          std::vector<uint8_t> u8(static_cast<size_t>(n));
          RequantizeI32(acc.data(), n, add, scale, nullptr, -7, true, s8.data());
          RequantizeI32(acc.data(), n, add, scale, nullptr, 128, false, u8.data());
          for (int64_t i = 0; i < n; ++i) {
            const int32_t a = acc[static_cast<size_t>(i)];
            ASSERT_EQ(s8[static_cast<size_t>(i)], Expected<int8_t>(a, add, scale, -7))
                << "acc " << a << " add " << add << " scale " << scale;
            ASSERT_EQ(u8[static_cast<size_t>(i)], Expected<uint8_t>(a, add, scale, 128))
                << "acc " << a << " add " << add << " scale " << scale;
          }
        }
    }
  });
}

TEST(SimdInt32, RequantizeGivesTheZeroPointForANaNScale) {
  test::OnEverySimdTarget([] {
    const std::vector<int32_t> acc = {0, 5, -7, 1000000, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
    const int64_t n = static_cast<int64_t>(acc.size());
    std::vector<double> per(acc.size(), std::nan(""));
    per[1] = 2.0;
    per[2] = INFINITY;  // -7 * inf saturates; 0 * inf (NaN) would give the zero point
    std::vector<uint8_t> u8(acc.size());
    RequantizeI32(acc.data(), n, 0, std::nan(""), nullptr, 40, false, u8.data());
    EXPECT_EQ(u8, std::vector<uint8_t>(acc.size(), 40));
    RequantizeI32(acc.data(), n, 0, 0.0, per.data(), 40, false, u8.data());
    EXPECT_EQ(u8[0], 40);
    EXPECT_EQ(u8[1], 50);
    EXPECT_EQ(u8[2], 0);
    for (size_t i = 3; i < acc.size(); ++i) EXPECT_EQ(u8[i], 40) << i;
  });
}

TEST(SimdInt32, QuantizeAndDequantizeMatchTheScalarFormulas) {
  const float s = 0.37f;
  std::vector<float> x;
  for (int i = -300; i <= 300; ++i) x.push_back(static_cast<float>(i) * 0.5f * s);
  for (float v : {NAN, INFINITY, -INFINITY, 3e9f, -3e9f, -0.0f}) x.push_back(v);
  test::OnEverySimdTarget([&] {
    for (int64_t n : {int64_t{1}, int64_t{15}, int64_t{16}, static_cast<int64_t>(x.size())})
      for (bool is_signed : {false, true}) {
        const float zp = is_signed ? -9.f : 77.f, lo = is_signed ? -128.f : 0.f, hi = is_signed ? 127.f : 255.f;
        std::vector<uint8_t> q(static_cast<size_t>(n));
        QuantizeF32(x.data(), n, s, zp, is_signed, q.data());
        std::vector<float> back(static_cast<size_t>(n));
        DequantizeToF32(q.data(), is_signed, n, s, zp, back.data());
        for (int64_t i = 0; i < n; ++i) {
          const float v = x[static_cast<size_t>(i)] / s;
          const float want = std::isnan(v) ? zp : std::clamp(std::nearbyint(std::clamp(v, -4194304.f, 4194304.f)) + zp, lo, hi);
          const float got = is_signed ? static_cast<float>(static_cast<int8_t>(q[static_cast<size_t>(i)]))
                                      : static_cast<float>(q[static_cast<size_t>(i)]);
          EXPECT_EQ(got, want) << i;
          EXPECT_EQ(back[static_cast<size_t>(i)], (got - zp) * s) << i;
        }
      }
  });
}

}  // namespace
}  // namespace tessera::cpu
