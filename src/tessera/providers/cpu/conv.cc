// Convolutions: Conv, ConvTranspose, ConvInteger, QLinearConv, DeformConv.
// Conv lowers to im2col + GEMM per group (with a direct path for depthwise
// 2-D convolutions and no im2col for pointwise ones); ConvTranspose is GEMM +
// col2im. The quantized forms run the same code in double, which is exact for
// 8-bit operands.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tessera/ir/float_formats.h"
#include "tessera/providers/cpu/conv_impl.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/int8_conv.h"
#include "tessera/providers/cpu/kernel_util.h"
#include "tessera/providers/cpu/matmul_gemm.h"
#include "tessera/providers/cpu/simd_int32.h"

namespace tessera::cpu {

namespace {

// ---- attributes and geometry ------------------------------------------------------

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

struct ConvAttrs {
  AutoPad auto_pad = AutoPad::kNotSet;
  int64_t group = 1;
  std::vector<int64_t> kernel_shape, strides, dilations, pads, output_padding, output_shape;
};

ConvAttrs ParseConvAttrs(const KernelInfo& info, bool transpose, bool has_auto_pad = true) {
  ConvAttrs a;
  std::string ap = has_auto_pad ? info.attr_string("auto_pad", "NOTSET") : "NOTSET";
  if (ap == "NOTSET" || ap.empty()) a.auto_pad = AutoPad::kNotSet;
  else if (ap == "SAME_UPPER") a.auto_pad = AutoPad::kSameUpper;
  else if (ap == "SAME_LOWER") a.auto_pad = AutoPad::kSameLower;
  else if (ap == "VALID") a.auto_pad = AutoPad::kValid;
  else info.Fail("unknown auto_pad '", ap, "'");
  a.group = info.attr_int("group", 1);
  if (a.group < 1) info.Fail("group must be >= 1, got ", a.group);
  a.kernel_shape = info.attr_ints("kernel_shape", {});
  a.strides = info.attr_ints("strides", {});
  a.dilations = info.attr_ints("dilations", {});
  a.pads = info.attr_ints("pads", {});
  for (int64_t s : a.strides)
    if (s < 1) info.Fail("strides must be positive");
  for (int64_t d : a.dilations)
    if (d < 1) info.Fail("dilations must be positive");
  for (int64_t k : a.kernel_shape)
    if (k < 1) info.Fail("kernel_shape must be positive");
  if (a.pads.size() % 2 != 0) info.Fail("pads must have an even number of values");
  for (int64_t p : a.pads)
    if (p < 0) info.Fail("pads must be non-negative");
  if (transpose) {
    a.output_padding = info.attr_ints("output_padding", {});
    a.output_shape = info.attr_ints("output_shape", {});
    for (int64_t p : a.output_padding)
      if (p < 0) info.Fail("output_padding must be non-negative");
  }
  return a;
}

struct ConvGeom {
  int64_t n = 0, c = 0, m = 0, group = 1;  // batch, input channels, output channels
  Shape in, kernel, out;                   // spatial sizes
  std::vector<int64_t> stride, dil, pad;   // pad: begin of each spatial axis (may be negative)
  int64_t in_size() const { return SizeFromDim(in, 0); }
  int64_t out_size() const { return SizeFromDim(out, 0); }
  int64_t k_size() const { return SizeFromDim(kernel, 0); }
  size_t nsp() const { return in.size(); }
};

// Attribute list of length nsp (default value when absent), validated.
std::vector<int64_t> PerAxis(const std::vector<int64_t>& v, size_t nsp, int64_t dflt, const char* what,
                             const KernelContext& ctx) {
  if (v.empty()) return std::vector<int64_t>(nsp, dflt);
  if (v.size() != nsp) ctx.Fail(what, " has ", v.size(), " values but the input has ", nsp, " spatial axes");
  return v;
}

// Common checks of X [N, C, D...] and W; fills n, c, in, kernel, stride, dil.
void GeomCommon(const ConvAttrs& a, const Shape& x, const Shape& w, ConvGeom& g, const KernelContext& ctx) {
  if (x.size() < 3) ctx.Fail("input must have rank >= 3 (N, C, spatial...), got ", ShapeToString(x));
  if (w.size() != x.size())
    ctx.Fail("weight of shape ", ShapeToString(w), " does not match input rank ", x.size());
  size_t nsp = x.size() - 2;
  g.n = x[0];
  g.c = x[1];
  g.group = a.group;
  g.in.assign(x.begin() + 2, x.end());
  g.kernel.assign(w.begin() + 2, w.end());
  if (!a.kernel_shape.empty() && a.kernel_shape != g.kernel)
    ctx.Fail("kernel_shape attribute does not match the weight shape ", ShapeToString(w));
  for (int64_t k : g.kernel)
    if (k < 1) ctx.Fail("weight has an empty kernel: ", ShapeToString(w));
  g.stride = PerAxis(a.strides, nsp, 1, "strides", ctx);
  g.dil = PerAxis(a.dilations, nsp, 1, "dilations", ctx);
}

ConvGeom ResolveConv(const ConvAttrs& a, const Shape& x, const Shape& w, const KernelContext& ctx) {
  ConvGeom g;
  GeomCommon(a, x, w, g, ctx);
  size_t nsp = g.nsp();
  g.m = w[0];
  if (g.c % g.group != 0 || w[1] * g.group != g.c)
    ctx.Fail("input channels ", g.c, " do not match weight ", ShapeToString(w), " with group ", g.group);
  if (g.m % g.group != 0) ctx.Fail("output channels ", g.m, " are not divisible by group ", g.group);
  std::vector<int64_t> pads = a.pads.empty() ? std::vector<int64_t>(2 * nsp, 0) : a.pads;
  if (pads.size() != 2 * nsp) ctx.Fail("pads has ", pads.size(), " values, expected ", 2 * nsp);
  g.pad.resize(nsp);
  g.out.resize(nsp);
  for (size_t i = 0; i < nsp; ++i) {
    int64_t dk = (g.kernel[i] - 1) * g.dil[i] + 1;
    int64_t in = g.in[i], s = g.stride[i];
    if (a.auto_pad == AutoPad::kSameUpper || a.auto_pad == AutoPad::kSameLower) {
      int64_t out = (in + s - 1) / s;
      int64_t total = std::max<int64_t>(0, (out - 1) * s + dk - in);
      g.pad[i] = a.auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
      g.out[i] = out;
    } else {
      int64_t pb = a.auto_pad == AutoPad::kValid ? 0 : pads[i];
      int64_t pe = a.auto_pad == AutoPad::kValid ? 0 : pads[i + nsp];
      int64_t span = in + pb + pe - dk;
      if (span < 0)
        ctx.Fail("kernel (dilated size ", dk, ") is larger than the padded input (", in + pb + pe, ") on axis ", i);
      g.pad[i] = pb;
      g.out[i] = span / s + 1;
    }
  }
  return g;
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

ConvGeom ResolveConvTranspose(const ConvAttrs& a, const Shape& x, const Shape& w, const KernelContext& ctx) {
  ConvGeom g;
  GeomCommon(a, x, w, g, ctx);
  size_t nsp = g.nsp();
  if (w[0] != g.c) ctx.Fail("weight of shape ", ShapeToString(w), " does not match input channels ", g.c);
  if (g.c % g.group != 0) ctx.Fail("input channels ", g.c, " are not divisible by group ", g.group);
  g.m = w[1] * g.group;
  std::vector<int64_t> opad = PerAxis(a.output_padding, nsp, 0, "output_padding", ctx);
  std::vector<int64_t> pads = a.pads.empty() ? std::vector<int64_t>(2 * nsp, 0) : a.pads;
  if (pads.size() != 2 * nsp) ctx.Fail("pads has ", pads.size(), " values, expected ", 2 * nsp);
  std::vector<int64_t> oshape;
  if (!a.output_shape.empty()) {
    if (a.output_shape.size() < nsp) ctx.Fail("output_shape has too few values");
    oshape.assign(a.output_shape.end() - static_cast<std::ptrdiff_t>(nsp), a.output_shape.end());
  }
  g.pad.resize(nsp);
  g.out.resize(nsp);
  for (size_t i = 0; i < nsp; ++i) {
    int64_t dk = (g.kernel[i] - 1) * g.dil[i] + 1;
    int64_t natural = g.stride[i] * (g.in[i] - 1) + opad[i] + dk;
    bool same = a.auto_pad == AutoPad::kSameUpper || a.auto_pad == AutoPad::kSameLower;
    if (!oshape.empty() || same) {
      int64_t out = !oshape.empty() ? oshape[i] : g.in[i] * g.stride[i];
      int64_t total = natural - out;
      int64_t half = FloorDiv(total, 2);
      g.pad[i] = a.auto_pad == AutoPad::kSameUpper ? half : total - half;
      g.out[i] = out;
    } else {
      int64_t pb = a.auto_pad == AutoPad::kValid ? 0 : pads[i];
      int64_t pe = a.auto_pad == AutoPad::kValid ? 0 : pads[i + nsp];
      g.pad[i] = pb;
      g.out[i] = natural - pb - pe;
    }
    if (g.out[i] < 0) ctx.Fail("ConvTranspose output size on axis ", i, " would be negative (", g.out[i], ")");
  }
  return g;
}

// 1-D convolutions run as 2-D ones with a unit leading axis.
void PromoteTo2D(ConvGeom& g) {
  if (g.nsp() != 1) return;
  g.in.insert(g.in.begin(), 1);
  g.kernel.insert(g.kernel.begin(), 1);
  g.out.insert(g.out.begin(), 1);
  g.stride.insert(g.stride.begin(), 1);
  g.dil.insert(g.dil.begin(), 1);
  g.pad.insert(g.pad.begin(), 0);
}

// ---- im2col / col2im -------------------------------------------------------------

// Rows [r0, r1) of the im2col matrix of one group's input `x` ([cg, in...]),
// restricted to output positions [j0, j1); row r = (channel, kernel offset).
template <typename F>
void Im2Col(const ConvGeom& g, const F* x, int64_t r0, int64_t r1, int64_t j0, int64_t j1, F* col) {
  int64_t ksize = g.k_size(), in_size = g.in_size(), len = j1 - j0;
  size_t nsp = g.nsp();
  if (nsp == 2) {
    int64_t H = g.in[0], W = g.in[1], OW = g.out[1], KW = g.kernel[1];
    for (int64_t r = r0; r < r1; ++r) {
      int64_t c = r / ksize, kk = r % ksize, kh = kk / KW, kw = kk % KW;
      const F* xc = x + c * in_size;
      F* dst = col + (r - r0) * len;
      int64_t j = j0, oh = j0 / OW, ow = j0 % OW;
      while (j < j1) {
        int64_t run = std::min(OW - ow, j1 - j);
        int64_t ih = oh * g.stride[0] - g.pad[0] + kh * g.dil[0];
        if (ih < 0 || ih >= H) {
          std::fill(dst, dst + run, F{});
        } else {
          const F* src = xc + ih * W;
          int64_t sw = g.stride[1], base = ow * sw - g.pad[1] + kw * g.dil[1];
          if (sw == 1 && base >= 0 && base + run <= W) {
            std::copy(src + base, src + base + run, dst);
          } else {
            for (int64_t t = 0; t < run; ++t) {
              int64_t iw = base + t * sw;
              dst[t] = (iw >= 0 && iw < W) ? src[iw] : F{};
            }
          }
        }
        dst += run;
        j += run;
        ow = 0;
        ++oh;
      }
    }
    return;
  }
  std::vector<int64_t> kidx(nsp), oidx(nsp);
  for (int64_t r = r0; r < r1; ++r) {
    int64_t c = r / ksize, kk = r % ksize;
    for (size_t d = nsp; d-- > 0;) {
      kidx[d] = kk % g.kernel[d];
      kk /= g.kernel[d];
    }
    int64_t jj = j0;
    for (size_t d = nsp; d-- > 0;) {
      oidx[d] = jj % g.out[d];
      jj /= g.out[d];
    }
    const F* xc = x + c * in_size;
    F* dst = col + (r - r0) * len;
    for (int64_t j = j0; j < j1; ++j) {
      int64_t off = 0;
      bool inside = true;
      for (size_t d = 0; d < nsp; ++d) {
        int64_t i = oidx[d] * g.stride[d] - g.pad[d] + kidx[d] * g.dil[d];
        if (i < 0 || i >= g.in[d]) {
          inside = false;
          break;
        }
        off = off * g.in[d] + i;
      }
      dst[j - j0] = inside ? xc[off] : F{};
      for (size_t d = nsp; d-- > 0;) {
        if (++oidx[d] < g.out[d]) break;
        oidx[d] = 0;
      }
    }
  }
}

// Scatter-adds rows of `col` ([mg * ksize, in_size], in positions [j0, j1))
// into y ([mg, out...]) for ConvTranspose; rows [r0, r1) of whole channels.
template <typename F>
void Col2Im(const ConvGeom& g, const F* col, int64_t r0, int64_t r1, int64_t j0, int64_t j1, F* y) {
  int64_t ksize = g.k_size(), out_size = g.out_size(), len = j1 - j0;
  size_t nsp = g.nsp();
  std::vector<int64_t> kidx(nsp), iidx(nsp);
  for (int64_t r = r0; r < r1; ++r) {
    int64_t m = r / ksize, kk = r % ksize;
    for (size_t d = nsp; d-- > 0;) {
      kidx[d] = kk % g.kernel[d];
      kk /= g.kernel[d];
    }
    F* ym = y + m * out_size;
    const F* src = col + (r - r0) * len;
    if (nsp == 2) {
      int64_t OH = g.out[0], OW = g.out[1], IW = g.in[1];
      int64_t j = j0, ih = j0 / IW, iw = j0 % IW;
      while (j < j1) {
        int64_t run = std::min(IW - iw, j1 - j);
        int64_t oh = ih * g.stride[0] - g.pad[0] + kidx[0] * g.dil[0];
        if (oh >= 0 && oh < OH) {
          F* row = ym + oh * OW;
          int64_t base = iw * g.stride[1] - g.pad[1] + kidx[1] * g.dil[1];
          for (int64_t t = 0; t < run; ++t) {
            int64_t ow = base + t * g.stride[1];
            if (ow >= 0 && ow < OW) row[ow] += src[t];
          }
        }
        src += run;
        j += run;
        iw = 0;
        ++ih;
      }
      continue;
    }
    int64_t jj = j0;
    for (size_t d = nsp; d-- > 0;) {
      iidx[d] = jj % g.in[d];
      jj /= g.in[d];
    }
    for (int64_t j = j0; j < j1; ++j) {
      int64_t off = 0;
      bool inside = true;
      for (size_t d = 0; d < nsp; ++d) {
        int64_t o = iidx[d] * g.stride[d] - g.pad[d] + kidx[d] * g.dil[d];
        if (o < 0 || o >= g.out[d]) {
          inside = false;
          break;
        }
        off = off * g.out[d] + o;
      }
      if (inside) ym[off] += src[j - j0];
      for (size_t d = nsp; d-- > 0;) {
        if (++iidx[d] < g.in[d]) break;
        iidx[d] = 0;
      }
    }
  }
}

constexpr int64_t kColBudget = int64_t{1} << 22;  // elements of an im2col buffer

// ---- forward convolution -------------------------------------------------------------

// Direct 2-D convolution of one input channel into one output channel.
template <typename F>
void DirectChannel2D(const ConvGeom& g, const F* x, const F* w, F* y) {
  int64_t H = g.in[0], W = g.in[1], OH = g.out[0], OW = g.out[1], KH = g.kernel[0], KW = g.kernel[1];
  int64_t sh = g.stride[0], sw = g.stride[1], dh = g.dil[0], dw = g.dil[1], ph = g.pad[0], pw = g.pad[1];
  std::fill(y, y + OH * OW, F{});
  for (int64_t kh = 0; kh < KH; ++kh) {
    for (int64_t kw = 0; kw < KW; ++kw) {
      F wv = w[kh * KW + kw];
      int64_t off_w = kw * dw - pw;
      // valid ow: 0 <= ow*sw + off_w < W
      int64_t ow_lo = off_w >= 0 ? 0 : (-off_w + sw - 1) / sw;
      int64_t ow_hi = W - off_w <= 0 ? 0 : std::min(OW, (W - off_w + sw - 1) / sw);
      if (ow_lo >= ow_hi) continue;
      for (int64_t oh = 0; oh < OH; ++oh) {
        int64_t ih = oh * sh - ph + kh * dh;
        if (ih < 0 || ih >= H) continue;
        const F* xr = x + ih * W + off_w;
        F* yr = y + oh * OW;
        if (sw == 1)
          for (int64_t ow = ow_lo; ow < ow_hi; ++ow) yr[ow] += wv * xr[ow];
        else
          for (int64_t ow = ow_lo; ow < ow_hi; ++ow) yr[ow] += wv * xr[ow * sw];
      }
    }
  }
}

// Adds the bias and runs the epilogue on each output channel row, one pass
// over the output; rows are disjoint, so they split across threads.
template <typename F>
void BiasAndEpilogue(const ConvGeom& g, int64_t out_size, const F* bias, const Epilogue* post, F* y,
                     ThreadPool* pool) {
  if (!bias && !post) return;
  ParallelFor(pool, g.n * g.m, std::max<int64_t>(1, 16384 / std::max<int64_t>(out_size, 1)),
              [&](int64_t r0, int64_t r1) {
                for (int64_t r = r0; r < r1; ++r) {
                  F* ym = y + r * out_size;
                  if (bias) {
                    F bv = bias[r % g.m];
                    for (int64_t j = 0; j < out_size; ++j) ym[j] += bv;
                  }
                  if (post) post->Apply(ym, out_size);
                }
              });
}

// y[n, m, out...] = post(sum conv(x, w) + bias); all buffers contiguous NC(D...).
template <typename F>
void ConvForward(ConvGeom g, const F* x, const F* w, const F* bias, F* y, ThreadPool* pool,
                 const Epilogue* post = nullptr) {
  PromoteTo2D(g);
  int64_t cg = g.c / g.group, mg = g.m / g.group, ksize = g.k_size();
  int64_t in_size = g.in_size(), out_size = g.out_size(), rows = cg * ksize;
  if (g.n == 0 || g.m == 0 || out_size == 0) return;
  if (cg == 1 && g.nsp() == 2) {
    // Depthwise (and any one-channel-per-group) convolution: direct.
    ParallelFor(pool, g.n * g.m, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        int64_t n = i / g.m, m = i % g.m, gi = m / mg;
        DirectChannel2D(g, x + (n * g.c + gi) * in_size, w + m * ksize, y + i * out_size);
      }
    });
  } else {
    bool pointwise = true;
    for (size_t d = 0; d < g.nsp(); ++d)
      pointwise = pointwise && g.kernel[d] == 1 && g.stride[d] == 1 && g.pad[d] == 0 && g.out[d] == g.in[d];
    int64_t chunk = pointwise ? out_size : std::clamp<int64_t>(kColBudget / std::max<int64_t>(rows, 1), 1, out_size);
    std::vector<F> col(pointwise ? 0 : static_cast<size_t>(rows * chunk));
    for (int64_t n = 0; n < g.n; ++n)
      for (int64_t gi = 0; gi < g.group; ++gi) {
        const F* xg = x + (n * g.c + gi * cg) * in_size;
        const F* wg = w + gi * mg * rows;
        F* yg = y + (n * g.m + gi * mg) * out_size;
        for (int64_t j0 = 0; j0 < out_size; j0 += chunk) {
          int64_t j1 = std::min(out_size, j0 + chunk), len = j1 - j0;
          if (pointwise) {
            GemmAny<F>(false, false, mg, out_size, cg, wg, cg, xg, in_size, yg, out_size, false);
            continue;
          }
          ParallelFor(pool, rows, 16, [&](int64_t r0, int64_t r1) {
            Im2Col(g, xg, r0, r1, j0, j1, col.data() + (r0 * len));
          });
          GemmAny<F>(false, false, mg, len, rows, wg, std::max<int64_t>(rows, 1), col.data(), len, yg + j0, out_size,
                     false);
        }
      }
  }
  BiasAndEpilogue(g, out_size, bias, post, y, pool);
}

template <typename F>
void ConvTransposeForward(ConvGeom g, const F* x, const F* w, const F* bias, F* y, ThreadPool* pool,
                          const Epilogue* post = nullptr) {
  PromoteTo2D(g);
  int64_t cg = g.c / g.group, mg = g.m / g.group, ksize = g.k_size();
  int64_t in_size = g.in_size(), out_size = g.out_size(), rows = mg * ksize;
  int64_t total = g.n * g.m * out_size;
  std::fill(y, y + total, F{});
  if (total == 0) return;
  if (in_size > 0 && rows > 0) {
    int64_t chunk = std::clamp<int64_t>(kColBudget / std::max<int64_t>(rows, 1), 1, in_size);
    std::vector<F> col(static_cast<size_t>(rows * chunk));
    for (int64_t n = 0; n < g.n; ++n)
      for (int64_t gi = 0; gi < g.group; ++gi) {
        const F* xg = x + (n * g.c + gi * cg) * in_size;
        const F* wg = w + gi * cg * rows;
        F* yg = y + (n * g.m + gi * mg) * out_size;
        for (int64_t j0 = 0; j0 < in_size; j0 += chunk) {
          int64_t j1 = std::min(in_size, j0 + chunk), len = j1 - j0;
          // col[rows, len] = W_g^T [rows, cg] * X_g[cg, j0:j1]
          GemmAny<F>(true, false, rows, len, cg, wg, rows, xg + j0, in_size, col.data(), len, false);
          // Output channels are disjoint per thread.
          ParallelFor(pool, mg, 1, [&](int64_t m0, int64_t m1) {
            Col2Im(g, col.data() + m0 * ksize * len, m0 * ksize, m1 * ksize, j0, j1, yg);
          });
        }
      }
  }
  BiasAndEpilogue(g, out_size, bias, post, y, pool);
}


// ---- deformable convolution -----------------------------------------------------------

// Multilinear sample of one channel x (spatial `in`) at fractional coordinates p;
// corners outside the input contribute zero.
template <typename F>
F SampleLinear(const F* x, const Shape& in, const F* p) {
  size_t nsp = in.size();
  int64_t lo[8];
  F frac[8];
  for (size_t d = 0; d < nsp; ++d) {
    // At or beyond one pixel outside, every corner is outside (also NaN / huge offsets).
    if (!(p[d] > F{-1} && p[d] < static_cast<F>(in[d]))) return F{};
    F f = std::floor(p[d]);
    lo[d] = static_cast<int64_t>(f);
    frac[d] = p[d] - f;
  }
  F v{};
  for (int64_t corner = 0; corner < (int64_t{1} << nsp); ++corner) {
    F wgt = 1;
    int64_t off = 0;
    bool inside = true;
    for (size_t d = 0; d < nsp; ++d) {
      int64_t bit = (corner >> (nsp - 1 - d)) & 1;
      int64_t i = lo[d] + bit;
      if (i < 0 || i >= in[d]) {
        inside = false;
        break;
      }
      wgt *= bit ? frac[d] : F{1} - frac[d];
      off = off * in[d] + i;
    }
    if (inside && wgt != F{}) v += wgt * x[off];
  }
  return v;
}

template <typename F>
void DeformConvForward(const ConvGeom& g, int64_t offset_groups, const F* x, const F* w, const F* offset,
                       const F* mask, const F* bias, F* y, ThreadPool* pool) {
  size_t nsp = g.nsp();
  int64_t cg = g.c / g.group, mg = g.m / g.group, ksize = g.k_size();
  int64_t in_size = g.in_size(), out_size = g.out_size(), rows = g.c * ksize;
  int64_t ch_per_og = g.c / offset_groups;
  std::vector<F> col(static_cast<size_t>(rows * out_size));
  for (int64_t n = 0; n < g.n; ++n) {
    const F* off_n = offset + n * offset_groups * ksize * static_cast<int64_t>(nsp) * out_size;
    const F* mask_n = mask ? mask + n * offset_groups * ksize * out_size : nullptr;
    ParallelFor(pool, rows, 4, [&](int64_t r0, int64_t r1) {
      std::vector<int64_t> kidx(nsp), oidx(nsp);
      F p[8];
      for (int64_t r = r0; r < r1; ++r) {
        int64_t c = r / ksize, kk = r % ksize, og = c / ch_per_og;
        for (size_t d = nsp, t = kk; d-- > 0;) {
          kidx[d] = static_cast<int64_t>(t) % g.kernel[d];
          t /= static_cast<size_t>(g.kernel[d]);
        }
        const F* xc = x + (n * g.c + c) * in_size;
        const F* offs = off_n + (og * ksize + kk) * static_cast<int64_t>(nsp) * out_size;
        const F* mk = mask_n ? mask_n + (og * ksize + kk) * out_size : nullptr;
        F* dst = col.data() + r * out_size;
        std::fill(oidx.begin(), oidx.end(), 0);
        for (int64_t j = 0; j < out_size; ++j) {
          for (size_t d = 0; d < nsp; ++d)
            p[d] = static_cast<F>(oidx[d] * g.stride[d] - g.pad[d] + kidx[d] * g.dil[d]) +
                   offs[static_cast<int64_t>(d) * out_size + j];
          F v = SampleLinear(xc, g.in, p);
          dst[j] = mk ? v * mk[j] : v;
          for (size_t d = nsp; d-- > 0;) {
            if (++oidx[d] < g.out[d]) break;
            oidx[d] = 0;
          }
        }
      }
    });
    for (int64_t gi = 0; gi < g.group; ++gi)
      GemmAny<F>(false, false, mg, out_size, cg * ksize, w + gi * mg * cg * ksize, std::max<int64_t>(cg * ksize, 1),
                 col.data() + gi * cg * ksize * out_size, out_size, y + (n * g.m + gi * mg) * out_size, out_size,
                 false);
    if (bias)
      for (int64_t m = 0; m < g.m; ++m) {
        F* ym = y + (n * g.m + m) * out_size;
        for (int64_t j = 0; j < out_size; ++j) ym[j] += bias[m];
      }
  }
}

// ---- kernels ----------------------------------------------------------------------------

// Pointer to t's data in compute type F, converting into buf when T != F.
template <typename T, typename F>
const F* ComputePtr(const Tensor& t, std::vector<F>& buf) {
  if constexpr (std::is_same_v<T, F>) {
    return t.data<F>();
  } else {
    const T* src = t.data<T>();
    buf.resize(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) buf[static_cast<size_t>(i)] = static_cast<F>(Load(src[i]));
    return buf.data();
  }
}

void CheckSameType(const Tensor& x, const Tensor& other, const char* what, const KernelContext& ctx) {
  if (other.dtype() != x.dtype())
    ctx.Fail(what, " has element type ", DataTypeName(other.dtype()), ", expected ", DataTypeName(x.dtype()));
}

void CheckBias(const Tensor& b, int64_t m, const KernelContext& ctx) {
  if (b.rank() != 1 || b.dim(0) != m) ctx.Fail("bias must have shape [", m, "], got ", b.Describe());
}

Shape OutputShape(const ConvGeom& g) {
  Shape s = {g.n, g.m};
  s.insert(s.end(), g.out.begin(), g.out.end());
  return s;
}

// Runs fn<F>(x, w, b, y) in the compute type of a float tensor type.
template <typename Fn>
void WithFloatBuffers(KernelContext& ctx, const Tensor& x, const Tensor& w, const Tensor* b, Tensor& y, Fn&& fn) {
  DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
    using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
    std::vector<F> xb, wb, bb, yb;
    const F* xp = ComputePtr<T, F>(x, xb);
    const F* wp = ComputePtr<T, F>(w, wb);
    const F* bp = b ? ComputePtr<T, F>(*b, bb) : nullptr;
    F* yp;
    if constexpr (std::is_same_v<T, F>) {
      yp = y.data<F>();
    } else {
      yb.resize(static_cast<size_t>(y.numel()));
      yp = yb.data();
    }
    fn(xp, wp, bp, yp);
    if constexpr (!std::is_same_v<T, F>) {
      T* yo = y.data<T>();
      for (int64_t i = 0; i < y.numel(); ++i) yo[i] = StoreAs<T>(yp[i]);
    }
  });
}

