// Elementwise activations as oneDNN eltwise algorithms, and the fusion of a
// producer's consumers into it as post-ops (Conv -> Relu, Conv -> Add -> Relu,
// Conv -> Sigmoid/Mul (SiLU), Gemm -> Clip ...): the fused chain writes once.
#pragma once

#include <dnnl.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tessera/ir/graph.h"
#include "tessera/ir/tensor.h"

namespace tessera::dnnl_ep {

class Compiler;

struct EltwiseOp {
  dnnl::algorithm algorithm;
  float alpha = 0.0f;
  float beta = 0.0f;
};

// The eltwise chain computing a unary activation node, or nullopt when
// oneDNN has no match (or its parameters are not constant).
// constant_input(i) is node input i's value when known at compile time.
std::optional<std::vector<EltwiseOp>> EltwiseOf(const Node& node, int64_t opset,
                                                const std::function<const Tensor*(size_t)>& constant_input);
std::optional<std::vector<EltwiseOp>> EltwiseOf(const Compiler& c, const Node& node);
// The chain of an ai.tessera fused node's `activation` attribute.
std::optional<std::vector<EltwiseOp>> FusedActivationOf(const Node& node);

struct PostOpChain {
  dnnl::post_ops ops;
  std::string output;     // the graph value the fused primitive produces
  std::string sum_input;  // the value added by a sum post-op, or ""
  // A SiLU that follows but is left out of `ops` (see AbsorbPostOps): the
  // graph value it produces, or "". EmitTrailingSilu runs it.
  std::string silu_output;
  bool empty() const { return ops.len() == 0; }
};

// Absorbs the consumers that follow `output` (only consumer each, read
// nowhere else) as post-ops: activations, SiLU written as x * Sigmoid(x),
// GELU written out (MatchGelu), and, when allow_sum and nothing
// precedes it, one Add of a same-shape value already computed. With silu_as_post_op false, a SiLU ends the chain
// instead and is recorded in silu_output.
PostOpChain AbsorbPostOps(Compiler& c, const std::string& output, bool allow_sum, PostOpChain chain = {},
                          bool silu_as_post_op = true);

// Runs chain.silu_output's SiLU in place on `value` (the fused primitive's
// result) as a oneDNN eltwise step; does nothing when there is none.
void EmitTrailingSilu(Compiler& c, const PostOpChain& chain, int value, const std::string& label);

// GELU as exporters write it without the Gelu op (opset < 20), with x's
// consumers in the partition:
//   erf form:  0.5 * x * (1 + erf(x / sqrt 2))            (BERT, ViT)
//   tanh form: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))  (GPT-2)
// the scaling by 1/sqrt 2 as a Div or a Mul, x^3 as x*x*x, constants on
// either side, and 0.5 applied to x or to the product.
// `nodes` are the nodes it spans, `output` the value the last produces.
struct GeluMatch {
  std::vector<const Node*> nodes;
  std::string output;
  dnnl::algorithm algorithm;  // eltwise_gelu_erf or eltwise_gelu_tanh
};
std::optional<GeluMatch> MatchGelu(const Compiler& c, const std::string& x);

// Lowers the GELU that `n` (one of its nodes) belongs to as one oneDNN
// eltwise step on its input, when `n` starts one; returns whether it did.
bool LowerGeluAt(Compiler& c, const Node& n);

// Makes the destination of a primitive with a sum post-op: a value holding
// `sum_input` in `dst` layout that the primitive accumulates into.
int SumDestination(Compiler& c, const std::string& output, const std::string& sum_input, const dnnl::memory::desc& dst);

}  // namespace tessera::dnnl_ep
