// Kernels of the fused operators the graph optimizer produces (domain
// ai.tessera, opset 1; semantics in docs/optimizer.md, "Extended level").
// Each reuses the CPU implementation of the operators it replaces, so a
// fused node computes what the unfused sequence computed, in fewer passes.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/common/simd_elementwise.h"
#include "tessera/providers/cpu/conv_impl.h"
#include "tessera/providers/cpu/elementwise_broadcast.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/fused_activation.h"
#include "tessera/providers/cpu/matmul_gemm.h"
#include "tessera/providers/cpu/matmul_impl.h"
#include "tessera/providers/cpu/normalization_impl.h"
#include "tessera/providers/cpu/tensor_layout_util.h"
#include "tessera/providers/cpu/vector_math.h"

namespace tessera::cpu {

FusedActivation::FusedActivation(const KernelInfo& info) {
  std::string a = info.attr_string("activation", "");
  std::vector<float> p = info.attr_floats("activation_params", {});
  size_t want = 0;
  if (a.empty() || a == "None") kind_ = Kind::kNone;
  else if (a == "Relu") kind_ = Kind::kRelu;
  else if (a == "Clip") kind_ = Kind::kClip, want = 2;
  else if (a == "LeakyRelu") kind_ = Kind::kLeakyRelu, want = 1;
  else if (a == "Sigmoid") kind_ = Kind::kSigmoid;
  else if (a == "HardSigmoid") kind_ = Kind::kHardSigmoid, want = 2;
  else if (a == "Silu") kind_ = Kind::kSilu;
  else if (a == "Gelu") kind_ = Kind::kGelu;
  else if (a == "GeluTanh") kind_ = Kind::kGeluTanh;
  else if (a == "Tanh") kind_ = Kind::kTanh;  // ONNX Runtime's FusedConv writes it
  else
    info.Fail("unknown activation '", a,
              "' (expected Relu, Clip, LeakyRelu, Sigmoid, HardSigmoid, Silu, Gelu, GeluTanh or Tanh)");
  if (p.size() != want)
    info.Fail("activation ", a, " takes ", want, " activation_params, got ", p.size());
  if (want > 0) p0_ = p[0];
  if (want > 1) p1_ = p[1];
}

namespace {

using elementwise::UnaryLoop;

// ---- FusedConv / FusedGemm: the plain kernels with an activation epilogue ------

// com.microsoft's FusedConv may add Z (Y's shape, left by a Conv + Add
// fusion) before the activation: the convolution then runs plain and one pass
// over Y adds Z and activates. ai.tessera's form has no Z.
class FusedConv final : public OpKernel {
 public:
  explicit FusedConv(const KernelInfo& info)
      : act_(std::make_shared<const FusedActivation>(info)),
        with_z_(info.has_input(3)),
        impl_(MakeConvKernel(info, false, with_z_ ? nullptr : act_)) {}
  void Compute(KernelContext& ctx) const override {
    impl_->Compute(ctx);
    if (with_z_) AddZAndActivate(ctx);
  }

 private:
  void AddZAndActivate(KernelContext& ctx) const {
    Tensor& y = ctx.output(0);
    const Tensor& z = ctx.input(3);
    if (z.dtype() != y.dtype() || z.shape() != y.shape())
      ctx.Fail("Z must have the output's type and shape ", DataTypeName(y.dtype()), ShapeToString(y.shape()),
               ", got ", z.Describe());
    const FusedActivation& act = *act_;
    DispatchFloat(y.dtype(), ctx, [&]<typename T>() {
      const T* zp = z.data<T>();
      T* yp = y.data<T>();
      ParallelFor(ctx.thread_pool(), y.numel(), 1 << 14, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) yp[i] = StoreAs<T>(act(Load(yp[i]) + Load(zp[i])));
      });
    });
  }

  std::shared_ptr<const FusedActivation> act_;
  bool with_z_;
  std::unique_ptr<OpKernel> impl_;
};