class Conv final : public OpKernel {
 public:
  explicit Conv(const KernelInfo& info, std::shared_ptr<const Epilogue> post = nullptr)
      : a_(ParseConvAttrs(info, false)), post_(std::move(post)) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    CheckSameType(x, w, "W", ctx);
    ConvGeom g = ResolveConv(a_, x.shape(), w.shape(), ctx);
    if (b) {
      CheckSameType(x, *b, "B", ctx);
      CheckBias(*b, g.m, ctx);
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), OutputShape(g));
    WithFloatBuffers(ctx, x, w, b, y, [&](const auto* xp, const auto* wp, const auto* bp, auto* yp) {
      ConvForward(g, xp, wp, bp, yp, ctx.thread_pool(), post_.get());
    });
  }

 private:
  ConvAttrs a_;
  std::shared_ptr<const Epilogue> post_;
};

class ConvTranspose final : public OpKernel {
 public:
  explicit ConvTranspose(const KernelInfo& info, std::shared_ptr<const Epilogue> post = nullptr)
      : a_(ParseConvAttrs(info, true)), post_(std::move(post)) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    CheckSameType(x, w, "W", ctx);
    ConvGeom g = ResolveConvTranspose(a_, x.shape(), w.shape(), ctx);
    if (b) {
      CheckSameType(x, *b, "B", ctx);
      CheckBias(*b, g.m, ctx);
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), OutputShape(g));
    WithFloatBuffers(ctx, x, w, b, y, [&](const auto* xp, const auto* wp, const auto* bp, auto* yp) {
      ConvTransposeForward(g, xp, wp, bp, yp, ctx.thread_pool(), post_.get());
    });
  }

 private:
  ConvAttrs a_;
  std::shared_ptr<const Epilogue> post_;
};

