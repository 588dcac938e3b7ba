// ai.tessera:Attention, the optimizer's scaled-dot-product attention:
//   Y = softmax(scale * Q KT (+ mask | masked fill), last axis) V
// with Q [..., Sq, D], KT [..., D, Skv] (keys already transposed, as the
// pattern's MatMul reads them), V [..., Skv, Dv] sharing their leading axes.
// A float mask is added to the scores; a bool mask keeps a score where true
// and replaces it by the attribute mask_fill where false (Where's form). The
// mask broadcasts to [..., Sq, Skv]. Each (batch, head) runs its two GEMMs
// and the softmax on one Sq x Skv scratch block, so the score tensors the
// unfused graph materialized three times never exist.
#include <algorithm>
#include <cmath>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/matmul_gemm.h"

namespace tessera::cpu {

namespace {

class FusedAttention final : public OpKernel {
 public:
  explicit FusedAttention(const KernelInfo& info)
      : scale_(info.attr_float("scale", 1.0f)), mask_fill_(info.attr_float("mask_fill", 0.0f)) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& q = ctx.input(0);
    const Tensor& kt = ctx.input(1);
    const Tensor& v = ctx.input(2);
    const Tensor* mask = ctx.optional_input(3);
    if (q.rank() < 2 || kt.rank() != q.rank() || v.rank() != q.rank())
      ctx.Fail("Q, KT and V must have the same rank >= 2, got ", q.Describe(), ", ", kt.Describe(), ", ",
               v.Describe());
    size_t r = static_cast<size_t>(q.rank());
    Shape lead(q.shape().begin(), q.shape().end() - 2);
    if (!std::equal(lead.begin(), lead.end(), kt.shape().begin()) ||
        !std::equal(lead.begin(), lead.end(), v.shape().begin()))
      ctx.Fail("Q, KT and V must share their leading axes, got ", q.Describe(), ", ", kt.Describe(), ", ",
               v.Describe());
    int64_t sq = q.dim(q.rank() - 2), d = q.dim(q.rank() - 1);
    int64_t skv = kt.dim(kt.rank() - 1), dv = v.dim(v.rank() - 1);
    if (kt.dim(kt.rank() - 2) != d || v.dim(v.rank() - 2) != skv)
      ctx.Fail("shapes do not chain: Q ", q.Describe(), ", KT ", kt.Describe(), ", V ", v.Describe());
    for (const Tensor* t : {&kt, &v})
      if (t->dtype() != q.dtype()) ctx.Fail("Q, KT and V must share an element type, got ", t->Describe());
    Shape out_shape = lead;
    out_shape.push_back(sq);
    out_shape.push_back(dv);
    Tensor& y = ctx.allocate_output(0, q.dtype(), out_shape);
    int64_t batch = SizeFromDim(lead, 0);

    // Mask strides over [lead..., Sq, Skv] (0 along broadcast axes).
    std::vector<int64_t> mask_batch_off(static_cast<size_t>(batch), 0);
    int64_t mrow = 0, mcol = 0;
    if (mask) {
      if (mask->dtype() != q.dtype() && mask->dtype() != DataType::kBool)
        ctx.Fail("mask must be bool or Q's element type, got ", mask->Describe());
      Shape full = lead;
      full.push_back(sq);
      full.push_back(skv);
      if (static_cast<size_t>(mask->rank()) > r) ctx.Fail("mask ", mask->Describe(), " has too many axes");
      std::vector<int64_t> own = StridesOf(mask->shape()), st(r, 0);
      size_t off = r - static_cast<size_t>(mask->rank());
      for (size_t i = 0; i < static_cast<size_t>(mask->rank()); ++i) {
        int64_t md = mask->dim(static_cast<int64_t>(i));
        if (md != 1 && md != full[off + i])
          ctx.Fail("mask ", mask->Describe(), " does not broadcast to ", ShapeToString(full));
        st[off + i] = md == 1 ? 0 : own[i];
      }
      mrow = st[r - 2];
      mcol = st[r - 1];
      std::vector<int64_t> idx(r - 2, 0);
      for (int64_t b = 0; b < batch; ++b) {
        int64_t o = 0;
        for (size_t k = 0; k + 2 < r; ++k) o += idx[k] * st[k];
        mask_batch_off[static_cast<size_t>(b)] = o;
        for (size_t k = r - 2; k-- > 0;) {
          if (++idx[k] < lead[k]) break;
          idx[k] = 0;
        }
      }
    }
    if (y.numel() == 0) return;
    switch (q.dtype()) {
      case DataType::kFloat: Run<float>(q, kt, v, mask, mask_batch_off, mrow, mcol, y, ctx); break;
      case DataType::kDouble: Run<double>(q, kt, v, mask, mask_batch_off, mrow, mcol, y, ctx); break;
      default: ctx.Fail("element type ", DataTypeName(q.dtype()), " is not supported (expected float or double)");
    }
  }

