// com.microsoft QGemm: Gemm over 8-bit operands (ONNX Runtime's quantizer
// writes it for Gemm nodes in the QOperator format):
//   A, a_scale, a_zero_point, B, b_scale, b_zero_point [, C] [, y_scale]
//   [, y_zero_point];  attributes alpha, transA, transB
//   acc[m, n] = sum_k (A - za)(B - zb[n])           exact, in int32
//   f = alpha * a_scale * b_scale[n] * acc + C * a_scale * b_scale[n]
// with C int32 (quantized with zero point 0 and the product's scale,
// broadcast to (M, N)). Y is f as float without y_scale, else
// saturate(round(f / y_scale) + y_zero_point) in y_zero_point's type.
// QGemm is a classifier's last layer: a direct loop, split over rows.
#include <algorithm>
#include <cmath>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {
namespace {

int32_t ByteAt(const Tensor& t, int64_t i) {
  return t.dtype() == DataType::kInt8 ? int32_t{t.data<int8_t>()[i]} : int32_t{t.data<uint8_t>()[i]};
}

class QGemm final : public OpKernel {
 public:
  explicit QGemm(const KernelInfo& info)
      : alpha_(info.attr_float("alpha", 1.0f)),
        trans_a_(info.attr_int("transA", 0) != 0),
        trans_b_(info.attr_int("transB", 0) != 0) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(3);
    for (const Tensor* t : {&a, &b})
      if ((t->dtype() != DataType::kInt8 && t->dtype() != DataType::kUInt8) || t->rank() != 2)
        ctx.Fail("A and B must be int8/uint8 matrices, got ", a.Describe(), " and ", b.Describe());
    const int64_t M = trans_a_ ? a.dim(1) : a.dim(0), K = trans_a_ ? a.dim(0) : a.dim(1);
    const int64_t kb = trans_b_ ? b.dim(1) : b.dim(0), N = trans_b_ ? b.dim(0) : b.dim(1);
    if (kb != K) ctx.Fail("inner dimensions differ: op(A) is (", M, ", ", K, "), op(B) (", kb, ", ", N, ")");
    const Tensor& a_scale = ctx.input(1);
    const Tensor& b_scale = ctx.input(4);
    if (a_scale.dtype() != DataType::kFloat || a_scale.numel() != 1) ctx.Fail("a_scale must be one float, got ", a_scale.Describe());
    if (b_scale.dtype() != DataType::kFloat || (b_scale.numel() != 1 && b_scale.numel() != N))
      ctx.Fail("b_scale must be float with 1 or ", N, " values, got ", b_scale.Describe());
    const int32_t za = ctx.has_input(2) ? Zero(ctx, 2, a.dtype(), 1, "a_zero_point") [0] : 0;
    const std::vector<int32_t> zb = ctx.has_input(5) ? Zero(ctx, 5, b.dtype(), N, "b_zero_point") : std::vector<int32_t>{0};
    const Tensor* c = ctx.optional_input(6);
    if (c && (c->dtype() != DataType::kInt32 || c->rank() > 2 ||
              (c->rank() == 2 && (c->dim(0) != 1 && c->dim(0) != M)) || (c->rank() >= 1 && c->shape().back() != 1 && c->shape().back() != N)))
      ctx.Fail("C must be int32 broadcasting to (", M, ", ", N, "), got ", c->Describe());
    const bool quantized = ctx.has_input(7);
    float ys = 1.f;
    int32_t zy = 0;
    DataType ydt = DataType::kFloat;
    if (quantized) {
      const Tensor& yst = ctx.input(7);
      if (yst.dtype() != DataType::kFloat || yst.numel() != 1) ctx.Fail("y_scale must be one float, got ", yst.Describe());
      ys = yst.data<float>()[0];
      ydt = ctx.has_input(8) ? ctx.input(8).dtype() : DataType::kUInt8;
      if (ydt != DataType::kInt8 && ydt != DataType::kUInt8) ctx.Fail("y_zero_point must be int8 or uint8");
      if (ctx.has_input(8)) zy = Zero(ctx, 8, ydt, 1, "y_zero_point")[0];
    }
    Tensor& y = ctx.allocate_output(0, ydt, {M, N});
    if (y.numel() == 0) return;
    const float as = a_scale.data<float>()[0];
    ParallelFor(ctx.thread_pool(), M, 1, [&](int64_t m0, int64_t m1) {
      for (int64_t m = m0; m < m1; ++m)
        for (int64_t n = 0; n < N; ++n) {
          int32_t acc = 0;
          const int32_t zbn = zb[zb.size() == 1 ? 0 : static_cast<size_t>(n)];
          for (int64_t k = 0; k < K; ++k)
            acc += (ByteAt(a, trans_a_ ? k * M + m : m * K + k) - za) * (ByteAt(b, trans_b_ ? n * K + k : k * N + n) - zbn);
          const float scale = as * b_scale.data<float>()[b_scale.numel() == 1 ? 0 : n];
          float f = alpha_ * scale * static_cast<float>(acc);
          if (c) {
            const int64_t cm = c->rank() == 2 && c->dim(0) == M ? m : 0, cn = c->numel() == 1 || c->shape().back() == 1 ? 0 : n;
            f += scale * static_cast<float>(c->data<int32_t>()[cm * (c->numel() == 1 ? 0 : c->shape().back()) + cn]);
          }
          if (!quantized) {
            y.data<float>()[m * N + n] = f;
            continue;
          }
          const float q = std::nearbyint(f / ys) + static_cast<float>(zy);
          if (ydt == DataType::kInt8) y.data<int8_t>()[m * N + n] = static_cast<int8_t>(std::clamp(q, -128.f, 127.f));
          else y.data<uint8_t>()[m * N + n] = static_cast<uint8_t>(std::clamp(q, 0.f, 255.f));
        }
    });
  }

 private:
  static std::vector<int32_t> Zero(const KernelContext& ctx, size_t i, DataType dt, int64_t max_values, const char* what) {
    const Tensor& t = ctx.input(i);
    if (t.dtype() != dt || (t.numel() != 1 && t.numel() != max_values))
      ctx.Fail(what, " must be ", max_values == 1 ? "one value" : "1 or N values", " of its operand's type, got ", t.Describe());
    std::vector<int32_t> v(static_cast<size_t>(t.numel()));
    for (int64_t k = 0; k < t.numel(); ++k) v[static_cast<size_t>(k)] = ByteAt(t, k);
    return v;
  }

  float alpha_;
  bool trans_a_, trans_b_;
};

}  // namespace

std::vector<KernelRow> QGemmKernels() {
  return {{kMicrosoftDomain, "QGemm", 1, 1, {DataType::kInt8, DataType::kUInt8}, Make<QGemm>()}};
}

}  // namespace tessera::cpu
