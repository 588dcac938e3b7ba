// The quantized products MatMulInteger and QLinearMatMul. u8/s8 operands
// with B a matrix run on the exact int8 GEMM (int8_gemm.h), B packed once
// when it is a constant; float8 and the other forms on a double-precision
// reference path.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "tessera/ir/float_formats.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/int8_gemm.h"
#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/matmul_impl.h"
#include "tessera/providers/cpu/quantized_operands.h"
#include "tessera/providers/cpu/simd_int32.h"

namespace tessera::cpu {
namespace {

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


// x - zero_point as doubles (zero point broadcast per tensor / row / column).
std::vector<double> Centered(const Tensor& x, const Tensor* zp, bool rowwise, const char* what,
                             const KernelContext& ctx) {
  std::vector<double> v(static_cast<size_t>(x.numel()));
  const void* d = x.raw_data();
  DataType t = x.dtype();
  if (zp && zp->dtype() != t)
    ctx.Fail(what, " has element type ", DataTypeName(zp->dtype()), ", expected ", DataTypeName(t));
  if (!zp || zp->numel() == 1) {
    double z = zp ? QuantOrFloat(*zp, 0) : 0.0;
    for (int64_t i = 0; i < x.numel(); ++i) v[static_cast<size_t>(i)] = QuantValue(t, d, i) - z;
    return v;
  }
  std::vector<double> z = ExpandParam(zp, x.shape(), rowwise, what, ctx);
  for (int64_t i = 0; i < x.numel(); ++i) v[static_cast<size_t>(i)] = QuantValue(t, d, i) - z[static_cast<size_t>(i)];
  return v;
}

void CheckQuantType(const Tensor& t, const char* what, bool allow_float8, const KernelContext& ctx) {
  DataType d = t.dtype();
  if (d == DataType::kInt8 || d == DataType::kUInt8 || (allow_float8 && IsFloat8(d))) return;
  ctx.Fail(what, " has unsupported element type ", DataTypeName(d));
}

inline int32_t WrapToInt32(double v) {
  if (!(std::fabs(v) < 9.2e18)) return 0;
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(static_cast<int64_t>(v))));
}

// Writes real value v quantized into element i of an int8/uint8/float8 buffer.
inline void StoreQuant(DataType t, void* data, int64_t i, double scaled, double zero_point) {
  switch (t) {
    case DataType::kInt8: {
      double q = std::nearbyint(scaled);
      q = (std::isnan(q) ? 0.0 : q) + zero_point;  // NaN -> zero point, as in QuantizeLinear
      static_cast<int8_t*>(data)[i] = static_cast<int8_t>(std::clamp(q, -128.0, 127.0));
      return;
    }
    case DataType::kUInt8: {
      double q = std::nearbyint(scaled);
      q = (std::isnan(q) ? 0.0 : q) + zero_point;  // NaN -> zero point, as in QuantizeLinear
      static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(std::clamp(q, 0.0, 255.0));
      return;
    }
    default:
      static_cast<uint8_t*>(data)[i] = FloatToFloat8(t, static_cast<float>(scaled + zero_point), true);
  }
}

// ---- the int8 GEMM path ------------------------------------------------------
// u8/s8 products with B a matrix run on the exact int8 GEMM (int8_gemm.h):
// MatMulInteger's int32 result is the GEMM's, and QLinearMatMul requantizes
// it. Other forms (float8, batched B, zero points or scales that do not
// broadcast as one per row of A and one per column of B) keep the reference
// path above.

bool IsInt8(DataType t) { return t == DataType::kInt8 || t == DataType::kUInt8; }

// The per-column zero points of a [k, n] B: one value, or n; nullopt when
// zb is of another type or shape.
std::optional<std::vector<int32_t>> ColumnZeroPoints(const Tensor& b, const Tensor* zb) {
  if (zb == nullptr) return std::vector<int32_t>{0};
  if (zb->dtype() != b.dtype() || (zb->numel() != 1 && (zb->rank() != 1 || zb->numel() != b.dim(1))))
    return std::nullopt;
  std::vector<int32_t> z(static_cast<size_t>(zb->numel()));
  for (int64_t j = 0; j < zb->numel(); ++j) z[static_cast<size_t>(j)] = static_cast<int32_t>(QuantOrFloat(*zb, j));
  return z;
}

// ---- MatMulInteger --------------------------------------------------------------

