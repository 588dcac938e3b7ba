// Float convolutions: Conv and ConvTranspose (also behind the fused
// ai.tessera:FusedConv, conv_impl.h). Conv lowers to im2col + GEMM per group
// (with a direct path for depthwise 2-D convolutions and no im2col for
// pointwise ones); ConvTranspose is GEMM + col2im. The integer forms
// (conv_integer.cc) run ConvForward in double.
#include <algorithm>
#include <string>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/conv_columns.h"
#include "tessera/providers/cpu/conv_geometry.h"
#include "tessera/providers/cpu/conv_impl.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/matmul_gemm.h"

namespace tessera::cpu {

namespace {

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

// Both passes work per image and group, on chunks of columns: calls
// fn(xg, wg, yg, j0, j1) with the group's slices of X, W (w_per_group
// values a group) and Y, for [j0, j1) over [0, extent) in steps of chunk.
template <typename F, typename Fn>
void ForEachGroupChunk(const ConvGeom& g, const F* x, const F* w, F* y, int64_t w_per_group, int64_t extent,
                       int64_t chunk, Fn&& fn) {
  const int64_t cg = g.c / g.group, mg = g.m / g.group, in_size = g.in_size(), out_size = g.out_size();
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t gi = 0; gi < g.group; ++gi) {
      const F* xg = x + (n * g.c + gi * cg) * in_size;
      const F* wg = w + gi * w_per_group;
      F* yg = y + (n * g.m + gi * mg) * out_size;
      for (int64_t j0 = 0; j0 < extent; j0 += chunk) fn(xg, wg, yg, j0, std::min(extent, j0 + chunk));
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

}  // namespace

// y[n, m, out...] = post(sum conv(x, w) + bias); all buffers contiguous NC(D...).
template <typename F>
void ConvForward(ConvGeom g, const F* x, const F* w, const F* bias, F* y, ThreadPool* pool, const Epilogue* post) {
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
    auto chunk_product = [&](const F* xg, const F* wg, F* yg, int64_t j0, int64_t j1) {
      const int64_t len = j1 - j0;
      if (pointwise) {
        GemmAny<F>(false, false, mg, out_size, cg, wg, cg, xg, in_size, yg, out_size, false);
        return;
      }
      ParallelFor(pool, rows, 16, [&](int64_t r0, int64_t r1) {
        Im2Col(g, xg, r0, r1, j0, j1, col.data() + (r0 * len));
      });
      GemmAny<F>(false, false, mg, len, rows, wg, std::max<int64_t>(rows, 1), col.data(), len, yg + j0, out_size,
                 false);
    };
    ForEachGroupChunk(g, x, w, y, mg * rows, out_size, chunk, chunk_product);
  }
  BiasAndEpilogue(g, out_size, bias, post, y, pool);
}

template void ConvForward<float>(ConvGeom, const float*, const float*, const float*, float*, ThreadPool*,
                                 const Epilogue*);
template void ConvForward<double>(ConvGeom, const double*, const double*, const double*, double*, ThreadPool*,
                                  const Epilogue*);

namespace {

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
    auto chunk_product = [&](const F* xg, const F* wg, F* yg, int64_t j0, int64_t j1) {
      const int64_t len = j1 - j0;
      // col[rows, len] = W_g^T [rows, cg] * X_g[cg, j0:j1]
      GemmAny<F>(true, false, rows, len, cg, wg, rows, xg + j0, in_size, col.data(), len, false);
      // Output channels are disjoint per thread.
      ParallelFor(pool, mg, 1, [&](int64_t m0, int64_t m1) {
        Col2Im(g, col.data() + m0 * ksize * len, m0 * ksize, m1 * ksize, j0, j1, yg);
      });
    };
    ForEachGroupChunk(g, x, w, y, cg * rows, in_size, chunk, chunk_product);
  }
  BiasAndEpilogue(g, out_size, bias, post, y, pool);
}

// Conv and ConvTranspose (kTranspose): the same operands and checks, their
// own geometry and forward pass.
template <bool kTranspose>
class FloatConv final : public OpKernel {
 public:
  explicit FloatConv(const KernelInfo& info, std::shared_ptr<const Epilogue> post = nullptr)
      : a_(ParseConvAttrs(info, kTranspose)), post_(std::move(post)) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor* b = ctx.optional_input(2);
    CheckSameType(x, w, "W", ctx);
    ConvGeom g = kTranspose ? ResolveConvTranspose(a_, x.shape(), w.shape(), ctx)
                            : ResolveConv(a_, x.shape(), w.shape(), ctx);
    if (b) {
      CheckSameType(x, *b, "B", ctx);
      CheckBias(*b, g.m, ctx);
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), OutputShape(g));
    WithFloatBuffers(ctx, x, w, b, y, [&](const auto* xp, const auto* wp, const auto* bp, auto* yp) {
      if constexpr (kTranspose) ConvTransposeForward(g, xp, wp, bp, yp, ctx.thread_pool(), post_.get());
      else ConvForward(g, xp, wp, bp, yp, ctx.thread_pool(), post_.get());
    });
  }

 private:
  ConvAttrs a_;
  std::shared_ptr<const Epilogue> post_;
};

using Conv = FloatConv<false>;
using ConvTranspose = FloatConv<true>;

}  // namespace

std::unique_ptr<OpKernel> MakeConvKernel(const KernelInfo& info, bool transpose,
                                         std::shared_ptr<const Epilogue> epilogue) {
  if (transpose) return std::make_unique<ConvTranspose>(info, std::move(epilogue));
  return std::make_unique<Conv>(info, std::move(epilogue));
}

std::vector<KernelRow> ConvKernels() {
  std::vector<DataType> f3 = {DataType::kFloat, DataType::kDouble, DataType::kFloat16};
  return {
      {"ai.onnx", "Conv", 1, 21, f3, Make<Conv>()},
      {"ai.onnx", "Conv", 22, kMaxOnnxOpset, types::Floats(), Make<Conv>()},
      {"ai.onnx", "ConvTranspose", 1, 21, f3, Make<ConvTranspose>()},
      {"ai.onnx", "ConvTranspose", 22, kMaxOnnxOpset, types::Floats(), Make<ConvTranspose>()},
  };
}

}  // namespace tessera::cpu
