// Products with a constant weight matrix as a host step on Tessera's packed
// GEMM (providers/common/sgemm.h), where oneDNN has only its generic GEMM for
// them: oneDNN 2.6's brgemm matmul needs AVX-512, and below it `gemm:jit`
// ran at 47% of the FMA ceiling on an AVX2 Zen 3 host and at 3-5 GFLOP/s on
// the CNN classifiers' single-row products (docs/performance.md).
#pragma once

#include <dnnl.hpp>

#include <string>

#include "tessera/providers/dnnl/dnnl_compiler.h"
#include "tessera/providers/dnnl/dnnl_post_ops.h"

namespace tessera::dnnl_ep {

// Whether `pd` runs oneDNN's generic GEMM rather than a brgemm kernel.
bool UsesGenericGemm(const dnnl::matmul::primitive_desc& pd);

// The product y = chain(alpha * A op(B) + bias) for a plain A [m, k] (plan
// value `a`), a constant B ([k, n], or [n, k] when trans_b) and a constant
// bias of n values or none: B is packed at the first run; the step splits the columns
// over oneDNN's OpenMP team; bias and the chain's eltwise post-ops run after
// it as one oneDNN binary step. Defines chain.output [m, n] plain, and
// returns its plan value.
int EmitHostGemm(Compiler& c, const Node& n, int a, int64_t m, const Tensor& b, bool trans_b, float alpha,
                 const Tensor* bias, const PostOpChain& chain);

}  // namespace tessera::dnnl_ep