class MatMulInteger final : public Int8BKernel<1, 3> {
 public:
  using Int8BKernel::Int8BKernel;

  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    CheckQuantType(a, "A", false, ctx);
    const Tensor* za = ctx.optional_input(2);
    if (auto b = OperandB(ctx)) {
      Tensor& y = ctx.allocate_output(0, DataType::kInt32, PlanMatMul(a.shape(), b->shape, ctx).out_shape);
      RunInt8Gemm(ctx, a, za, *b, y.shape(), y.data<int32_t>());
      return;
    }
    const Tensor& b = ctx.input(1);
    CheckQuantType(b, "B", false, ctx);
    MatMulPlan p = PlanMatMul(a.shape(), b.shape(), ctx);
    const Tensor* zb = ctx.optional_input(3);
    std::vector<double> ad = Centered(a, za, true, "a_zero_point", ctx);
    std::vector<double> bd = Centered(b, zb, false, "b_zero_point", ctx);
    Tensor& y = ctx.allocate_output(0, DataType::kInt32, p.out_shape);
    std::vector<double> acc(static_cast<size_t>(y.numel()));
    RunMatMulPlan<double>(p, ad.data(), bd.data(), acc.data());
    int32_t* yo = y.data<int32_t>();
    for (int64_t i = 0; i < y.numel(); ++i) yo[i] = WrapToInt32(acc[static_cast<size_t>(i)]);
  }
};

// ---- QLinearMatMul --------------------------------------------------------------

class QLinearMatMul final : public Int8BKernel<3, 5> {
 public:
  explicit QLinearMatMul(const KernelInfo& info) : Int8BKernel(info), allow_float8_(info.opset() >= 21) {}

  void Compute(KernelContext& ctx) const override {
    const QLinearOperands in = ReadQLinearOperands(ctx);
    const auto& [a, a_scale, a_zp, b_scale, y_scale, y_zp] = in;
    CheckQuantType(a, "a", allow_float8_, ctx);
    DataType yt = y_zp ? y_zp->dtype() : DataType::kUInt8;
    if (y_zp) CheckQuantType(*y_zp, "y_zero_point", allow_float8_, ctx);
    for (const Tensor* s : {&a_scale, &b_scale, &y_scale})
      if (!IsFloatingPoint(s->dtype()) || IsFloat8(s->dtype()))
        ctx.Fail("scales must be float tensors, got ", DataTypeName(s->dtype()));
    if (y_scale.numel() != 1) ctx.Fail("y_scale must hold one value, got ", y_scale.Describe());
    if (y_zp && y_zp->numel() != 1) ctx.Fail("y_zero_point must hold one value, got ", y_zp->Describe());
    if (IsInt8(a.dtype()) && IsInt8(yt)) {
      if (auto b = OperandB(ctx)) return ComputeInt8(ctx, in, *b, yt);
    }
    const Tensor& b = ctx.input(3);
    const Tensor* b_zp = ctx.optional_input(5);
    CheckQuantType(b, "b", allow_float8_, ctx);
    MatMulPlan p = PlanMatMul(a.shape(), b.shape(), ctx);
    std::vector<double> ad = Centered(a, a_zp, true, "a_zero_point", ctx);
    std::vector<double> bd = Centered(b, b_zp, false, "b_zero_point", ctx);
    // Per-row scale of a over a's rows, per-column scale of b over b's columns.
    Shape a_rows = a.shape(), b_cols = b.shape();
    a_rows.back() = 1;
    if (b_cols.size() >= 2) b_cols[b_cols.size() - 2] = 1; else b_cols.back() = 1;
    std::vector<double> sa = ExpandParam(&a_scale, a_rows, true, "a_scale", ctx);
    std::vector<double> sb = ExpandParam(&b_scale, b_cols, false, "b_scale", ctx);
    double ys = QuantOrFloat(y_scale, 0);
    double yz = y_zp ? QuantOrFloat(*y_zp, 0) : 0.0;
    Tensor& y = ctx.allocate_output(0, yt, p.out_shape);
    std::vector<double> acc(static_cast<size_t>(y.numel()));
    RunMatMulPlan<double>(p, ad.data(), bd.data(), acc.data());
    int64_t batch = static_cast<int64_t>(p.a_index.size());
    bool b_percol = b.rank() >= 2;
    void* yo = y.raw_data();
    for (int64_t bi = 0; bi < batch; ++bi) {
      int64_t ar = p.a_index[static_cast<size_t>(bi)] * p.m;
      int64_t bc = p.b_index[static_cast<size_t>(bi)] * (b_percol ? p.n : 1);
      for (int64_t i = 0; i < p.m; ++i)
        for (int64_t j = 0; j < p.n; ++j) {
          int64_t o = (bi * p.m + i) * p.n + j;
          double s = sa[static_cast<size_t>(ar + i)] * sb[static_cast<size_t>(bc + (b_percol ? j : 0))];
          StoreQuant(yt, yo, o, acc[static_cast<size_t>(o)] * s / ys, yz);
        }
    }
  }

