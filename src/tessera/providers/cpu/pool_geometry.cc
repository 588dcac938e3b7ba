#include "tessera/providers/cpu/pool_geometry.h"

#include <algorithm>

namespace tessera::cpu {

PoolGeometry MakeGeometry(const PoolAttrs& a, const Shape& x_shape, const KernelContext& ctx) {
  size_t r = a.kernel.size();
  if (x_shape.size() != r + 2)
    ctx.Fail("input of shape ", ShapeToString(x_shape), " does not match kernel_shape of rank ", r,
             " (expected rank ", r + 2, ")");
  PoolGeometry g;
  g.rank = r;
  g.in.assign(x_shape.begin() + 2, x_shape.end());
  g.out.resize(r);
  g.pad_begin.resize(r);
  g.pad_end.resize(r);
  g.win.resize(r);
  g.padcount.resize(r);
  for (size_t d = 0; d < r; ++d) {
    int64_t in = g.in[d], k = a.kernel[d], s = a.strides[d], dil = a.dilations[d];
    int64_t ek = (k - 1) * dil + 1;
    int64_t pb = a.pads[d], pe = a.pads[d + r], out = 0;
    switch (a.auto_pad) {
      case AutoPad::kNotSet: {
        int64_t span = in + pb + pe - ek;
        if (span < 0) ctx.Fail("kernel (effective size ", ek, ") is larger than the padded input along spatial dim ", d);
        if (a.ceil_mode) {
          out = (span + s - 1) / s + 1;
          // The last window must start inside the input or the left padding.
          if ((out - 1) * s >= in + pb) --out;
        } else {
          out = span / s + 1;
        }
        break;
      }
      case AutoPad::kValid:
        pb = pe = 0;
        if (in < ek) ctx.Fail("kernel (effective size ", ek, ") is larger than the input along spatial dim ", d);
        out = (in - ek) / s + 1;
        break;
      case AutoPad::kSameUpper:
      case AutoPad::kSameLower: {
        out = (in + s - 1) / s;
        int64_t total = std::max<int64_t>(0, (out - 1) * s + ek - in);
        if (a.auto_pad == AutoPad::kSameUpper) {
          pb = total / 2;
        } else {
          pb = total - total / 2;
        }
        pe = total - pb;
        break;
      }
    }
    if (out < 0) out = 0;
    g.out[d] = out;
    g.pad_begin[d] = pb;
    g.pad_end[d] = pe;
    g.win[d].resize(static_cast<size_t>(out));
    g.padcount[d].resize(static_cast<size_t>(out));
    for (int64_t o = 0; o < out; ++o) {
      int64_t start = o * s - pb;
      auto& list = g.win[d][static_cast<size_t>(o)];
      int64_t pc = 0;
      for (int64_t j = 0; j < k; ++j) {
        int64_t p = start + j * dil;
        if (p >= -pb && p < in + pe) ++pc;
        if (p >= 0 && p < in) list.push_back(p);
      }
      g.padcount[d][static_cast<size_t>(o)] = pc;
    }
  }
  return g;
}

}  // namespace tessera::cpu