class DeformConv final : public OpKernel {
 public:
  explicit DeformConv(const KernelInfo& info)
      : a_(ParseConvAttrs(info, false, false)), offset_groups_(info.attr_int("offset_group", 1)) {
    if (offset_groups_ < 1) info.Fail("offset_group must be >= 1, got ", offset_groups_);
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor& offset = ctx.input(2);
    const Tensor* b = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const Tensor* mask = ctx.has_input(4) ? &ctx.input(4) : nullptr;
    CheckSameType(x, w, "W", ctx);
    CheckSameType(x, offset, "offset", ctx);
    ConvGeom g = ResolveConv(a_, x.shape(), w.shape(), ctx);
    if (g.nsp() > 8) ctx.Fail("DeformConv supports at most 8 spatial axes");
    if (b) {
      CheckSameType(x, *b, "B", ctx);
      CheckBias(*b, g.m, ctx);
    }
    if (g.c % offset_groups_ != 0)
      ctx.Fail("input channels ", g.c, " are not divisible by offset_group ", offset_groups_);
    int64_t nsp = static_cast<int64_t>(g.nsp());
    Shape want = {g.n, offset_groups_ * g.k_size() * nsp};
    want.insert(want.end(), g.out.begin(), g.out.end());
    if (offset.shape() != want)
      ctx.Fail("offset has shape ", ShapeToString(offset.shape()), ", expected ", ShapeToString(want));
    if (mask) {
      CheckSameType(x, *mask, "mask", ctx);
      want[1] = offset_groups_ * g.k_size();
      if (mask->shape() != want)
        ctx.Fail("mask has shape ", ShapeToString(mask->shape()), ", expected ", ShapeToString(want));
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), OutputShape(g));
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
      std::vector<F> ob, mb;
      const F* op = ComputePtr<T, F>(offset, ob);
      const F* mp = mask ? ComputePtr<T, F>(*mask, mb) : nullptr;
      WithFloatBuffers(ctx, x, w, b, y, [&](const auto* xp, const auto* wp, const auto* bp, auto* yp) {
        if constexpr (std::is_same_v<std::remove_cv_t<std::remove_pointer_t<decltype(xp)>>, F>)
          DeformConvForward<F>(g, offset_groups_, xp, wp, op, mp, bp, yp, ctx.thread_pool());
      });
    });
  }

 private:
  ConvAttrs a_;
  int64_t offset_groups_;
};

