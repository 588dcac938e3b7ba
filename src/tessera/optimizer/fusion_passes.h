// EXTENDED-level fusion passes (docs/optimizer.md, "Extended level"). Each
// rewrites a pattern of ai.onnx nodes into fewer nodes: folded constants,
// standard ops with more inputs, or fused ops in the ai.tessera domain that
// the CPU provider implements (providers/cpu/fused.cc).
#pragma once

#include <memory>
#include <vector>

#include "tessera/optimizer/graph_pass.h"

namespace tessera {

// Appends the fusion passes, in the order they should run.
void AppendFusionPasses(std::vector<std::unique_ptr<GraphPass>>& passes);

std::unique_ptr<GraphPass> MakeConvBnFold();              // fuse_conv_bn.cc
std::unique_ptr<GraphPass> MakeConvBiasFusion();          // fuse_conv_bias.cc
std::unique_ptr<GraphPass> MakeMatMulBiasFusion();        // fuse_matmul_bias.cc
std::unique_ptr<GraphPass> MakeGeluFusion();              // fuse_gelu.cc
std::unique_ptr<GraphPass> MakeLayerNormFusion();         // fuse_layer_norm.cc
std::unique_ptr<GraphPass> MakeRmsNormFusion();           // fuse_layer_norm.cc
std::unique_ptr<GraphPass> MakeSkipLayerNormFusion();     // fuse_skip_layer_norm.cc
std::unique_ptr<GraphPass> MakeAttentionFusion();         // fuse_attention.cc
std::unique_ptr<GraphPass> MakeTransposeMatMulFusion();   // fuse_transpose_matmul.cc
std::unique_ptr<GraphPass> MakeActivationFusion();        // fuse_activation.cc
std::unique_ptr<GraphPass> MakeQdqPairRemoval();          // fuse_qdq.cc
std::unique_ptr<GraphPass> MakeQdqDataMovement();         // fuse_qdq_data_movement.cc
std::unique_ptr<GraphPass> MakeQdqToQLinear();            // fuse_qdq_linear.cc
std::unique_ptr<GraphPass> MakeQdqToQLinearBinary();      // fuse_qdq_binary.cc
std::unique_ptr<GraphPass> MakeQdqToQLinearLookup();      // fuse_qdq_lookup.cc
std::unique_ptr<GraphPass> MakeQLinearSiluFusion();       // fuse_qlinear_silu.cc
std::unique_ptr<GraphPass> MakeQdqToQLinearConcat();      // fuse_qdq_concat.cc
std::unique_ptr<GraphPass> MakeQdqToQLinearPool();        // fuse_qdq_pool.cc
std::unique_ptr<GraphPass> MakeDynamicQuantizeMatMulFusion();  // fuse_dynamic_quantize_matmul.cc

}  // namespace tessera