 private:
  // y = saturate(round(C * a_scale * b_scale / y_scale) + y_zero_point), C
  // from the int8 GEMM; the scales one per row of A and per column of B.
  void ComputeInt8(KernelContext& ctx, const QLinearOperands& in, const Int8B& b, DataType yt) const {
    const auto& [a, a_scale, a_zp, b_scale, y_scale, y_zp] = in;
    const Shape out = PlanMatMul(a.shape(), b.shape, ctx).out_shape;
    const int64_t n = b.shape[1], rows = n > 0 ? SizeFromDim(out, 0) / n : 0;
    const auto c = std::make_unique_for_overwrite<int32_t[]>(static_cast<size_t>(rows * n));
    RunInt8Gemm(ctx, a, a_zp, b, out, c.get());
    Shape a_rows = a.shape();
    a_rows.back() = 1;
    const std::vector<double> sa = ExpandParam(&a_scale, a_rows, true, "a_scale", ctx);
    const std::vector<double> sb = ExpandParam(&b_scale, {1, n}, false, "b_scale", ctx);
    const double ys = QuantOrFloat(y_scale, 0), yz = y_zp ? QuantOrFloat(*y_zp, 0) : 0.0;
    Tensor& y = ctx.allocate_output(0, yt, out);
    const size_t elem = yt == DataType::kInt8 ? sizeof(int8_t) : sizeof(uint8_t);
    const auto z = static_cast<int32_t>(yz);
    // Per column sb / ys; per row times sa, once for all rows when a_scale
    // is one value (the usual case).
    std::vector<double> col(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) col[static_cast<size_t>(j)] = sb[static_cast<size_t>(j)] / ys;
    const bool one_row_scale = std::all_of(sa.begin(), sa.end(), [&](double v) { return v == sa[0]; });
    auto scale_row = [&](int64_t r, std::vector<double>& scale) {
      for (int64_t j = 0; j < n; ++j) scale[static_cast<size_t>(j)] = sa[static_cast<size_t>(r)] * col[static_cast<size_t>(j)];
    };
    std::vector<double> shared(one_row_scale ? static_cast<size_t>(n) : 0);
    if (one_row_scale && rows > 0) scale_row(0, shared);
    ParallelFor(ctx.thread_pool(), rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)), [&](int64_t r0, int64_t r1) {
      std::vector<double> own(one_row_scale ? 0 : static_cast<size_t>(n));
      for (int64_t r = r0; r < r1; ++r) {
        if (!one_row_scale) scale_row(r, own);
        RequantizeI32(c.get() + r * n, n, 0, 0.0, one_row_scale ? shared.data() : own.data(), z, yt == DataType::kInt8,
                      static_cast<uint8_t*>(y.raw_data()) + static_cast<size_t>(r * n) * elem);
      }
    });
  }

  bool allow_float8_;
};

}  // namespace

// B less its zero points, packed for the int8 GEMM, and B's shape.
std::optional<Int8B> PackInt8B(const Tensor& b, const Tensor* zb) {
  if (!IsInt8(b.dtype()) || b.rank() != 2) return std::nullopt;
  auto z = ColumnZeroPoints(b, zb);
  if (!z) return std::nullopt;
  const bool is_signed = b.dtype() == DataType::kInt8;
  auto packed = std::make_shared<const PackedInt8B>(is_signed, b.dim(0), b.dim(1), b.raw_data(), b.dim(1),
                                                    ZeroPoints{z->data(), z->size() > 1});
  return Int8B{std::move(packed), nullptr, is_signed, b.shape()};
}