class FusedGemm final : public OpKernel {
 public:
  explicit FusedGemm(const KernelInfo& info)
      : impl_(MakeGemmKernel(info, std::make_shared<const FusedActivation>(info))) {}
  void Compute(KernelContext& ctx) const override { impl_->Compute(ctx); }

 private:
  std::unique_ptr<OpKernel> impl_;
};

// ---- FusedMatMul: act(alpha * op(A) op(B) + bias) ----------------------------------
// op() transposes the last two axes when transA / transB is set; bias is a
// vector over the last output axis. One GEMM per batch, then one pass over
// the output for bias and activation together. com.microsoft's
// transBatchA / transBatchB first move the operand's axis 0 behind its batch
// axes, to the row position ([d0, d1.., dr-1] read as [d1.., d0, dr-1]);
// both operands must then have one rank, at least 3 (ONNX Runtime's rule).
// Exporters rarely set them, so the operand is permuted into a copy.

Shape SwapLastTwo(Shape s, const KernelContext& ctx, const char* what) {
  if (s.size() < 2) ctx.Fail(what, " must have rank >= 2 to be transposed, got ", ShapeToString(s));
  std::swap(s[s.size() - 1], s[s.size() - 2]);
  return s;
}

class FusedMatMul final : public OpKernel {
 public:
  explicit FusedMatMul(const KernelInfo& info)
      : trans_a_(info.attr_int("transA", 0) != 0),
        trans_b_(info.attr_int("transB", 0) != 0),
        trans_batch_a_(info.attr_int("transBatchA", 0) != 0),
        trans_batch_b_(info.attr_int("transBatchB", 0) != 0),
        alpha_(info.attr_float("alpha", 1.0f)),
        act_(info),
        packed_b_(trans_batch_b_ ? nullptr : PackConstantB(info, 1, trans_b_)) {
    if (packed_b_) b_shape_ = info.constant_input(1)->shape();
  }
  bool ReadsInput(size_t i) const override { return i != 1 || packed_b_ == nullptr; }

  void Compute(KernelContext& ctx) const override {
    Tensor a_moved, b_moved;
    if (trans_batch_a_ || trans_batch_b_) MoveBatchAxes(ctx, a_moved, b_moved);
    const Tensor& a = trans_batch_a_ ? a_moved : ctx.input(0);
    const Tensor* b = packed_b_ ? nullptr : trans_batch_b_ ? &b_moved : &ctx.input(1);
    const DataType b_type = b ? b->dtype() : DataType::kFloat;
    if (a.dtype() != b_type)
      ctx.Fail("inputs have different element types ", DataTypeName(a.dtype()), " and ", DataTypeName(b_type));
    Shape as = trans_a_ ? SwapLastTwo(a.shape(), ctx, "A") : a.shape();
    const Shape& b_shape = b ? b->shape() : b_shape_;
    Shape bs = trans_b_ ? SwapLastTwo(b_shape, ctx, "B") : b_shape;
    MatMulPlan p = PlanMatMul(as, bs, ctx);
    const Tensor* bias = ctx.optional_input(2);
    if (bias) {
      if (bias->dtype() != a.dtype())
        ctx.Fail("bias has element type ", DataTypeName(bias->dtype()), ", expected ", DataTypeName(a.dtype()));
      if (bias->numel() != p.n || bias->rank() > 1)
        ctx.Fail("bias must be a vector of ", p.n, " values (the last output axis), got ", bias->Describe());
    }
    Tensor& y = ctx.allocate_output(0, a.dtype(), p.out_shape);
    switch (a.dtype()) {
      case DataType::kFloat: Run<float>(p, a, b, bias, y, ctx); break;
      case DataType::kDouble: Run<double>(p, a, b, bias, y, ctx); break;
      default: ctx.Fail("element type ", DataTypeName(a.dtype()), " is not supported (expected float or double)");
    }
  }