// ---- quantized convolutions ---------------------------------------------------------------

bool IsQ8(DataType t) { return t == DataType::kInt8 || t == DataType::kUInt8; }

double Q8Value(const Tensor& t, int64_t i) {
  return t.dtype() == DataType::kInt8 ? static_cast<double>(t.data<int8_t>()[i])
                                      : static_cast<double>(t.data<uint8_t>()[i]);
}

double ScalarAsDouble(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat: return t.data<float>()[i];
    case DataType::kDouble: return t.data<double>()[i];
    case DataType::kFloat16: return Load(t.data<Float16>()[i]);
    case DataType::kBFloat16: return Load(t.data<BFloat16>()[i]);
    default: return t.GetAsDouble(i);
  }
}

// Per-output-channel values (scalar or [M]) of a zero point / scale.
std::vector<double> PerChannel(const Tensor* t, int64_t m, double dflt, const char* what, const KernelContext& ctx) {
  if (!t) return std::vector<double>(static_cast<size_t>(m), dflt);
  if (t->numel() == 1) return std::vector<double>(static_cast<size_t>(m), ScalarAsDouble(*t, 0));
  if (t->rank() != 1 || t->dim(0) != m)
    ctx.Fail(what, " must be a scalar or have shape [", m, "], got ", t->Describe());
  std::vector<double> v(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) v[static_cast<size_t>(i)] = ScalarAsDouble(*t, i);
  return v;
}

