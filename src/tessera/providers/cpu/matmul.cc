// Matrix products: MatMul, Gemm, MatMulInteger, QLinearMatMul, Einsum.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tessera/ir/float_formats.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/kernel_util.h"
#include "tessera/providers/cpu/matmul_gemm.h"

namespace tessera::cpu {

namespace {

// ---- numpy matmul shape logic -------------------------------------------------

struct MatMulPlan {
  Shape out_shape;
  int64_t m = 0, n = 0, k = 0;
  int64_t a_batches = 1, b_batches = 1;      // batch counts of the operands themselves
  std::vector<int64_t> a_index, b_index;     // per output batch: operand batch index
  bool fold_a_batch = false;                 // b has one batch, a's batches are the output's
};

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

// Runs C[batch] = A[a_index] * B[b_index] for a plan on contiguous buffers.
template <typename C>
void RunMatMulPlan(const MatMulPlan& p, const C* a, const C* b, C* out) {
  int64_t batch = static_cast<int64_t>(p.a_index.size());
  if (p.fold_a_batch) {
    GemmAny<C>(false, false, batch * p.m, p.n, p.k, a, p.k, b, p.n, out, p.n, false);
    return;
  }
  for (int64_t i = 0; i < batch; ++i) {
    const C* ap = a + p.a_index[static_cast<size_t>(i)] * p.m * p.k;
    const C* bp = b + p.b_index[static_cast<size_t>(i)] * p.k * p.n;
    GemmAny<C>(false, false, p.m, p.n, p.k, ap, p.k, bp, p.n, out + i * p.m * p.n, p.n, false);
  }
}

template <typename T, typename C = typename Compute<T>::type>
std::vector<C> ToComputeVector(const Tensor& t) {
  const T* src = t.data<T>();
  std::vector<C> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = static_cast<C>(Load(src[i]));
  return v;
}

// ---- MatMul -------------------------------------------------------------------

class MatMul final : public OpKernel {
 public:
  explicit MatMul(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
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
};

// ---- Gemm ---------------------------------------------------------------------

class Gemm final : public OpKernel {
 public:
  explicit Gemm(const KernelInfo& info)
      : trans_a_(info.attr_int("transA", 0) != 0),
        trans_b_(info.attr_int("transB", 0) != 0),
        alpha_(info.attr_float("alpha", 1.0f)),
        beta_(info.attr_float("beta", 1.0f)) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.rank() != 2 || b.rank() != 2)
      ctx.Fail("Gemm expects 2-D A and B, got ", a.Describe(), " and ", b.Describe());
    if (a.dtype() != b.dtype())
      ctx.Fail("inputs have different element types ", DataTypeName(a.dtype()), " and ", DataTypeName(b.dtype()));
    int64_t m = trans_a_ ? a.dim(1) : a.dim(0);
    int64_t k = trans_a_ ? a.dim(0) : a.dim(1);
    int64_t kb = trans_b_ ? b.dim(1) : b.dim(0);
    int64_t n = trans_b_ ? b.dim(0) : b.dim(1);
    if (k != kb) ctx.Fail("Gemm inner dimensions differ: ", a.Describe(), " x ", b.Describe(),
                          " (transA=", trans_a_, ", transB=", trans_b_, ")");
    const Tensor* c = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    // Unidirectional broadcast of C to [M, N]: offsets by row and column stride.
    int64_t c_rs = 0, c_cs = 0;
    if (c) {
      if (c->dtype() != a.dtype()) ctx.Fail("C has element type ", DataTypeName(c->dtype()), ", expected ",
                                            DataTypeName(a.dtype()));
      const Shape& cs = c->shape();
      bool ok = cs.size() <= 2;
      int64_t cr = 1, cc = 1;
      if (cs.size() == 2) { cr = cs[0]; cc = cs[1]; }
      if (cs.size() == 1) cc = cs[0];
      ok = ok && (cr == 1 || cr == m) && (cc == 1 || cc == n);
      if (!ok) ctx.Fail("C of shape ", ShapeToString(cs), " cannot be broadcast to [", m, ",", n, "]");
      c_rs = cr == 1 ? 0 : cc;
      c_cs = cc == 1 ? 0 : 1;
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
          bp = b.data<F>();
          yp = y.data<F>();
        } else {
          abuf = ToComputeVector<T>(a);
          bbuf = ToComputeVector<T>(b);
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
        if constexpr (std::is_same_v<F, float>)
          GemmF32(trans_a_, trans_b_, m, n, k, alpha, ap, a.dim(1), bp, b.dim(1), use_c ? 1.0f : 0.0f, yp, n);
        else
          GemmF64(trans_a_, trans_b_, m, n, k, alpha, ap, a.dim(1), bp, b.dim(1), use_c ? 1.0 : 0.0, yp, n);
        if constexpr (!std::is_same_v<T, F>) {
          T* yo = y.data<T>();
          for (int64_t i = 0; i < m * n; ++i) yo[i] = StoreAs<T>(yp[i]);
        }
      } else {
        T* yp = y.data<T>();
        GemmLoop<T>(trans_a_, trans_b_, m, n, k, a.data<T>(), a.dim(1), b.data<T>(), b.dim(1), yp, n, false);
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
              v = static_cast<T>(static_cast<int64_t>(r));
            }
          }
      }
    });
  }

 private:
  bool trans_a_, trans_b_;
  float alpha_, beta_;
};

