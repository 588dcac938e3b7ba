// Unit tests of the conv family against straightforward reference loops.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "support/op_test.h"

namespace tessera::test {
namespace {

using Ints = std::vector<int64_t>;

std::vector<float> Pseudo(int64_t n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>((s >> 9) % 2001) / 1000.0f - 1.0f;
  }
  return v;
}

int64_t Prod(const Shape& s, size_t from = 0) {
  int64_t n = 1;
  for (size_t i = from; i < s.size(); ++i) n *= s[i];
  return n;
}

// Decomposes flat index i over `dims` (row-major).
Ints Unflatten(int64_t i, const Shape& dims) {
  Ints idx(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    idx[d] = i % dims[d];
    i /= dims[d];
  }
  return idx;
}

struct ConvCase {
  Shape x, w;  // NC(D...) and M(C/g)(k...)
  int64_t group = 1;
  Ints strides, dilations, pads_begin, pads_end;
};

// Direct N-D convolution; returns the output and its shape.
std::vector<float> RefConv(const ConvCase& c, const std::vector<float>& x, const std::vector<float>& w,
                           const std::vector<float>& b, Shape* out_shape) {
  size_t nsp = c.x.size() - 2;
  int64_t n = c.x[0], ch = c.x[1], m = c.w[0], cg = ch / c.group, mg = m / c.group;
  Shape in(c.x.begin() + 2, c.x.end()), k(c.w.begin() + 2, c.w.end()), out(nsp);
  for (size_t d = 0; d < nsp; ++d)
    out[d] = (in[d] + c.pads_begin[d] + c.pads_end[d] - ((k[d] - 1) * c.dilations[d] + 1)) / c.strides[d] + 1;
  *out_shape = {n, m};
  out_shape->insert(out_shape->end(), out.begin(), out.end());
  int64_t osz = Prod(out), isz = Prod(in), ksz = Prod(k);
  std::vector<float> y(static_cast<size_t>(n * m * osz));
  for (int64_t bn = 0; bn < n; ++bn)
    for (int64_t om = 0; om < m; ++om)
      for (int64_t o = 0; o < osz; ++o) {
        Ints oi = Unflatten(o, out);
        float s = b.empty() ? 0.0f : b[static_cast<size_t>(om)];
        int64_t gi = om / mg;
        for (int64_t ic = 0; ic < cg; ++ic)
          for (int64_t kk = 0; kk < ksz; ++kk) {
            Ints ki = Unflatten(kk, k);
            int64_t off = 0;
            bool inside = true;
            for (size_t d = 0; d < nsp; ++d) {
              int64_t p = oi[d] * c.strides[d] - c.pads_begin[d] + ki[d] * c.dilations[d];
              if (p < 0 || p >= in[d]) inside = false;
              off = off * in[d] + p;
            }
            if (!inside) continue;
            s += x[static_cast<size_t>((bn * ch + gi * cg + ic) * isz + off)] *
                 w[static_cast<size_t>((om * cg + ic) * ksz + kk)];
          }
        y[static_cast<size_t>((bn * m + om) * osz + o)] = s;
      }
  return y;
}

void RunConvCase(const ConvCase& c, bool with_bias) {
  auto x = Pseudo(Prod(c.x), 7), w = Pseudo(Prod(c.w), 11);
  std::vector<float> b = with_bias ? Pseudo(c.w[0], 13) : std::vector<float>{};
  Shape os;
  auto y = RefConv(c, x, w, b, &os);
  Ints pads = c.pads_begin;
  pads.insert(pads.end(), c.pads_end.begin(), c.pads_end.end());
  OpTest t("Conv", 22);
  t.Attr("group", c.group).Attr("strides", c.strides).Attr("dilations", c.dilations).Attr("pads", pads);
  t.Input("x", T_<float>(x, c.x)).Input("w", T_<float>(w, c.w));
  if (with_bias) t.Input("b", T_<float>(b, {c.w[0]}));
  t.Output("y", T_<float>(y, os)).Tolerance(1e-4, 1e-4).Run();
}

TEST(Conv, MatchesReference2D) {
  RunConvCase({{2, 3, 7, 6}, {4, 3, 3, 2}, 1, {1, 1}, {1, 1}, {1, 0}, {1, 1}}, true);
  RunConvCase({{1, 4, 9, 8}, {6, 2, 3, 3}, 2, {2, 3}, {1, 2}, {2, 1}, {0, 2}}, false);
  RunConvCase({{1, 2, 5, 5}, {3, 2, 1, 1}, 1, {1, 1}, {1, 1}, {0, 0}, {0, 0}}, true);  // pointwise
  RunConvCase({{1, 2, 5, 5}, {3, 2, 1, 1}, 1, {2, 2}, {1, 1}, {1, 1}, {1, 1}}, true);  // strided 1x1 with pads
}

TEST(Conv, DepthwiseMatchesReference) {
  RunConvCase({{2, 3, 8, 7}, {3, 1, 3, 3}, 3, {1, 1}, {1, 1}, {1, 1}, {1, 1}}, true);
  RunConvCase({{1, 2, 9, 9}, {4, 1, 3, 2}, 2, {2, 3}, {2, 1}, {0, 2}, {3, 1}}, true);  // multiplier 2
}

TEST(Conv, MatchesReference1DAnd3D) {
  RunConvCase({{2, 3, 11}, {2, 3, 4}, 1, {2}, {2}, {3}, {1}}, true);
  RunConvCase({{1, 2, 11}, {2, 1, 3}, 2, {1}, {1}, {1}, {1}}, false);
  RunConvCase({{1, 2, 5, 4, 6}, {3, 2, 2, 3, 2}, 1, {1, 2, 1}, {2, 1, 1}, {1, 0, 1}, {0, 1, 1}}, true);
}

TEST(Conv, AutoPadSame) {
  // 5x5 ones, 3x3 ones kernel, stride 2: SAME_UPPER pads (0 begin, 0 end)... total 2 -> 1/1.
  std::vector<float> x(25, 1.0f), w(9, 1.0f);
  OpTest("Conv", 11)
      .Attr("auto_pad", std::string("SAME_UPPER"))
      .Attr("strides", Ints{2, 2})
      .Input("x", T_<float>(x, {1, 1, 5, 5}))
      .Input("w", T_<float>(w, {1, 1, 3, 3}))
      .Output("y", T_<float>({4, 6, 4, 6, 9, 6, 4, 6, 4}, {1, 1, 3, 3}))
      .Run();
  // 4 wide, kernel 2, stride 1: total pad 1; SAME_UPPER puts it at the end, SAME_LOWER at the start.
  OpTest("Conv", 11)
      .Attr("auto_pad", std::string("SAME_UPPER"))
      .Input("x", T_<float>({1, 2, 3, 4}, {1, 1, 4}))
      .Input("w", T_<float>({1, 10}, {1, 1, 2}))
      .Output("y", T_<float>({21, 32, 43, 4}, {1, 1, 4}))
      .Run();
  OpTest("Conv", 11)
      .Attr("auto_pad", std::string("SAME_LOWER"))
      .Input("x", T_<float>({1, 2, 3, 4}, {1, 1, 4}))
      .Input("w", T_<float>({1, 10}, {1, 1, 2}))
      .Output("y", T_<float>({10, 21, 32, 43}, {1, 1, 4}))
      .Run();
}

TEST(Conv, RejectsBadInputs) {
  OpTest("Conv", 22)
      .Input("x", T_<float>(Pseudo(18, 1), {1, 2, 3, 3}))
      .Input("w", T_<float>(Pseudo(9, 1), {1, 1, 3, 3}))
      .Output("y", T_<float>({}, {1, 1, 1, 1}))
      .ExpectFailure("input channels");
  OpTest("Conv", 22)
      .Input("x", T_<float>(Pseudo(4, 1), {1, 1, 2, 2}))
      .Input("w", T_<float>(Pseudo(9, 1), {1, 1, 3, 3}))
      .Output("y", T_<float>({}, {1, 1, 1, 1}))
      .ExpectFailure("larger than the padded input");
  OpTest("Conv", 22)
      .Input("x", T_<float>(Pseudo(9, 1), {1, 1, 3, 3}))
      .Input("w", T_<float>(Pseudo(4, 1), {1, 1, 2, 2}))
      .Input("b", T_<float>({1, 2}, {2}))
      .Output("y", T_<float>({}, {1, 1, 2, 2}))
      .ExpectFailure("bias");
}

TEST(Conv, EmptyBatch) {
  OpTest("Conv", 22)
      .Input("x", T_<float>({}, {0, 1, 3, 3}))
      .Input("w", T_<float>(Pseudo(4, 1), {1, 1, 2, 2}))
      .Output("y", T_<float>({}, {0, 1, 2, 2}))
      .Run();
}

// Reference transposed convolution by scattering each input element.
std::vector<float> RefConvTranspose(const ConvCase& c, const Ints& out, const std::vector<float>& x,
                                    const std::vector<float>& w, const std::vector<float>& b) {
  size_t nsp = c.x.size() - 2;
  int64_t n = c.x[0], ch = c.x[1], cg = ch / c.group, mg = c.w[1], m = mg * c.group;
  Shape in(c.x.begin() + 2, c.x.end()), k(c.w.begin() + 2, c.w.end());
  int64_t osz = Prod(out), isz = Prod(in), ksz = Prod(k);
  std::vector<float> y(static_cast<size_t>(n * m * osz), 0.0f);
  for (int64_t bn = 0; bn < n; ++bn)
    for (int64_t ic = 0; ic < ch; ++ic)
      for (int64_t i = 0; i < isz; ++i) {
        Ints ii = Unflatten(i, in);
        float xv = x[static_cast<size_t>((bn * ch + ic) * isz + i)];
        int64_t gi = ic / cg;
        for (int64_t j = 0; j < mg; ++j)
          for (int64_t kk = 0; kk < ksz; ++kk) {
            Ints ki = Unflatten(kk, k);
            int64_t off = 0;
            bool inside = true;
            for (size_t d = 0; d < nsp; ++d) {
              int64_t p = ii[d] * c.strides[d] - c.pads_begin[d] + ki[d] * c.dilations[d];
              if (p < 0 || p >= out[d]) inside = false;
              off = off * out[d] + p;
            }
            if (!inside) continue;
            y[static_cast<size_t>((bn * m + gi * mg + j) * osz + off)] +=
                xv * w[static_cast<size_t>((ic * mg + j) * ksz + kk)];
          }
      }
  if (!b.empty())
    for (int64_t bn = 0; bn < n; ++bn)
      for (int64_t om = 0; om < m; ++om)
        for (int64_t o = 0; o < osz; ++o) y[static_cast<size_t>((bn * m + om) * osz + o)] += b[static_cast<size_t>(om)];
  return y;
}

void RunConvTransposeCase(const ConvCase& c, const Ints& output_padding, bool with_bias) {
  size_t nsp = c.x.size() - 2;
  Ints out(nsp);
  for (size_t d = 0; d < nsp; ++d)
    out[d] = c.strides[d] * (c.x[d + 2] - 1) + output_padding[d] + (c.w[d + 2] - 1) * c.dilations[d] + 1 -
             c.pads_begin[d] - c.pads_end[d];
  int64_t m = c.w[1] * c.group;
  auto x = Pseudo(Prod(c.x), 3), w = Pseudo(Prod(c.w), 5);
  std::vector<float> b = with_bias ? Pseudo(m, 9) : std::vector<float>{};
  auto y = RefConvTranspose(c, out, x, w, b);
  Shape os = {c.x[0], m};
  os.insert(os.end(), out.begin(), out.end());
  Ints pads = c.pads_begin;
  pads.insert(pads.end(), c.pads_end.begin(), c.pads_end.end());
  OpTest t("ConvTranspose", 22);
  t.Attr("group", c.group).Attr("strides", c.strides).Attr("dilations", c.dilations).Attr("pads", pads);
  t.Attr("output_padding", output_padding);
  t.Input("x", T_<float>(x, c.x)).Input("w", T_<float>(w, c.w));
  if (with_bias) t.Input("b", T_<float>(b, {m}));
  t.Output("y", T_<float>(y, os)).Tolerance(1e-4, 1e-4).Run();
}

TEST(ConvTranspose, MatchesReference) {
  RunConvTransposeCase({{2, 3, 4, 5}, {3, 2, 3, 2}, 1, {2, 1}, {1, 2}, {1, 0}, {0, 1}}, {1, 0}, true);
  RunConvTransposeCase({{1, 4, 3, 3}, {4, 3, 2, 2}, 2, {3, 2}, {1, 1}, {0, 0}, {0, 0}}, {2, 1}, false);
  RunConvTransposeCase({{1, 2, 7}, {2, 2, 3}, 1, {2}, {2}, {1}, {2}}, {1}, true);
  RunConvTransposeCase({{1, 2, 2, 3, 2}, {2, 1, 2, 2, 3}, 1, {1, 2, 1}, {1, 1, 2}, {0, 1, 0}, {1, 0, 0}},
                       {0, 1, 0}, true);
}

TEST(ConvTranspose, OutputShapeAttribute) {
  // [1,1,3] x kernel 3, stride 2: natural length 7; output_shape 8 pads one at the end.
  std::vector<float> x = {1, 2, 3}, w = {1, 1, 1};
  OpTest("ConvTranspose", 22)
      .Attr("strides", Ints{2})
      .Attr("output_shape", Ints{8})
      .Input("x", T_<float>(x, {1, 1, 3}))
      .Input("w", T_<float>(w, {1, 1, 3}))
      .Output("y", T_<float>({1, 1, 3, 2, 5, 3, 3, 0}, {1, 1, 8}))
      .Run();
}

TEST(ConvInteger, PerChannelWeightZeroPoints) {
  // x uint8 [1,1,2,2] zp 1; w uint8 [2,1,1,1] zp [2, 0]
  OpTest("ConvInteger", 10)
      .Input("x", T_<uint8_t>({1, 2, 3, 4}, {1, 1, 2, 2}))
      .Input("w", T_<uint8_t>({5, 1}, {2, 1, 1, 1}))
      .Input("xz", T_<uint8_t>({1}, {}))
      .Input("wz", T_<uint8_t>({2, 0}, {2}))
      .Output("y", T_<int32_t>({0, 3, 6, 9, 0, 1, 2, 3}, {1, 2, 2, 2}))
      .Run();
  // Padding contributes the zero point (i.e. nothing after centering).
  OpTest("ConvInteger", 10)
      .Attr("pads", Ints{1, 1, 1, 1})
      .Input("x", T_<int8_t>({5}, {1, 1, 1, 1}))
      .Input("w", T_<int8_t>({1, 1, 1, 1}, {1, 1, 2, 2}))
      .Input("xz", T_<int8_t>({3}, {}))
      .Output("y", T_<int32_t>({2, 2, 2, 2}, {1, 1, 2, 2}))
      .Run();
}

TEST(QLinearConv, RequantizesPerChannel) {
  // x real = (x - 0) * 0.5; w real = w * [1, 2]; y = real / 1 + 5 with bias [1, -2] in acc units.
  OpTest("QLinearConv", 10)
      .Input("x", T_<uint8_t>({2, 4}, {1, 1, 1, 2}))
      .Input("xs", T_<float>({0.5f}, {}))
      .Input("xz", T_<uint8_t>({0}, {}))
      .Input("w", T_<int8_t>({3, -1}, {2, 1, 1, 1}))
      .Input("ws", T_<float>({1.0f, 2.0f}, {2}))
      .Input("wz", T_<int8_t>({0, 0}, {2}))
      .Input("ys", T_<float>({1.0f}, {}))
      .Input("yz", T_<uint8_t>({5}, {}))
      .Input("b", T_<int32_t>({1, -2}, {2}))
      .Output("y", T_<uint8_t>({9, 11, 1, 0}, {1, 2, 1, 2}))
      .Run();
}

TEST(DeformConv, ZeroOffsetsEqualConvAndShiftSamples) {
  ConvCase c{{1, 2, 5, 4}, {2, 2, 2, 2}, 1, {1, 1}, {1, 1}, {0, 0}, {0, 0}};
  auto x = Pseudo(Prod(c.x), 21), w = Pseudo(Prod(c.w), 23), b = Pseudo(2, 25);
  Shape os;
  auto y = RefConv(c, x, w, b, &os);
  std::vector<float> off(static_cast<size_t>(1 * 8 * 4 * 3), 0.0f);
  OpTest("DeformConv", 22)
      .Attr("kernel_shape", Ints{2, 2})
      .Input("x", T_<float>(x, c.x))
      .Input("w", T_<float>(w, c.w))
      .Input("offset", T_<float>(off, {1, 8, 4, 3}))
      .Input("b", T_<float>(b, {2}))
      .Output("y", T_<float>(y, os))
      .Tolerance(1e-4, 1e-4)
      .Run();
  // 1x1 kernel sampling half a pixel to the right with mask 0.5: y = 0.5 * (x[i] + x[i+1]) / 2.
  OpTest("DeformConv", 22)
      .Input("x", T_<float>({2, 4, 8}, {1, 1, 1, 3}))
      .Input("w", T_<float>({1}, {1, 1, 1, 1}))
      .Input("offset", T_<float>({0, 0, 0, 0.5f, 0.5f, 0.5f}, {1, 2, 1, 3}))
      .OmittedInput()
      .Input("mask", T_<float>({0.5f, 0.5f, 0.5f}, {1, 1, 1, 3}))
      .Output("y", T_<float>({1.5f, 3.0f, 2.0f}, {1, 1, 1, 3}))
      .Run();
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

TEST(DeformConv, HostileOffsetsSampleZero) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  OpTest("DeformConv", 22)
      .Input("x", T_<float>({2, 4, 8}, {1, 1, 1, 3}))
      .Input("w", T_<float>({1}, {1, 1, 1, 1}))
      .Input("offset", T_<float>({0, 0, 0, 1e30f, nan, -1e30f}, {1, 2, 1, 3}))
      .Output("y", T_<float>({0, 0, 0}, {1, 1, 1, 3}))
      .Run();
}

TEST(CausalConvWithState, PastStateBiasAndSilu) {
  // One channel, k = 3: seq = [p0, p1, x0, x1], w = [1, 2, 3].
  OpTest("CausalConvWithState", 27)
      .Input("x", T_<float>({1, 2}, {1, 1, 2}))
      .Input("w", T_<float>({1, 2, 3}, {1, 1, 3}))
      .Input("b", T_<float>({0.5f}, {1}))
      .Input("past", T_<float>({10, 20}, {1, 1, 2}))
      .Output("y", T_<float>({10 + 40 + 3 + 0.5f, 20 + 2 + 6 + 0.5f}, {1, 1, 2}))
      .Output("state", T_<float>({1, 2}, {1, 1, 2}))
      .Run();
  // No past state: zeros; input shorter than k - 1 keeps padding in the state.
  OpTest("CausalConvWithState", 27)
      .Attr("activation", std::string("silu"))
      .Input("x", T_<float>({1}, {1, 1, 1}))
      .Input("w", T_<float>({1, 1, 1}, {1, 1, 3}))
      .Output("y", T_<float>({1.0f / (1.0f + std::exp(-1.0f))}, {1, 1, 1}))
      .Output("state", T_<float>({0, 1}, {1, 1, 2}))
      .Run();
  OpTest("CausalConvWithState", 27)
      .Input("x", T_<float>({1, 2}, {1, 1, 2}))
      .Input("w", T_<float>({1, 2, 3}, {2, 1, 3}))
      .Output("y", T_<float>({}, {1, 1, 2}))
      .ExpectFailure("weight must have shape");
}

}  // namespace
}  // namespace tessera::test
