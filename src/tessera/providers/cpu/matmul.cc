// Matrix products: MatMul and Gemm (Einsum: einsum.cc).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tessera/ir/float_formats.h"
#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/common/sgemm.h"
#include "tessera/providers/common/shape_rules.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/matmul_gemm.h"
#include "tessera/providers/cpu/matmul_impl.h"

namespace tessera::cpu {

// ---- numpy matmul shape logic -------------------------------------------------

MatMulPlan PlanMatMul(const Shape& as, const Shape& bs, const KernelContext& ctx) {
  if (as.empty() || bs.empty())
    ctx.Fail("MatMul operands must have rank >= 1, got ", ShapeToString(as), " and ", ShapeToString(bs));
  Shape a2 = as, b2 = bs;
  if (a2.size() == 1) a2.insert(a2.begin(), 1);
  if (b2.size() == 1) b2.push_back(1);
  MatMulPlan p;
  p.m = a2[a2.size() - 2];
  p.k = a2.back();
  p.n = b2.back();
  if (b2[b2.size() - 2] != p.k)
    ctx.Fail("MatMul inner dimensions differ: ", ShapeToString(as), " x ", ShapeToString(bs));
  Shape ab(a2.begin(), a2.end() - 2), bb(b2.begin(), b2.end() - 2);
  Shape ob = BroadcastShapes({ab, bb}, ctx);
  p.out_shape = ob;
  if (as.size() > 1) p.out_shape.push_back(p.m);
  if (bs.size() > 1) p.out_shape.push_back(p.n);
  int64_t batch = SizeFromDim(ob, 0);
  p.a_batches = SizeFromDim(ab, 0);
  p.b_batches = SizeFromDim(bb, 0);
  p.a_index.resize(static_cast<size_t>(batch));
  p.b_index.resize(static_cast<size_t>(batch));
  size_t r = ob.size();
  auto strides_for = [&](const Shape& s) {
    std::vector<int64_t> st(r, 0), own = StridesOf(s);
    size_t off = r - s.size();
    for (size_t i = 0; i < s.size(); ++i) st[off + i] = s[i] == 1 ? 0 : own[i];
    return st;
  };
  std::vector<int64_t> sa = strides_for(ab), sb = strides_for(bb), idx(r, 0);
  for (int64_t bi = 0; bi < batch; ++bi) {
    int64_t ai = 0, bj = 0;
    for (size_t d = 0; d < r; ++d) {
      ai += idx[d] * sa[d];
      bj += idx[d] * sb[d];
    }
    p.a_index[static_cast<size_t>(bi)] = ai;
    p.b_index[static_cast<size_t>(bi)] = bj;
    for (size_t d = r; d-- > 0;) {
      if (++idx[d] < ob[d]) break;
      idx[d] = 0;
    }
  }
  p.fold_a_batch = p.b_batches == 1 && p.a_batches == batch;
  return p;
}

std::shared_ptr<const PackedB> PackConstantB(const KernelInfo& info, size_t input, bool trans_b) {
  const Tensor* b = info.constant_input(input);
  if (b == nullptr || b->dtype() != DataType::kFloat || b->rank() != 2 || b->numel() == 0) return nullptr;
  const int64_t k = trans_b ? b->dim(1) : b->dim(0), n = trans_b ? b->dim(0) : b->dim(1);
  return std::make_shared<const PackedB>(trans_b, k, n, b->data<float>(), b->dim(1));
}

namespace {


template <typename T, typename C = typename cpu::Compute<T>::type>
std::vector<C> ToComputeVector(const Tensor& t) {
  const T* src = t.data<T>();
  std::vector<C> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = static_cast<C>(Load(src[i]));
  return v;
}

// ---- MatMul -------------------------------------------------------------------

class MatMul final : public OpKernel {
 public:
  explicit MatMul(const KernelInfo& info) : packed_b_(PackConstantB(info, 1, false)) {
    if (packed_b_) b_shape_ = info.constant_input(1)->shape();
  }
  bool ReadsInput(size_t i) const override { return i != 1 || packed_b_ == nullptr; }

  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    if (packed_b_) return ComputePacked(a, ctx);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype())
      ctx.Fail("inputs have different element types ", DataTypeName(a.dtype()), " and ", DataTypeName(b.dtype()));
    MatMulPlan p = PlanMatMul(a.shape(), b.shape(), ctx);
    Tensor& y = ctx.allocate_output(0, a.dtype(), p.out_shape);
    DispatchNumeric(a.dtype(), ctx, [&]<typename T>() {
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    (std::is_integral_v<T> && sizeof(T) >= 4)) {
        RunMatMulPlan<T>(p, a.data<T>(), b.data<T>(), y.data<T>());
      } else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
        std::vector<float> af = ToComputeVector<T>(a), bf = ToComputeVector<T>(b);
        std::vector<float> yf(static_cast<size_t>(y.numel()));
        RunMatMulPlan<float>(p, af.data(), bf.data(), yf.data());
        T* yo = y.data<T>();
        for (int64_t i = 0; i < y.numel(); ++i) yo[i] = StoreAs<T>(yf[static_cast<size_t>(i)]);
      } else {
        RunMatMulPlan<T>(p, a.data<T>(), b.data<T>(), y.data<T>());
      }
    });
  }

 private:
  // B is a constant float matrix, packed: every batch of A is rows of one product.
  void ComputePacked(const Tensor& a, KernelContext& ctx) const {
    if (a.dtype() != DataType::kFloat)
      ctx.Fail("inputs have different element types ", DataTypeName(a.dtype()), " and float");
    MatMulPlan p = PlanMatMul(a.shape(), b_shape_, ctx);
    Tensor& y = ctx.allocate_output(0, DataType::kFloat, p.out_shape);
    GemmPackedF32(false, a.numel() / std::max<int64_t>(p.k, 1), 1.f, a.data<float>(), p.k, *packed_b_, 0.f,
                  y.data<float>(), p.n);
  }

  std::shared_ptr<const PackedB> packed_b_;
  Shape b_shape_;
};