// x - x_zero_point (per tensor) and w - w_zero_point (per output channel) as doubles.
void CenterQuantized(const Tensor& x, const Tensor* xz, const Tensor& w, const Tensor* wz, int64_t m,
                     std::vector<double>& xd, std::vector<double>& wd, const KernelContext& ctx) {
  if (!IsQ8(x.dtype()) || !IsQ8(w.dtype()))
    ctx.Fail("quantized inputs must be int8 or uint8, got ", DataTypeName(x.dtype()), " and ",
             DataTypeName(w.dtype()));
  if (xz) {
    if (xz->dtype() != x.dtype()) ctx.Fail("x_zero_point type does not match x");
    if (xz->numel() != 1) ctx.Fail("x_zero_point must be a scalar, got ", xz->Describe());
  }
  if (wz && wz->dtype() != w.dtype()) ctx.Fail("w_zero_point type does not match w");
  double zx = xz ? Q8Value(*xz, 0) : 0.0;
  xd.resize(static_cast<size_t>(x.numel()));
  for (int64_t i = 0; i < x.numel(); ++i) xd[static_cast<size_t>(i)] = Q8Value(x, i) - zx;
  std::vector<double> zw(static_cast<size_t>(m), 0.0);
  if (wz) {
    if (wz->numel() == 1) {
      std::fill(zw.begin(), zw.end(), Q8Value(*wz, 0));
    } else {
      if (wz->rank() != 1 || wz->dim(0) != m)
        ctx.Fail("w_zero_point must be a scalar or have shape [", m, "], got ", wz->Describe());
      for (int64_t i = 0; i < m; ++i) zw[static_cast<size_t>(i)] = Q8Value(*wz, i);
    }
  }
  wd.resize(static_cast<size_t>(w.numel()));
  int64_t per = m > 0 ? w.numel() / m : 0;
  for (int64_t i = 0; i < w.numel(); ++i) wd[static_cast<size_t>(i)] = Q8Value(w, i) - zw[static_cast<size_t>(i / per)];
}

