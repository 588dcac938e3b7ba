// The column matrix of a convolution and back: im2col (Conv's input as
// the GEMM operand) and col2im (the scatter-add of ConvTranspose and of the
// Col2Im op). Templates, instantiated by the kernels that call them.
#pragma once

#include <algorithm>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/conv_geometry.h"

namespace tessera::cpu {

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
// into y ([mg, out...]); rows [r0, r1) of whole channels. ConvTranspose
// scatters its GEMM's columns (S = F), the Col2Im op its input (S the
// element type, F its accumulator: Compute<S>). Positions [j0, j1) must be
// non-empty.
template <typename S, typename F>
void Col2Im(const ConvGeom& g, const S* col, int64_t r0, int64_t r1, int64_t j0, int64_t j1, F* y) {
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
    const S* src = col + (r - r0) * len;
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
            if (ow >= 0 && ow < OW) row[ow] += Load(src[t]);
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
      if (inside) ym[off] += Load(src[j - j0]);
      for (size_t d = nsp; d-- > 0;) {
        if (++iidx[d] < g.in[d]) break;
        iidx[d] = 0;
      }
    }
  }
}

}  // namespace tessera::cpu
