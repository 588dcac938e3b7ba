// The int8 right-hand operand of the quantized products (MatMulInteger,
// QLinearMatMul, com.microsoft DynamicQuantizeMatMul): B [K, N] less its
// zero points, packed for the int8 GEMM (int8_gemm.h) once when it is a
// constant, and the product over it. Defined in quantized_matmul.cc.
#pragma once

#include <memory>
#include <optional>

#include "tessera/ir/tensor.h"
#include "tessera/ops/kernel.h"
#include "tessera/providers/cpu/int8_gemm.h"

namespace tessera::cpu {

struct Int8B {
  std::shared_ptr<const PackedInt8B> packed;
  // Instead of `packed`, for a constant B where AVX2 is the best target:
  // B^T [N, K] as the A side of the byte-quad form, the product computed as
  // C^T = B^T A^T (the weights take the side whose saturating pairs are
  // split once, at creation).
  std::shared_ptr<const PackedInt8A> transposed;
  bool is_signed = false;
  Shape shape;
};

// B packed with its zero point (one, or one per column), or nullopt when B
// is not an int8/uint8 matrix or zb does not fit it.
std::optional<Int8B> PackInt8B(const Tensor& b, const Tensor* zb);
// Input b_input packed once at kernel creation, when it and its zero point
// (input zp_input, or none) are constants the int8 path takes; else null.
std::shared_ptr<const Int8B> PackConstantInt8B(const KernelInfo& info, size_t b_input, size_t zp_input);
// B of the node now: the one packed at creation, or input b_input packed
// for this run; nullopt when the int8 path does not take it.
std::optional<Int8B> Int8BOf(KernelContext& ctx, const std::shared_ptr<const Int8B>& constant, size_t b_input,
                             size_t zp_input);
// A kernel over an int8 B (input kB) and its zero point (input kBZero),
// packed once at creation when both are constants; then neither is read at
// run time.
template <size_t kB, size_t kBZero>
class Int8BKernel : public OpKernel {
 public:
  explicit Int8BKernel(const KernelInfo& info) : packed_(PackConstantInt8B(info, kB, kBZero)) {}
  bool ReadsInput(size_t i) const override { return packed_ == nullptr || (i != kB && i != kBZero); }

 protected:
  // B of this run (Int8BOf).
  std::optional<Int8B> OperandB(KernelContext& ctx) const { return Int8BOf(ctx, packed_, kB, kBZero); }

 private:
  std::shared_ptr<const Int8B> packed_;
};

// The inputs of QLinearConv and QLinearMatMul but B (input 3) and its zero
// point (input 5), which the int8 path may have packed at creation: the
// layout the two ops share.
struct QLinearOperands {
  const Tensor& a;
  const Tensor& a_scale;
  const Tensor* a_zero;
  const Tensor& b_scale;
  const Tensor& y_scale;
  const Tensor* y_zero;
};
inline QLinearOperands ReadQLinearOperands(const KernelContext& ctx) {
  return {ctx.input(0), ctx.input(1), ctx.optional_input(2), ctx.input(4), ctx.input(6), ctx.optional_input(7)};
}

// C [rows, n] (int32) = (A - za)(B - zb) for A [..., M, K], into c (numpy
// matmul's output shape `out`, rows * n values).
void RunInt8Gemm(KernelContext& ctx, const Tensor& a, const Tensor* za, const Int8B& b, const Shape& out, int32_t* c);

}  // namespace tessera::cpu
