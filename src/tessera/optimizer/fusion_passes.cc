#include "tessera/optimizer/fusion_passes.h"

namespace tessera {

void AppendFusionPasses(std::vector<std::unique_ptr<GraphPass>>& passes) {
  // Folds into standard ops first (BN into Conv, bias into Conv/Gemm), then
  // the pattern fusions that need plain MatMul/Softmax chains (attention
  // before the Transpose folding that would rewrite its MatMuls), and the
  // activation fusion last so it sees the Gelu nodes the Gelu fusion made.
  passes.push_back(MakeQdqPairRemoval());
  // Before the float fusions, which would fold the QDQ pattern's Conv + Relu.
  passes.push_back(MakeQdqDataMovement());
  passes.push_back(MakeQdqToQLinear());
  // The element-wise, concat and pooling QDQ groups into com.microsoft
  // QLinear ops (cpu), after the products so a residual Add sees the
  // QLinearConvs' outputs; before ActivationFusion, which would take a
  // Sigmoid or LeakyRelu into a float Conv.
  passes.push_back(MakeQdqToQLinearBinary());
  passes.push_back(MakeQdqToQLinearLookup());
  // After both: the Mul and the Sigmoid it fuses are theirs.
  passes.push_back(MakeQLinearSiluFusion());
  passes.push_back(MakeQdqToQLinearConcat());
  passes.push_back(MakeQdqToQLinearPool());
  // quantize_dynamic's products (DynamicQuantizeLinear -> MatMulInteger ->
  // Cast -> Mul [-> Add]), before MatMulBiasFusion could see them.
  passes.push_back(MakeDynamicQuantizeMatMulFusion());
  passes.push_back(MakeConvBnFold());
  passes.push_back(MakeConvBiasFusion());
  passes.push_back(MakeGeluFusion());
  passes.push_back(MakeLayerNormFusion());
  passes.push_back(MakeRmsNormFusion());
  passes.push_back(MakeSkipLayerNormFusion());
  passes.push_back(MakeAttentionFusion());
  passes.push_back(MakeMatMulBiasFusion());
  passes.push_back(MakeTransposeMatMulFusion());
  passes.push_back(MakeActivationFusion());
}

}  // namespace tessera
