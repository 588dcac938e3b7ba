// Dynamic quantization, as ORT's quantize_dynamic writes it (QOperator
// form): a MatMul (or a Gemm without transA, alpha 1) with a constant float
// matrix B becomes
//
//   DynamicQuantizeLinear(A) -> A_q (uint8), A_scale, A_zero_point
//   MatMulInteger(A_q, B_q, A_zero_point, B_zero_point) -> int32
//   Cast(to float) -> Mul by (A_scale * B_scale) [-> Add the Gemm's C]
//
// with B stored as int8 (or uint8), per tensor or per column. Activations
// are quantized at run time, so there is no calibration; this is the
// transformer case, where the weights are most of the file.
#pragma once

#include "tessera/quantization/quant_graph.h"

namespace tessera::quant {

void WriteDynamic(Model& model, const QuantizeOptions& options, QuantizeReport& report);

}  // namespace tessera::quant