 private:
  // The transBatch operands, axis 0 moved to the row position.
  void MoveBatchAxes(const KernelContext& ctx, Tensor& a, Tensor& b) const {
    const Tensor& x = ctx.input(0);
    // B may be packed at creation (and its tensor released) when only A moves.
    const Shape& w_shape = packed_b_ ? b_shape_ : ctx.input(1).shape();
    if (x.rank() != static_cast<int64_t>(w_shape.size()) || x.rank() < 3)
      ctx.Fail("transBatchA / transBatchB need A and B of one rank, at least 3; got A ", ShapeToString(x.shape()),
               " and B ", ShapeToString(w_shape));
    std::vector<int64_t> perm;
    for (int64_t i = 1; i + 1 < x.rank(); ++i) perm.push_back(i);
    perm.push_back(0);
    perm.push_back(x.rank() - 1);
    if (trans_batch_a_) a = layout::TransposeTensor(x, perm, ctx);
    if (trans_batch_b_) b = layout::TransposeTensor(ctx.input(1), perm, ctx);
  }

  template <typename F>
  static void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, F alpha, const F* a, int64_t lda, const F* b,
                   int64_t ldb, F* c, int64_t ldc) {
    if constexpr (std::is_same_v<F, float>) GemmF32(ta, tb, m, n, k, alpha, a, lda, b, ldb, 0.0f, c, ldc);
    else GemmF64(ta, tb, m, n, k, alpha, a, lda, b, ldb, 0.0, c, ldc);
  }

  template <typename F>
  void Run(const MatMulPlan& p, const Tensor& a, const Tensor* b, const Tensor* bias, Tensor& y,
           KernelContext& ctx) const {
    const F* ap = a.data<F>();
    F* yp = y.data<F>();
    F alpha = static_cast<F>(alpha_);
    int64_t lda = trans_a_ ? p.m : p.k, ldb = trans_b_ ? p.k : p.n;
    int64_t batch = static_cast<int64_t>(p.a_index.size());
    // B's batch b_offset times A's rows: B packed at creation, or as given.
    auto product = [&](bool ta, int64_t m, const F* a_at, int64_t b_offset, F* y_at) {
      if constexpr (std::is_same_v<F, float>)
        if (packed_b_) return GemmPackedF32(ta, m, alpha, a_at, lda, *packed_b_, 0.f, y_at, p.n);
      Gemm<F>(ta, trans_b_, m, p.n, p.k, alpha, a_at, lda, b->data<F>() + b_offset * p.k * p.n, ldb, y_at, p.n);
    };
    if (p.fold_a_batch && !trans_a_) {
      product(false, batch * p.m, ap, 0, yp);
    } else {
      for (int64_t i = 0; i < batch; ++i)
        product(trans_a_, p.m, ap + p.a_index[static_cast<size_t>(i)] * p.m * p.k, p.b_index[static_cast<size_t>(i)],
                yp + i * p.m * p.n);
    }
    const F* bv = bias ? bias->data<F>() : nullptr;
    if (!bv && !act_.active()) return;
    int64_t rows = p.n > 0 ? y.numel() / p.n : 0;
    ParallelFor(ctx.thread_pool(), rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(p.n, 1)),
                [&](int64_t r0, int64_t r1) {
                  for (int64_t r = r0; r < r1; ++r) {
                    F* row = yp + r * p.n;
                    if (bv)
                      for (int64_t j = 0; j < p.n; ++j) row[j] += bv[j];
                    act_.Apply(row, p.n);
                  }
                });
  }

  bool trans_a_, trans_b_, trans_batch_a_, trans_batch_b_;
  float alpha_;
  FusedActivation act_;
  std::shared_ptr<const PackedB> packed_b_;  // a constant float matrix B
  Shape b_shape_;
};

// ---- Gelu (any opset; ai.onnx has it from 20) --------------------------------------