// ---- quantized helpers --------------------------------------------------------

bool IsFloat8(DataType t) {
  return t == DataType::kFloat8E4M3FN || t == DataType::kFloat8E4M3FNUZ || t == DataType::kFloat8E5M2 ||
         t == DataType::kFloat8E5M2FNUZ;
}

// Value i of an int8/uint8/float8 tensor as double.
inline double QuantValue(DataType t, const void* data, int64_t i) {
  switch (t) {
    case DataType::kInt8: return static_cast<const int8_t*>(data)[i];
    case DataType::kUInt8: return static_cast<const uint8_t*>(data)[i];
    default: return Float8ToFloat(t, static_cast<const uint8_t*>(data)[i]);
  }
}

// Element i of a scale / zero point / bias tensor as double.
double QuantOrFloat(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kInt8:
    case DataType::kUInt8:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ: return QuantValue(t.dtype(), t.raw_data(), i);
    case DataType::kFloat: return t.data<float>()[i];
    case DataType::kDouble: return t.data<double>()[i];
    case DataType::kFloat16: return Load(t.data<Float16>()[i]);
    case DataType::kBFloat16: return Load(t.data<BFloat16>()[i]);
    default: return t.GetAsDouble(i);
  }
}

// A scale or zero-point tensor broadcast (unidirectionally) to `target`,
// materialized as doubles. A 1-D tensor whose length matches target's
// second-to-last dim is read per row when `rowwise` (the [M] form of a [M, K]
// operand's per-row parameters).
std::vector<double> ExpandParam(const Tensor* p, const Shape& target, bool rowwise, const char* what,
                                const KernelContext& ctx, double absent = 0.0) {
  int64_t total = SizeFromDim(target, 0);
  std::vector<double> out(static_cast<size_t>(total), absent);
  if (!p) return out;
  if (p->numel() == 1) {
    std::fill(out.begin(), out.end(), QuantOrFloat(*p, 0));
    return out;
  }
  Shape ps = p->shape();
  if (rowwise && ps.size() == 1 && target.size() >= 2 && ps[0] == target[target.size() - 2]) ps.push_back(1);
  bool ok = ps.size() <= target.size();
  for (size_t i = 0; ok && i < ps.size(); ++i) {
    int64_t t = target[target.size() - ps.size() + i];
    ok = ps[i] == t || ps[i] == 1;
  }
  if (!ok) ctx.Fail(what, " of shape ", ShapeToString(p->shape()), " does not match its operand (", ShapeToString(target), ")");
  BroadcastIndexer bi(target, {ps});
  bi.ForEachRun([&](int64_t o, const int64_t* offs, int64_t n, const int64_t* steps) {
    for (int64_t j = 0; j < n; ++j) out[static_cast<size_t>(o + j)] = QuantOrFloat(*p, offs[0] + j * steps[0]);
  });
  return out;
}

}  // namespace
}  // namespace tessera::cpu