// ---- Gemm ---------------------------------------------------------------------

class Gemm final : public OpKernel {
 public:
  explicit Gemm(const KernelInfo& info, std::shared_ptr<const Epilogue> post = nullptr)
      : post_(std::move(post)),
        trans_a_(info.attr_int("transA", 0) != 0),
        trans_b_(info.attr_int("transB", 0) != 0),
        alpha_(info.attr_float("alpha", 1.0f)),
        beta_(info.attr_float("beta", 1.0f)),
        packed_b_(PackConstantB(info, 1, trans_b_)) {
    if (packed_b_) b_describe_ = info.constant_input(1)->Describe();
  }
  bool ReadsInput(size_t i) const override { return i != 1 || packed_b_ == nullptr; }

  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor* b = packed_b_ ? nullptr : &ctx.input(1);
    // A packed constant B is described by its shape as stored.
    const Shape b_shape = b ? b->shape()
                            : trans_b_ ? Shape{packed_b_->n(), packed_b_->k()} : Shape{packed_b_->k(), packed_b_->n()};
    const DataType b_type = b ? b->dtype() : DataType::kFloat;
    if (a.rank() == 2 && b_shape.size() == 2 && a.dtype() != b_type)
      ctx.Fail("inputs have different element types ", DataTypeName(a.dtype()), " and ", DataTypeName(b_type));
    const GemmDims dims = ResolveGemm(ctx, a.shape(), b_shape, trans_a_, trans_b_, a.Describe(),
                                      b ? b->Describe() : b_describe_);
    const int64_t m = dims.m, k = dims.k, n = dims.n;
    const Tensor* c = ctx.optional_input(2);
    // Unidirectional broadcast of C to [M, N]: offsets by row and column stride.
    int64_t c_rs = 0, c_cs = 0;
    if (c) {
      if (c->dtype() != a.dtype()) ctx.Fail("C has element type ", DataTypeName(c->dtype()), ", expected ",
                                            DataTypeName(a.dtype()));
      const GemmBiasStrides cs = ResolveGemmBias(ctx, c->shape(), m, n);
      c_rs = cs.m;
      c_cs = cs.n;
    }
    Tensor& y = ctx.allocate_output(0, a.dtype(), {m, n});
    bool use_c = c && beta_ != 0.0f;
    DispatchNumeric(a.dtype(), ctx, [&]<typename T>() {
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, Float16> ||
                    std::is_same_v<T, BFloat16>) {
        using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
        std::vector<F> abuf, bbuf, ybuf;
        const F* ap;
        const F* bp;
        F* yp;
        if constexpr (std::is_same_v<T, F>) {
          ap = a.data<F>();
          bp = b ? b->data<F>() : nullptr;
          yp = y.data<F>();
        } else {
          abuf = ToComputeVector<T>(a);
          bbuf = ToComputeVector<T>(*b);
          ybuf.resize(static_cast<size_t>(m * n));
          ap = abuf.data();
          bp = bbuf.data();
          yp = ybuf.data();
        }
        if (use_c) {
          const T* cp = c->data<T>();
          F beta = static_cast<F>(beta_);
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) yp[i * n + j] = beta * static_cast<F>(Load(cp[i * c_rs + j * c_cs]));
        }
        F alpha = static_cast<F>(alpha_);
        if constexpr (std::is_same_v<T, float>) {
          if (packed_b_) GemmPackedF32(trans_a_, m, alpha, ap, a.dim(1), *packed_b_, use_c ? 1.0f : 0.0f, yp, n);
          else GemmF32(trans_a_, trans_b_, m, n, k, alpha, ap, a.dim(1), bp, b->dim(1), use_c ? 1.0f : 0.0f, yp, n);
        } else if constexpr (std::is_same_v<F, float>) {
          GemmF32(trans_a_, trans_b_, m, n, k, alpha, ap, a.dim(1), bp, b->dim(1), use_c ? 1.0f : 0.0f, yp, n);
        } else {
          GemmF64(trans_a_, trans_b_, m, n, k, alpha, ap, a.dim(1), bp, b->dim(1), use_c ? 1.0 : 0.0, yp, n);
        }
        if (post_)
          ParallelFor(ctx.thread_pool(), m, std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)),
                      [&](int64_t r0, int64_t r1) {
                        for (int64_t r = r0; r < r1; ++r) post_->Apply(yp + r * n, n);
                      });
        if constexpr (!std::is_same_v<T, F>) {
          T* yo = y.data<T>();
          for (int64_t i = 0; i < m * n; ++i) yo[i] = StoreAs<T>(yp[i]);
        }
      } else {
        T* yp = y.data<T>();
        GemmLoop<T>(trans_a_, trans_b_, m, n, k, a.data<T>(), a.dim(1), b->data<T>(), b->dim(1), yp, n, false);
        const T* cp = use_c ? c->data<T>() : nullptr;
        bool plain = alpha_ == 1.0f && (beta_ == 1.0f || !use_c);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            T& v = yp[i * n + j];
            if (plain) {
              if (cp) v = WrapMulAdd<T>(v, cp[i * c_rs + j * c_cs], T{1});
            } else {
              double r = static_cast<double>(alpha_) * static_cast<double>(v);
              if (cp) r += static_cast<double>(beta_) * static_cast<double>(cp[i * c_rs + j * c_cs]);
              v = std::fabs(r) < 9.2e18 ? static_cast<T>(static_cast<int64_t>(r)) : T{};
            }
          }
      }
    });
  }

 private:
  std::shared_ptr<const Epilogue> post_;
  bool trans_a_, trans_b_;
  float alpha_, beta_;
  std::shared_ptr<const PackedB> packed_b_;  // a constant float B
  std::string b_describe_;                   // for errors, once B is freed
};

}  // namespace

std::unique_ptr<OpKernel> MakeGemmKernel(const KernelInfo& info, std::shared_ptr<const Epilogue> epilogue) {
  return std::make_unique<Gemm>(info, std::move(epilogue));
}

std::vector<KernelRow> MatMulKernels() {
  std::vector<DataType> mm_types = {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kInt32,
                                    DataType::kInt64, DataType::kUInt32, DataType::kUInt64};
  std::vector<DataType> f3 = {DataType::kFloat, DataType::kDouble, DataType::kFloat16};
  std::vector<DataType> mm13 = types::Join(mm_types, {DataType::kBFloat16});
  return {
      {"ai.onnx", "MatMul", 1, 8, f3, Make<MatMul>()},
      {"ai.onnx", "MatMul", 9, 12, mm_types, Make<MatMul>()},
      {"ai.onnx", "MatMul", 13, kMaxOnnxOpset, mm13, Make<MatMul>()},
      {"ai.onnx", "Gemm", 1, 8, f3, Make<Gemm>()},
      {"ai.onnx", "Gemm", 9, 12, mm_types, Make<Gemm>()},
      {"ai.onnx", "Gemm", 13, kMaxOnnxOpset, mm13, Make<Gemm>()},
  };
}

}  // namespace tessera::cpu