 private:
  template <typename F>
  static void Gemm(int64_t m, int64_t n, int64_t k, F alpha, const F* a, const F* b, F* c) {
    if constexpr (std::is_same_v<F, float>) GemmF32(false, false, m, n, k, alpha, a, k, b, n, 0.0f, c, n);
    else GemmF64(false, false, m, n, k, alpha, a, k, b, n, 0.0, c, n);
  }

  template <typename F>
  void Run(const Tensor& q, const Tensor& kt, const Tensor& v, const Tensor* mask,
           const std::vector<int64_t>& mask_batch_off, int64_t mrow, int64_t mcol, Tensor& y,
           KernelContext& ctx) const {
    int64_t sq = q.dim(q.rank() - 2), d = q.dim(q.rank() - 1);
    int64_t skv = kt.dim(kt.rank() - 1), dv = v.dim(v.rank() - 1);
    int64_t batch = static_cast<int64_t>(mask_batch_off.size());
    const F* qp = q.data<F>();
    const F* kp = kt.data<F>();
    const F* vp = v.data<F>();
    F* yp = y.data<F>();
    bool bool_mask = mask && mask->dtype() == DataType::kBool;
    const F* mf = mask && !bool_mask ? mask->data<F>() : nullptr;
    const bool* mb = bool_mask ? mask->data<bool>() : nullptr;
    F scale = static_cast<F>(scale_), fill = static_cast<F>(mask_fill_);
    int64_t per = std::max<int64_t>(1, sq * skv * (d + dv));
    ParallelFor(ctx.thread_pool(), batch, std::max<int64_t>(1, 65536 / per), [&](int64_t b0, int64_t b1) {
      std::vector<F> s(static_cast<size_t>(sq * skv));
      for (int64_t b = b0; b < b1; ++b) {
        Gemm<F>(sq, skv, d, scale, qp + b * sq * d, kp + b * d * skv, s.data());
        int64_t mo = mask_batch_off[static_cast<size_t>(b)];
        for (int64_t i = 0; i < sq; ++i) {
          F* row = s.data() + i * skv;
          if (mf) {
            const F* m = mf + mo + i * mrow;
            for (int64_t j = 0; j < skv; ++j) row[j] += m[j * mcol];
          } else if (mb) {
            const bool* m = mb + mo + i * mrow;
            for (int64_t j = 0; j < skv; ++j)
              if (!m[j * mcol]) row[j] = fill;
          }
          // Softmax as the Softmax kernel computes it (max, exp, one scaling).
          F mx = row[0];
          for (int64_t j = 1; j < skv; ++j)
            if (row[j] > mx || (std::isnan(row[j]) && !std::isnan(mx))) mx = row[j];
          F sum = 0;
          for (int64_t j = 0; j < skv; ++j) {
            row[j] = std::exp(row[j] - mx);
            sum += row[j];
          }
          F inv = F(1) / sum;
          for (int64_t j = 0; j < skv; ++j) row[j] *= inv;
        }
        Gemm<F>(sq, dv, skv, F(1), s.data(), vp + b * skv * dv, yp + b * sq * dv);
      }
    });
  }

  float scale_, mask_fill_;
};

}  // namespace

std::vector<KernelRow> FusedAttentionKernels() {
  return {{kTesseraDomain, "Attention", 1, 1, {DataType::kFloat, DataType::kDouble}, Make<FusedAttention>()}};
}

}  // namespace tessera::cpu