class Gelu final : public OpKernel {
 public:
  explicit Gelu(const KernelInfo& info) {
    std::string a = info.attr_string("approximate", "none");
    if (a != "none" && a != "tanh")
      info.Fail("attribute approximate must be \"none\" or \"tanh\", got \"", a, "\"");
    tanh_ = a == "tanh";
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    bool tanh_form = tanh_;
    if (x.dtype() == DataType::kFloat) {
      // The SIMD erf / tanh in blocks (vector_math.h).
      const float* in = x.data<float>();
      float* out = y.data<float>();
      ParallelFor(ctx.thread_pool(), x.numel(), 1 << 14, [&](int64_t b, int64_t e) {
        std::copy(in + b, in + e, out + b);
        (tanh_form ? GeluTanhInPlace : GeluErfInPlace)(out + b, e - b);
      });
      return;
    }
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      UnaryLoop<T, T>(x, y, ctx.thread_pool(), [tanh_form](const T& v) {
        auto c = Load(v);
        return StoreAs<T>(tanh_form ? GeluTanh(c) : GeluErf(c));
      });
    });
  }

 private:
  bool tanh_ = false;
};

// ---- Layer / RMS normalization at any opset ------------------------------------

template <bool kRms>
class Norm final : public OpKernel {
 public:
  explicit Norm(const KernelInfo& info) : impl_(MakeLayerNormKernel(info, kRms)) {}
  void Compute(KernelContext& ctx) const override { impl_->Compute(ctx); }

 private:
  std::unique_ptr<OpKernel> impl_;
};

// ---- SkipLayerNormalization: LayerNorm(X + Skip [+ Bias]) over the last axis -----
// Output 0 the normalized sum, optional output 1 the sum itself. The sum is
// rounded to the element type before the statistics, as the unfused Add
// would store it; statistics accumulate in double as LayerNormalization does.

