// Pieces of the MatMul and Gemm kernels shared with the fused kernels
// (ai.tessera:FusedMatMul, FusedGemm): numpy matmul broadcasting, and Gemm
// with an epilogue run on its output rows.
#pragma once

#include <memory>
#include <vector>

#include "tessera/ops/kernel.h"
#include "tessera/providers/cpu/epilogue.h"

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

class PackedB;
// Input `input` of the node packed for the GEMM as op(B) (transposed when
// trans_b) when it is a constant float matrix, else null. A kernel holding
// it reads the input no more (OpKernel::ReadsInput), so the session frees it.
std::shared_ptr<const PackedB> PackConstantB(const KernelInfo& info, size_t input, bool trans_b);

// ai.onnx Gemm whose float output rows go through `epilogue` after alpha*AB + beta*C.
std::unique_ptr<OpKernel> MakeGemmKernel(const KernelInfo& info, std::shared_ptr<const Epilogue> epilogue);

}  // namespace tessera::cpu