// ---- the int8 GEMM path of ConvInteger and QLinearConv ---------------------------
// 2-D convolutions of int8/uint8 data with at least 4 output channels per
// group, or depthwise, run on the int8 kernels (int8_conv.h); other
// groupings and ranks keep the double-precision path.

// Weights (input w_input) and their zero points (input zp_input) as the
// int8 path packs them; null when it does not take them. The zero points
// must be one or one per output channel, of the weights' type.
std::shared_ptr<const Int8ConvWeights> PackInt8Weights(const Tensor& w, const Tensor* wz, int64_t group,
                                                       bool constant = false) {
  // Groups of at least 4 output channels, or depthwise (one each).
  if (!IsQ8(w.dtype()) || w.rank() != 4 || group < 1 || w.dim(0) % group != 0) return nullptr;
  if (w.dim(0) / group < 4 && !(w.dim(0) == group && w.dim(1) == 1)) return nullptr;
  if (wz && (wz->dtype() != w.dtype() || (wz->numel() != 1 && (wz->rank() != 1 || wz->dim(0) != w.dim(0)))))
    return nullptr;
  std::vector<int32_t> z(wz ? static_cast<size_t>(wz->numel()) : 1, 0);
  for (size_t i = 0; wz && i < z.size(); ++i) z[i] = static_cast<int32_t>(Q8Value(*wz, static_cast<int64_t>(i)));
  return std::make_shared<const Int8ConvWeights>(w.dtype() == DataType::kInt8, w.dim(0), w.numel() / w.dim(0),
                                                 w.raw_data(), std::move(z), constant ? group : 0);
}

// The weights packed at kernel creation, when they and their zero points
// are constants.
std::shared_ptr<const Int8ConvWeights> PackConstantInt8Weights(const KernelInfo& info, size_t w_input, size_t zp_input,
                                                               int64_t group) {
  const auto w = ConstantWithZeroPointOf(info, w_input, zp_input);
  return w ? PackInt8Weights(*w->value, w->zero_point, group, true) : nullptr;
}

// The int32 sums of a 2-D convolution on the int8 path into y (NCHW), or
// with `requant` its requantized bytes (y then scratch); false when that
// path does not take this call.
bool RunInt8Conv(KernelContext& ctx, const ConvGeom& g, const Tensor& x, const Tensor* xz,
                 const std::shared_ptr<const Int8ConvWeights>& constant, size_t w_input, size_t zp_input, int32_t* y,
                 const Int8Requant* requant = nullptr) {
  if (g.nsp() != 2 || !IsQ8(x.dtype())) return false;
  std::shared_ptr<const Int8ConvWeights> w = constant;
  if (!w) w = PackInt8Weights(ctx.input(w_input), ctx.has_input(zp_input) ? &ctx.input(zp_input) : nullptr, g.group);
  if (!w) return false;
  if (xz && (xz->dtype() != x.dtype() || xz->numel() != 1)) return false;  // the reference path says why
  Conv2DShape s;
  s.n = g.n, s.c = g.c, s.h = g.in[0], s.w = g.in[1], s.m = g.m, s.kh = g.kernel[0], s.kw = g.kernel[1];
  s.group = g.group, s.oh = g.out[0], s.ow = g.out[1], s.stride_h = g.stride[0], s.stride_w = g.stride[1];
  s.dil_h = g.dil[0], s.dil_w = g.dil[1], s.pad_t = g.pad[0], s.pad_l = g.pad[1];
  Int8Conv2D(ctx.thread_pool(), s, x.dtype() == DataType::kInt8, x.raw_data(),
             xz ? static_cast<int32_t>(Q8Value(*xz, 0)) : 0, *w, y, requant);
  return true;
}

