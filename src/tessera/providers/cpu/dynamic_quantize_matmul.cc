// com.microsoft DynamicQuantizeMatMul: Y = A B with A float, quantized per
// run as DynamicQuantizeLinear does (uint8, the range widened to hold 0),
// B int8/uint8 with per-tensor or per-column scales and zero points, and an
// optional float bias. The product is the exact int8 GEMM; each output is
// float(sum) * (a_scale * b_scale[j]) + bias[j], the same float steps as the
// DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul -> Add chain that
// ONNX Runtime's quantize_dynamic writes and the optimizer fuses into this
// (optimizer/fuse_dynamic_quantize_matmul.cc).
// com.microsoft MatMulIntegerToFloat: the same product and float steps with
// A already quantized (int8/uint8, its scale and zero point given).
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/dynamic_quantization.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/matmul_impl.h"
#include "tessera/providers/cpu/quantized_operands.h"

namespace tessera::cpu {
namespace {

// b_scale (1 or n floats) and the optional float bias (n): checked.
void CheckScaleAndBias(const KernelContext& ctx, const Tensor& b_scale, const Tensor* bias, int64_t n) {
  if (b_scale.dtype() != DataType::kFloat || (b_scale.numel() != 1 && b_scale.numel() != n))
    ctx.Fail("b_scale must be float with 1 or ", n, " values, got ", b_scale.Describe());
  if (bias && (bias->dtype() != DataType::kFloat || bias->numel() != n))
    ctx.Fail("bias must be float with ", n, " values, got ", bias->Describe());
}

// y = float(sums) * (a_scale * b_scale[j]) + bias[j]: the scales multiply
// first (the graph's Mul of the two scales), then each sum, then the bias,
// float steps in the unfused chain's order.
void ScaleSums(KernelContext& ctx, const int32_t* sums, float a_scale, const Tensor& b_scale, const Tensor* bias,
               Tensor& y) {
  const int64_t n = y.shape().back();
  std::vector<float> scale(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j)
    scale[static_cast<size_t>(j)] = a_scale * b_scale.data<float>()[b_scale.numel() == 1 ? 0 : j];
  const float* pb = bias ? bias->data<float>() : nullptr;
  float* py = y.data<float>();
  const int64_t rows = y.numel() / n;
  ParallelFor(ctx.thread_pool(), rows, std::max<int64_t>(1, 8192 / n), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int32_t* c = sums + r * n;
      float* out = py + r * n;
      for (int64_t j = 0; j < n; ++j) {
        const float v = static_cast<float>(c[j]) * scale[static_cast<size_t>(j)];
        out[j] = pb ? v + pb[j] : v;
      }
    }
  });
}

class DynamicQuantizeMatMul final : public Int8BKernel<1, 3> {
 public:
  using Int8BKernel::Int8BKernel;

  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    if (a.dtype() != DataType::kFloat) ctx.Fail("A must be float, got ", DataTypeName(a.dtype()));
    const auto b = OperandB(ctx);
    if (!b)
      ctx.Fail("B must be an int8/uint8 matrix with a b_zero_point of its type, one or one per column; got ",
               ctx.input(1).Describe());
    const int64_t n = b->shape[1];
    const Tensor& b_scale = ctx.input(2);
    const Tensor* bias = ctx.optional_input(4);
    CheckScaleAndBias(ctx, b_scale, bias, n);
    Tensor& y = ctx.allocate_output(0, DataType::kFloat, PlanMatMul(a.shape(), b->shape, ctx).out_shape);
    if (y.numel() == 0) return;

    // A quantized as DynamicQuantizeLinear does it.
    Tensor aq(DataType::kUInt8, a.shape());
    const DynamicQuantization q = DynamicQuantizeU8(a.data<float>(), a.numel(), aq.data<uint8_t>(), ctx.thread_pool());
    const float a_scale = q.scale;
    Tensor az(DataType::kUInt8, {});
    az.data<uint8_t>()[0] = q.zero;

    const auto sums = std::make_unique_for_overwrite<int32_t[]>(static_cast<size_t>(y.numel()));
    RunInt8Gemm(ctx, aq, &az, *b, y.shape(), sums.get());
    ScaleSums(ctx, sums.get(), a_scale, b_scale, bias, y);
  }
};

// Y = float((A - za)(B - zb)) * (a_scale * b_scale[j]) + bias[j].
// Inputs: A, B, a_scale, b_scale, a_zero_point?, b_zero_point?, bias?.
class MatMulIntegerToFloat final : public Int8BKernel<1, 5> {
 public:
  using Int8BKernel::Int8BKernel;

  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    if (a.dtype() != DataType::kInt8 && a.dtype() != DataType::kUInt8)
      ctx.Fail("A must be int8 or uint8, got ", a.Describe());
    const Tensor* az = ctx.optional_input(4);
    if (az && (az->dtype() != a.dtype() || az->numel() != 1))
      ctx.Fail("a_zero_point must be one value of A's type, got ", az->Describe());
    const auto b = OperandB(ctx);
    if (!b)
      ctx.Fail("B must be an int8/uint8 matrix with a b_zero_point of its type, one or one per column; got ",
               ctx.input(1).Describe());
    const int64_t n = b->shape[1];
    const Tensor& a_scale = ctx.input(2);
    const Tensor& b_scale = ctx.input(3);
    if (a_scale.dtype() != DataType::kFloat || a_scale.numel() != 1)
      ctx.Fail("a_scale must be one float (per-tensor A), got ", a_scale.Describe());
    const Tensor* bias = ctx.optional_input(6);
    CheckScaleAndBias(ctx, b_scale, bias, n);
    Tensor& y = ctx.allocate_output(0, DataType::kFloat, PlanMatMul(a.shape(), b->shape, ctx).out_shape);
    if (y.numel() == 0) return;
    const auto sums = std::make_unique_for_overwrite<int32_t[]>(static_cast<size_t>(y.numel()));
    RunInt8Gemm(ctx, a, az, *b, y.shape(), sums.get());
    ScaleSums(ctx, sums.get(), a_scale.data<float>()[0], b_scale, bias, y);
  }
};

}  // namespace

std::vector<KernelRow> DynamicQuantizeMatMulKernels() {
  return {{kMicrosoftDomain, "DynamicQuantizeMatMul", 1, 1, {DataType::kFloat}, Make<DynamicQuantizeMatMul>()},
          {kMicrosoftDomain, "MatMulIntegerToFloat", 1, 1, {DataType::kInt8, DataType::kUInt8},
           Make<MatMulIntegerToFloat>()}};
}

}  // namespace tessera::cpu
