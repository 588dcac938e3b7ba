// What the passes that turn QDQ groups into com.microsoft QLinear ops share
// (fuse_qdq_binary.cc, fuse_qdq_lookup.cc, fuse_qdq_concat.cc,
// fuse_qdq_pool.cc): reading a per-tensor QuantizeLinear / DequantizeLinear
// with constant scalar parameters, the zero-point inputs the QLinear ops
// take, removing a fused group, and the verbose log of each group.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tessera/optimizer/fuse_util.h"

namespace tessera {

// One Q or DQ node's per-tensor parameters: constant float scale and
// int8/uint8 zero point (zero may be "", then 0 of `type`).
struct QdqParams {
  int node = -1;
  std::string scale, zero;
  float scale_value = 1.0f;
  int32_t zero_value = 0;
  DataType type = DataType::kUndefined;  // the quantized side's element type
};

// QuantizeLinear node qi when it is per tensor (block_size 0, saturate 1,
// no output_dtype override) with constant scalar parameters and an 8-bit
// output; nullopt otherwise.
std::optional<QdqParams> PerTensorQuantize(const FusionGraph& fg, int qi);

// The DequantizeLinear producing `value` under the same conditions, and its
// quantized input (`q`); nullopt otherwise.
struct Dequantize8 : QdqParams {
  std::string q;
};
std::optional<Dequantize8> PerTensorDequantize(const FusionGraph& fg, const std::string& value);

// The zero point input a QLinear op takes for `p`: its own, or a new 0 of
// its type (the QLinear ops' zero points are positional).
std::string ZeroPointInput(FusionGraph& fg, const QdqParams& p);

// Removes the fused group: Q node qi, the float nodes between, and each
// DequantizeLinear that nothing reads anymore.
void RemoveQdqGroup(FusionGraph& fg, int qi, const std::vector<int>& float_nodes, const std::vector<int>& dequantizers);

// "pass: node [ai.onnx:Add] -> QLinearAdd" or "... stays float: why", at
// verbose level; returns 0 (nothing rewritten) for the declined case.
int LogQdqDeclined(const PassContext& ctx, const char* pass, const Node& op, const std::string& why);
void LogQdqFused(const PassContext& ctx, const char* pass, const Node& op, const std::string& fused_op);

// A com.microsoft QLinear node named after the float op it replaces.
Node MakeQLinearNode(const Node& op, const char* fused_op, const std::string& output);

// A unary group DequantizeLinear(x) -> op -> QuantizeLinear at Q node qi,
// op the first of `ops` producing the Q's input: per-tensor parameters of
// one 8-bit type, the DequantizeLinear bound for cpu. nullopt otherwise,
// after logging why at verbose level when it is a QDQ group at all.
struct UnaryQdqGroup {
  int op = -1;
  Dequantize8 x;
  QdqParams y;
};
std::optional<UnaryQdqGroup> UnaryQdqGroupAt(const FusionGraph& fg, int qi, const std::vector<const char*>& ops,
                                             const PassContext& ctx, const char* pass);

}  // namespace tessera