class ConvInteger final : public OpKernel {
 public:
  explicit ConvInteger(const KernelInfo& info)
      : a_(ParseConvAttrs(info, false)), packed_(PackConstantInt8Weights(info, 1, 3, a_.group)) {
    if (packed_) w_shape_ = info.constant_input(1)->shape();
  }
  bool ReadsInput(size_t i) const override { return packed_ == nullptr || (i != 1 && i != 3); }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor* xz = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    if (packed_) {
      ConvGeom g = ResolveConv(a_, x.shape(), w_shape_, ctx);
      Tensor& y = ctx.allocate_output(0, DataType::kInt32, OutputShape(g));
      if (!RunInt8Conv(ctx, g, x, xz, packed_, 1, 3, y.data<int32_t>()))
        ctx.Fail("input of type ", DataTypeName(x.dtype()), " rank ", x.rank(), " with x_zero_point ",
                 xz ? xz->Describe() : "none", " does not fit the packed int8 weights");
      return;
    }
    const Tensor& w = ctx.input(1);
    const Tensor* wz = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    ConvGeom g = ResolveConv(a_, x.shape(), w.shape(), ctx);
    Tensor& y = ctx.allocate_output(0, DataType::kInt32, OutputShape(g));
    if (RunInt8Conv(ctx, g, x, xz, nullptr, 1, 3, y.data<int32_t>())) return;
    std::vector<double> xd, wd;
    CenterQuantized(x, xz, w, wz, g.m, xd, wd, ctx);
    std::vector<double> acc(static_cast<size_t>(y.numel()));
    ConvForward<double>(g, xd.data(), wd.data(), nullptr, acc.data(), ctx.thread_pool());
    int32_t* yo = y.data<int32_t>();
    for (int64_t i = 0; i < y.numel(); ++i) {
      double v = acc[static_cast<size_t>(i)];
      yo[i] = std::fabs(v) < 9.2e18
                  ? static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(static_cast<int64_t>(v))))
                  : 0;
    }
  }

 private:
  ConvAttrs a_;
  std::shared_ptr<const Int8ConvWeights> packed_;  // constant int8 weights
  Shape w_shape_;
};

class QLinearConv final : public OpKernel {
 public:
  explicit QLinearConv(const KernelInfo& info)
      : a_(ParseConvAttrs(info, false)), packed_(PackConstantInt8Weights(info, 3, 5, a_.group)) {
    if (packed_) w_shape_ = info.constant_input(3)->shape();
  }
  bool ReadsInput(size_t i) const override { return packed_ == nullptr || (i != 3 && i != 5); }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& x_scale = ctx.input(1);
    const Tensor* xz = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    const Tensor& w_scale = ctx.input(4);
    const Tensor& y_scale = ctx.input(6);
    const Tensor* yz = ctx.has_input(7) ? &ctx.input(7) : nullptr;
    const Tensor* b = ctx.has_input(8) ? &ctx.input(8) : nullptr;
    ConvGeom g = ResolveConv(a_, x.shape(), packed_ ? w_shape_ : ctx.input(3).shape(), ctx);
    if (x_scale.numel() != 1) ctx.Fail("x_scale must be a scalar, got ", x_scale.Describe());
    if (y_scale.numel() != 1) ctx.Fail("y_scale must be a scalar, got ", y_scale.Describe());
    if (yz && (yz->numel() != 1 || !IsQ8(yz->dtype())))
      ctx.Fail("y_zero_point must be an int8/uint8 scalar, got ", yz->Describe());
    for (const Tensor* s : {&x_scale, &w_scale, &y_scale})
      if (s->dtype() != DataType::kFloat && s->dtype() != DataType::kFloat16 && s->dtype() != DataType::kBFloat16 &&
          s->dtype() != DataType::kDouble)
        ctx.Fail("scales must be float tensors, got ", DataTypeName(s->dtype()));
    std::vector<double> ws = PerChannel(&w_scale, g.m, 1.0, "w_scale", ctx);
    std::vector<int32_t> bias(static_cast<size_t>(g.m), 0);
    if (b) {
      if (b->dtype() != DataType::kInt32) ctx.Fail("B must be int32, got ", DataTypeName(b->dtype()));
      CheckBias(*b, g.m, ctx);
      for (int64_t i = 0; i < g.m; ++i) bias[static_cast<size_t>(i)] = b->data<int32_t>()[i];
    }
    DataType yt = yz ? yz->dtype() : x.dtype();
    Tensor& y = ctx.allocate_output(0, yt, OutputShape(g));
    const double xs = ScalarAsDouble(x_scale, 0), ys = ScalarAsDouble(y_scale, 0);
    const int32_t zy = yz ? static_cast<int32_t>(Q8Value(*yz, 0)) : 0;
    // The int8 path requantizes as it stores (int8_conv.h), per output
    // channel; the sums buffer is its scratch, untouched (never paged in)
    // where the kernel fuses. A buffer kept between runs measured slower at
    // 2 threads: squeezenet QDQ 8.9 -> 10.2 ms.
    std::vector<double> scales(static_cast<size_t>(g.m));
    for (size_t i = 0; i < scales.size(); ++i) scales[i] = xs * ws[i] / ys;
    Int8Requant rq;
    rq.bias = bias.data();
    rq.scale = scales.data();
    rq.zero = zy;
    rq.out_signed = yt == DataType::kInt8;
    rq.out = static_cast<uint8_t*>(y.raw_data());
    const auto sums = std::make_unique_for_overwrite<int32_t[]>(static_cast<size_t>(y.numel()));
    if (RunInt8Conv(ctx, g, x, xz, packed_, 3, 5, sums.get(), &rq)) return;
    if (packed_)
      ctx.Fail("input of type ", DataTypeName(x.dtype()), " with x_zero_point ", xz ? xz->Describe() : "none",
               " does not fit the packed int8 weights");
    // The reference: the sums in double.
    const Tensor& w = ctx.input(3);
    std::vector<double> xd, wd;
    CenterQuantized(x, xz, w, ctx.has_input(5) ? &ctx.input(5) : nullptr, g.m, xd, wd, ctx);
    std::vector<double> acc(static_cast<size_t>(y.numel()));
    ConvForward<double>(g, xd.data(), wd.data(), nullptr, acc.data(), ctx.thread_pool());
    const int64_t out_size = g.out_size();
    const double lo = yt == DataType::kInt8 ? -128.0 : 0.0, hi = yt == DataType::kInt8 ? 127.0 : 255.0;
    ParallelFor(ctx.thread_pool(), g.n * g.m, 1, [&](int64_t p0, int64_t p1) {
      for (int64_t plane = p0; plane < p1; ++plane) {
        const size_t m = static_cast<size_t>(plane % g.m);
        for (int64_t i = plane * out_size; i < (plane + 1) * out_size; ++i) {
          double q = std::nearbyint((acc[static_cast<size_t>(i)] + bias[m]) * xs * ws[m] / ys);
          // NaN (a NaN or zero scale) quantizes to the zero point, as in
          // QuantizeLinear; casting NaN to an integer is undefined.
          if (std::isnan(q)) q = 0;
          q = std::clamp(q + zy, lo, hi);
          if (yt == DataType::kInt8) y.data<int8_t>()[i] = static_cast<int8_t>(q);
          else y.data<uint8_t>()[i] = static_cast<uint8_t>(q);
        }
      }
    });
  }

 private:
  ConvAttrs a_;
  std::shared_ptr<const Int8ConvWeights> packed_;  // constant int8 weights
  Shape w_shape_;
};

