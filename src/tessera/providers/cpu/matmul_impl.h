// Pieces of the MatMul and Gemm kernels shared with the fused kernels
// (ai.tessera:FusedMatMul, FusedGemm): numpy matmul broadcasting, and Gemm
// with an epilogue run on its output rows.
#pragma once

#include <memory>
#include <vector>

#include "tessera/ops/kernel.h"
#include "tessera/providers/cpu/epilogue.h"
#include "tessera/providers/cpu/matmul_gemm.h"

namespace tessera::cpu {

struct MatMulPlan {
  Shape out_shape;
  int64_t m = 0, n = 0, k = 0;
  int64_t a_batches = 1, b_batches = 1;      // batch counts of the operands themselves
  std::vector<int64_t> a_index, b_index;     // per output batch: operand batch index
  bool fold_a_batch = false;                 // b has one batch, a's batches are the output's
};

// Output shape and batch pairing of numpy matmul(a, b); fails naming the node.
MatMulPlan PlanMatMul(const Shape& as, const Shape& bs, const KernelContext& ctx);

// Runs C[batch] = A[a_index] * B[b_index] for a plan on contiguous buffers.
template <typename C>
inline void RunMatMulPlan(const MatMulPlan& p, const C* a, const C* b, C* out) {
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

class PackedB;
// Input `input` of the node packed for the GEMM as op(B) (transposed when
// trans_b) when it is a constant float matrix, else null. A kernel holding
// it reads the input no more (OpKernel::ReadsInput), so the session frees it.
std::shared_ptr<const PackedB> PackConstantB(const KernelInfo& info, size_t input, bool trans_b);

// ai.onnx Gemm whose float output rows go through `epilogue` after alpha*AB + beta*C.
std::unique_ptr<OpKernel> MakeGemmKernel(const KernelInfo& info, std::shared_ptr<const Epilogue> epilogue);

}  // namespace tessera::cpu