class SkipLayerNormalization final : public OpKernel {
 public:
  explicit SkipLayerNormalization(const KernelInfo& info) : epsilon_(info.attr_float("epsilon", 1e-5f)) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& skip = ctx.input(1);
    const Tensor& gamma = ctx.input(2);
    const Tensor* beta = ctx.optional_input(3);
    const Tensor* bias = ctx.optional_input(4);
    if (x.rank() == 0) ctx.Fail("X must have rank >= 1");
    if (skip.shape() != x.shape())
      ctx.Fail("Skip of shape ", ShapeToString(skip.shape()), " must have X's shape ", ShapeToString(x.shape()));
    int64_t d = x.shape().back();
    for (const Tensor* t : {&skip, &gamma, beta, bias}) {
      if (!t) continue;
      if (t->dtype() != x.dtype())
        ctx.Fail("inputs must share X's element type ", DataTypeName(x.dtype()), ", got ", t->Describe());
    }
    for (const Tensor* t : {&gamma, beta, bias})
      if (t && t->numel() != d) ctx.Fail("gamma, beta and bias must hold ", d, " values, got ", t->Describe());
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    Tensor* sum = ctx.num_outputs() > 1 && ctx.output_requested(1) ? &ctx.allocate_output(1, x.dtype(), x.shape())
                                                                    : nullptr;
    switch (x.dtype()) {
      case DataType::kFloat: Run<float>(x, skip, gamma, beta, bias, y, sum, ctx); break;
      case DataType::kDouble: Run<double>(x, skip, gamma, beta, bias, y, sum, ctx); break;
      default: ctx.Fail("element type ", DataTypeName(x.dtype()), " is not supported (expected float or double)");
    }
  }

 private:
  template <typename F>
  void Run(const Tensor& x, const Tensor& skip, const Tensor& gamma, const Tensor* beta, const Tensor* bias,
           Tensor& y, Tensor* sum, KernelContext& ctx) const {
    int64_t d = x.shape().back();
    int64_t rows = d > 0 ? x.numel() / d : 0;
    const F* xp = x.data<F>();
    const F* sp = skip.data<F>();
    const F* gp = gamma.data<F>();
    const F* bp = beta ? beta->data<F>() : nullptr;
    const F* biasp = bias ? bias->data<F>() : nullptr;
    F* yp = y.data<F>();
    F* sump = sum ? sum->data<F>() : nullptr;
    double eps = static_cast<double>(epsilon_);
    ParallelFor(ctx.thread_pool(), rows, std::max<int64_t>(1, 8192 / std::max<int64_t>(d, 1)),
                [&](int64_t lo, int64_t hi) {
                  std::vector<F> scratch(sump ? 0 : static_cast<size_t>(d));
                  for (int64_t r = lo; r < hi; ++r) {
                    F* s = sump ? sump + r * d : scratch.data();
                    const F* xr = xp + r * d;
                    const F* kr = sp + r * d;
                    F* yr = yp + r * d;
                    for (int64_t j = 0; j < d; ++j) {
                      F v = xr[j] + kr[j];
                      if (biasp) v += biasp[j];
                      s[j] = v;
                    }
                    if constexpr (std::is_same_v<F, float>) {
                      // The vectorized row (its statistics rounded to float as below).
                      float mean, inv;
                      LayerNormRowF32(s, d, gp, bp, eps, yr, &mean, &inv);
                      continue;
                    }
                    double mean = 0;
                    for (int64_t j = 0; j < d; ++j) mean += static_cast<double>(s[j]);
                    mean /= static_cast<double>(d);
                    double sq = 0;
                    for (int64_t j = 0; j < d; ++j) {
                      double c = static_cast<double>(s[j]) - mean;
                      sq += c * c;
                    }
                    sq /= static_cast<double>(d);
                    double inv = 1.0 / std::sqrt(sq + eps);
                    for (int64_t j = 0; j < d; ++j) {
                      double v = (static_cast<double>(s[j]) - mean) * inv * static_cast<double>(gp[j]);
                      if (bp) v += static_cast<double>(bp[j]);
                      yr[j] = static_cast<F>(v);
                    }
                  }
                });
  }

  float epsilon_;
};

}  // namespace

std::vector<KernelRow> FusedAttentionKernels();  // fused_attention.cc

std::vector<KernelRow> FusedKernels() {
  std::vector<DataType> f2 = {DataType::kFloat, DataType::kDouble};
  std::vector<KernelRow> rows = FusedAttentionKernels();
  std::vector<KernelRow> own = {
      {kTesseraDomain, "FusedConv", 1, 1, types::Floats(), Make<FusedConv>()},
      // ONNX Runtime's: the same activations, and its optional Z.
      {kMicrosoftDomain, "FusedConv", 1, 1, types::Floats(), Make<FusedConv>()},
      {kTesseraDomain, "FusedGemm", 1, 1, f2, Make<FusedGemm>()},
      {kTesseraDomain, "FusedMatMul", 1, 1, f2, Make<FusedMatMul>()},
      // ONNX Runtime's: alpha * op(A) op(B), without bias or activation.
      {kMicrosoftDomain, "FusedMatMul", 1, 1, f2, Make<FusedMatMul>()},
      {kTesseraDomain, "Gelu", 1, 1, types::Floats(), Make<Gelu>()},
      {kTesseraDomain, "LayerNormalization", 1, 1, types::Floats(), Make<Norm<false>>()},
      {kTesseraDomain, "RMSNormalization", 1, 1, types::Floats(), Make<Norm<true>>()},
      {kTesseraDomain, "SkipLayerNormalization", 1, 1, f2, Make<SkipLayerNormalization>()},
  };
  rows.insert(rows.end(), std::make_move_iterator(own.begin()), std::make_move_iterator(own.end()));
  return rows;
}

}  // namespace tessera::cpu