// ---- CausalConvWithState (opset 27) ------------------------------------------------------

// Depthwise causal 1-D convolution over concat(past_state or zeros, input),
// with an optional fused SiLU; also returns the last k-1 values of that
// concatenated sequence as the next state.
class CausalConvWithState final : public OpKernel {
 public:
  explicit CausalConvWithState(const KernelInfo& info) {
    std::string act = info.attr_string("activation", "none");
    if (act == "silu" || act == "swish") silu_ = true;
    else if (act != "none" && !act.empty()) info.Fail("unknown activation '", act, "' (expected silu, swish or none)");
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    const Tensor* past = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    if (x.rank() != 3) ctx.Fail("input must have shape (batch, channels, length), got ", x.Describe());
    int64_t nb = x.dim(0), ch = x.dim(1), len = x.dim(2);
    if (w.rank() != 3 || w.dim(0) != ch || w.dim(1) != 1 || w.dim(2) < 1)
      ctx.Fail("weight must have shape (", ch, ", 1, k) with k >= 1, got ", w.Describe());
    CheckSameType(x, w, "weight", ctx);
    int64_t k = w.dim(2), keep = k - 1;
    if (b) {
      CheckSameType(x, *b, "bias", ctx);
      CheckBias(*b, ch, ctx);
    }
    if (past) {
      CheckSameType(x, *past, "past_state", ctx);
      if (past->shape() != Shape{nb, ch, keep})
        ctx.Fail("past_state must have shape ", ShapeToString({nb, ch, keep}), ", got ", past->Describe());
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    bool want_state = ctx.output_requested(1);
    Tensor* st = want_state ? &ctx.allocate_output(1, x.dtype(), {nb, ch, keep}) : nullptr;
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
      const T* xp = x.data<T>();
      const T* wp = w.data<T>();
      const T* pp = past ? past->data<T>() : nullptr;
      T* yp = y.data<T>();
      T* sp = st ? st->data<T>() : nullptr;
      ParallelFor(ctx.thread_pool(), nb * ch, 4, [&](int64_t r0, int64_t r1) {
        std::vector<F> seq(static_cast<size_t>(keep + len));
        for (int64_t r = r0; r < r1; ++r) {
          int64_t c = r % ch;
          for (int64_t i = 0; i < keep; ++i) seq[static_cast<size_t>(i)] = pp ? static_cast<F>(Load(pp[r * keep + i])) : F{};
          for (int64_t i = 0; i < len; ++i) seq[static_cast<size_t>(keep + i)] = static_cast<F>(Load(xp[r * len + i]));
          F bias = b ? static_cast<F>(Load(b->data<T>()[c])) : F{};
          for (int64_t t = 0; t < len; ++t) {
            F acc = bias;
            for (int64_t j = 0; j < k; ++j) acc += static_cast<F>(Load(wp[c * k + j])) * seq[static_cast<size_t>(t + j)];
            if (silu_) acc = acc / (F{1} + std::exp(-acc));
            yp[r * len + t] = StoreAs<T>(acc);
          }
          if (sp)
            for (int64_t i = 0; i < keep; ++i) sp[r * keep + i] = StoreAs<T>(seq[static_cast<size_t>(len + i)]);
        }
      });
    });
  }

 private:
  bool silu_ = false;
};

}  // namespace

std::unique_ptr<OpKernel> MakeConvKernel(const KernelInfo& info, bool transpose,
                                         std::shared_ptr<const Epilogue> epilogue) {
  if (transpose) return std::make_unique<ConvTranspose>(info, std::move(epilogue));
  return std::make_unique<Conv>(info, std::move(epilogue));
}

std::vector<KernelRow> ConvKernels() {
  std::vector<DataType> f3 = {DataType::kFloat, DataType::kDouble, DataType::kFloat16};
  std::vector<DataType> q8 = {DataType::kInt8, DataType::kUInt8};
  return {
      {"ai.onnx", "Conv", 1, 21, f3, Make<Conv>()},
      {"ai.onnx", "Conv", 22, kMaxOnnxOpset, types::Floats(), Make<Conv>()},
      {"ai.onnx", "ConvTranspose", 1, 21, f3, Make<ConvTranspose>()},
      {"ai.onnx", "ConvTranspose", 22, kMaxOnnxOpset, types::Floats(), Make<ConvTranspose>()},
      {"ai.onnx", "ConvInteger", 10, kMaxOnnxOpset, q8, Make<ConvInteger>()},
      {"ai.onnx", "QLinearConv", 10, kMaxOnnxOpset, q8, Make<QLinearConv>()},
      // ONNX Runtime's com.microsoft form: the same op with a channels_last
      // attribute, which its own layout pass sets at run time, not in files.
      {kMicrosoftDomain, "QLinearConv", 1, 1, q8,
       [](const KernelInfo& info) -> std::unique_ptr<OpKernel> {
         if (info.attr_int("channels_last", 0) != 0)
           info.Fail("channels_last=1 (NHWC) is not supported; export the NCHW form");
         return std::make_unique<QLinearConv>(info);
       }},
      {"ai.onnx", "DeformConv", 19, 21, f3, Make<DeformConv>()},
      {"ai.onnx", "DeformConv", 22, kMaxOnnxOpset, types::Floats(), Make<DeformConv>()},
      {"ai.onnx", "CausalConvWithState", 27, kMaxOnnxOpset,
       {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16}, Make<CausalConvWithState>()},
  };
}

}  // namespace tessera::cpu
