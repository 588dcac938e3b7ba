// Convolution attributes and their resolution against the operand shapes
// (conv_geometry.h).
#include "tessera/providers/cpu/conv_geometry.h"

#include <algorithm>
#include <string>

namespace tessera::cpu {

ConvAttrs ParseConvAttrs(const KernelInfo& info, bool transpose, bool has_auto_pad) {
  ConvAttrs a;
  a.auto_pad = has_auto_pad ? ParseAutoPad(info) : AutoPad::kNotSet;
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

namespace {

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

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

}  // namespace

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
    int64_t dk = DilatedKernel(g.kernel[i], g.dil[i]);
    int64_t in = g.in[i], s = g.stride[i];
    if (a.auto_pad == AutoPad::kSameUpper || a.auto_pad == AutoPad::kSameLower) {
      int64_t out = (in + s - 1) / s;
      int64_t total = std::max<int64_t>(0, (out - 1) * s + dk - in);
      g.pad[i] = a.auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
      g.out[i] = out;
    } else {
      int64_t pb = a.auto_pad == AutoPad::kValid ? 0 : pads[i];
      int64_t pe = a.auto_pad == AutoPad::kValid ? 0 : pads[i + nsp];
      if (in + pb + pe < dk)
        ctx.Fail("kernel (dilated size ", dk, ") is larger than the padded input (", in + pb + pe, ") on axis ", i);
      g.pad[i] = pb;
      g.out[i] = WindowPositions(in + pb + pe, dk, s);
    }
  }
  return g;
}

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
    int64_t dk = DilatedKernel(g.kernel[i], g.dil[i]);
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

void PromoteTo2D(ConvGeom& g) {
  if (g.nsp() != 1) return;
  g.in.insert(g.in.begin(), 1);
  g.kernel.insert(g.kernel.begin(), 1);
  g.out.insert(g.out.begin(), 1);
  g.stride.insert(g.stride.begin(), 1);
  g.dil.insert(g.dil.begin(), 1);
  g.pad.insert(g.pad.begin(), 0);
}

Shape OutputShape(const ConvGeom& g) {
  Shape s = {g.n, g.m};
  s.insert(s.end(), g.out.begin(), g.out.end());
  return s;
}

void CheckSameType(const Tensor& x, const Tensor& other, const char* what, const KernelContext& ctx) {
  if (other.dtype() != x.dtype())
    ctx.Fail(what, " has element type ", DataTypeName(other.dtype()), ", expected ", DataTypeName(x.dtype()));
}

void CheckBias(const Tensor& b, int64_t m, const KernelContext& ctx) {
  if (b.rank() != 1 || b.dim(0) != m) ctx.Fail("bias must have shape [", m, "], got ", b.Describe());
}

}  // namespace tessera::cpu
