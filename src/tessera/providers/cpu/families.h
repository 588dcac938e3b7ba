// Row lists of the CPU kernel families; each is defined at the end of its
// family's file and concatenated into the CPU kernel table.
#pragma once

#include <vector>

#include "tessera/ops/kernel_table.h"

namespace tessera::cpu {

std::vector<KernelRow> UnaryMathKernels();       // elementwise_unary.cc
std::vector<KernelRow> BinaryMathKernels();      // elementwise_binary.cc
std::vector<KernelRow> LogicKernels();           // logic.cc
std::vector<KernelRow> ActivationKernels();      // activations.cc
std::vector<KernelRow> ShapeKernels();           // tensor_shape.cc (views and Shape: common/view_kernels.h)
std::vector<KernelRow> LayoutKernels();          // tensor_layout.cc
std::vector<KernelRow> PadKernels();             // tensor_padding.cc: Pad, CenterCropPad
std::vector<KernelRow> CastKernels();            // cast.cc
std::vector<KernelRow> IndexingKernels();        // gather_scatter.cc: Gather*, Scatter*, OneHot
std::vector<KernelRow> SelectionKernels();       // topk_unique.cc: TopK, Unique, NonZero
std::vector<KernelRow> CumulativeKernels();      // cumulative.cc: CumSum, CumProd
std::vector<KernelRow> ReduceKernels();          // reduce.cc
std::vector<KernelRow> SoftmaxKernels();         // softmax.cc
std::vector<KernelRow> LossKernels();            // losses.cc
std::vector<KernelRow> MatMulKernels();          // matmul.cc: MatMul, Gemm
std::vector<KernelRow> EinsumKernels();          // einsum.cc
std::vector<KernelRow> QuantizedMatMulKernels();  // quantized_matmul.cc
std::vector<KernelRow> ConvKernels();            // conv.cc: Conv, ConvTranspose
std::vector<KernelRow> IntegerConvKernels();     // conv_integer.cc: ConvInteger, QLinearConv
std::vector<KernelRow> DeformConvKernels();      // deform_conv.cc
std::vector<KernelRow> CausalConvKernels();      // causal_conv.cc: CausalConvWithState
std::vector<KernelRow> Col2ImKernels();          // col2im.cc
std::vector<KernelRow> PoolKernels();            // pool.cc
std::vector<KernelRow> NormalizationKernels();   // normalization.cc
std::vector<KernelRow> RecurrentKernels();       // rnn.cc
std::vector<KernelRow> ControlFlowKernels();     // control_flow.cc
std::vector<KernelRow> ResizeKernels();          // resize.cc: Resize, Upsample
std::vector<KernelRow> GridSampleKernels();      // grid_sample.cc: GridSample, AffineGrid
std::vector<KernelRow> ObjectDetectionKernels();  // object_detection.cc: RoiAlign, NonMaxSuppression
std::vector<KernelRow> AttentionKernels();       // attention.cc
std::vector<KernelRow> QuantizationKernels();       // quantization.cc
std::vector<KernelRow> SignalKernels();             // signal.cc
std::vector<KernelRow> SequenceKernels();           // sequence.cc
std::vector<KernelRow> StringKernels();             // strings.cc
std::vector<KernelRow> MlKernels();                 // ml.cc
std::vector<KernelRow> RandomKernels();             // random.cc
std::vector<KernelRow> TrainingKernels();           // training.cc
std::vector<KernelRow> ImageKernels();              // image_decoder.cc
std::vector<KernelRow> LinearAlgebraKernels();      // linear_algebra.cc
std::vector<KernelRow> AttentionVariantKernels();   // attention_variants.cc
std::vector<KernelRow> FusedKernels();              // fused.cc, fused_attention.cc (optimizer output)
// com.microsoft, opset 1 (ONNX Runtime's quantized contrib ops)
std::vector<KernelRow> QLinearBinaryKernels();      // qlinear_binary.cc: QLinearAdd, QLinearMul
std::vector<KernelRow> QLinearLookupKernels();      // qlinear_lookup.cc: QLinearSigmoid, QLinearLeakyRelu, QLinearSilu
std::vector<KernelRow> QLinearConcatKernels();      // qlinear_concat.cc
std::vector<KernelRow> QLinearPoolKernels();        // qlinear_pool.cc: QLinear(Global)AveragePool
std::vector<KernelRow> DynamicQuantizeMatMulKernels();  // dynamic_quantize_matmul.cc: and MatMulIntegerToFloat
std::vector<KernelRow> QLinearSoftmaxKernels();         // qlinear_softmax.cc
std::vector<KernelRow> QGemmKernels();                  // qgemm.cc
// com.microsoft, opset 1 (ONNX Runtime's transformer contrib ops)
std::vector<KernelRow> MicrosoftActivationKernels();     // contrib_activations.cc: Gelu, BiasGelu, FastGelu...
std::vector<KernelRow> MicrosoftNormalizationKernels();  // contrib_normalization.cc: SkipLayerNormalization...
std::vector<KernelRow> MatMulNBitsKernels();             // matmul_nbits.cc
std::vector<KernelRow> MicrosoftAttentionKernels();      // contrib_attention.cc: GroupQueryAttention
std::vector<KernelRow> MicrosoftBertAttentionKernels();  // contrib_attention_bert.cc: Attention

}  // namespace tessera::cpu
