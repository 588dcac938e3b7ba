// DeformConv: a convolution whose every kernel tap samples the input at a
// learned offset (multilinear interpolation), optionally scaled by a mask;
// the samples form an im2col matrix that one GEMM per group consumes.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/conv_geometry.h"
#include "tessera/providers/cpu/conv_impl.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/matmul_gemm.h"

namespace tessera::cpu {

namespace {

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
    const Tensor* b = ctx.optional_input(3);
    const Tensor* mask = ctx.optional_input(4);
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

}  // namespace

std::vector<KernelRow> DeformConvKernels() {
  std::vector<DataType> f3 = {DataType::kFloat, DataType::kDouble, DataType::kFloat16};
  return {
      {"ai.onnx", "DeformConv", 19, 21, f3, Make<DeformConv>()},
      {"ai.onnx", "DeformConv", 22, kMaxOnnxOpset, types::Floats(), Make<DeformConv>()},
  };
}

}  // namespace tessera::cpu