// Input b_input packed once at kernel creation, when it and its zero point
// (input zp_input, or none) are constants the int8 path takes; else null.
std::shared_ptr<const Int8B> PackConstantInt8B(const KernelInfo& info, size_t b_input, size_t zp_input) {
  const auto b = ConstantWithZeroPointOf(info, b_input, zp_input);
  if (!b) return nullptr;
  const Tensor& w = *b->value;
  if (Int8GemmUsesByteQuads() && IsInt8(w.dtype()) && w.rank() == 2 && w.dim(0) > 0 && w.dim(1) > 0) {
    auto z = ColumnZeroPoints(w, b->zero_point);
    if (!z) return nullptr;
    const bool is_signed = w.dtype() == DataType::kInt8;
    auto transposed = std::make_shared<const PackedInt8A>(PackedInt8A::FromTransposed(
        is_signed, w.dim(0), w.dim(1), w.raw_data(), w.dim(1), ZeroPoints{z->data(), z->size() > 1}));
    return std::make_shared<const Int8B>(Int8B{nullptr, std::move(transposed), is_signed, w.shape()});
  }
  auto packed = PackInt8B(w, b->zero_point);
  return packed ? std::make_shared<const Int8B>(std::move(*packed)) : nullptr;
}

// C [rows, n] (int32) = (A - za)(B - zb) for A [..., M, K] and B packed,
// into c (numpy matmul's output shape, `out`, rows * n values).
void RunInt8Gemm(KernelContext& ctx, const Tensor& a, const Tensor* za, const Int8B& b, const Shape& out, int32_t* c) {
  if (!IsInt8(a.dtype())) ctx.Fail("A has unsupported element type ", DataTypeName(a.dtype()));
  if (za && za->dtype() != a.dtype())
    ctx.Fail("a_zero_point has element type ", DataTypeName(za->dtype()), ", expected ", DataTypeName(a.dtype()));
  const int64_t k = b.shape[0], n = b.shape[1], rows = n > 0 ? SizeFromDim(out, 0) / n : 0;
  std::vector<int32_t> z{0};
  if (za && za->numel() == 1) {
    z[0] = static_cast<int32_t>(QuantOrFloat(*za, 0));
  } else if (za) {
    Shape a_rows = a.shape();
    a_rows.back() = 1;
    std::vector<double> zd = ExpandParam(za, a_rows, true, "a_zero_point", ctx);
    z.assign(zd.begin(), zd.end());
  }
  const bool a_signed = a.dtype() == DataType::kInt8;
  const ZeroPoints a_zero{z.data(), z.size() > 1};
  if (b.transposed == nullptr)
    return Int8GemmS32Pooled(ctx.thread_pool(), rows, a_signed, a.raw_data(), k, a_zero, *b.packed, c, n);
  // C^T [n, rows] = B^T A^T, then C. A's rows are the columns of the
  // transposed product, its zero points theirs.
  thread_local PackedInt8B at;
  at.RepackTransposed(a_signed, k, rows, a.raw_data(), k, a_zero, *b.transposed, ctx.thread_pool());
  const auto ct = std::make_unique_for_overwrite<int32_t[]>(static_cast<size_t>(rows * n));
  Int8GemmS32Pooled(ctx.thread_pool(), n, b.is_signed, nullptr, k, ZeroPoints{}, at, ct.get(), rows, nullptr,
                    b.transposed.get());
  TransposeInt32(ct.get(), n, rows, c, ctx.thread_pool());
}

// B of the node now: the one packed at creation, or input b_input packed
// for this run; nullopt when the int8 path does not take it.
std::optional<Int8B> Int8BOf(KernelContext& ctx, const std::shared_ptr<const Int8B>& constant, size_t b_input,
                             size_t zp_input) {
  if (constant) return *constant;
  return PackInt8B(ctx.input(b_input), ctx.optional_input(zp_input));
}

std::vector<KernelRow> QuantizedMatMulKernels() {
  std::vector<DataType> q8 = {DataType::kInt8, DataType::kUInt8};
  std::vector<DataType> q8f8 = {DataType::kInt8, DataType::kUInt8, DataType::kFloat8E4M3FN,
                                DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2, DataType::kFloat8E5M2FNUZ};
  return {
      {"ai.onnx", "MatMulInteger", 10, kMaxOnnxOpset, q8, Make<MatMulInteger>()},
      {"ai.onnx", "QLinearMatMul", 10, 20, q8, Make<QLinearMatMul>()},
      {"ai.onnx", "QLinearMatMul", 21, kMaxOnnxOpset, q8f8, Make<QLinearMatMul>()},
  };
}

}  // namespace tessera::cpu
