// Static quantization in the QDQ format, as ORT's quantize_static writes it:
// every float activation read or written by a quantized node goes through a
// QuantizeLinear -> DequantizeLinear pair with calibrated parameters, and
// constant weights become int8/uint8 initializers read through a
// DequantizeLinear (per output channel with per_channel). Conv and Gemm
// biases become int32 at scale x_scale * w_scale. A Relu/Clip right after a
// quantized node takes the pair on its output instead of its input (the
// product's range then starts at 0), and data-movement ops (MaxPool,
// Reshape, Flatten, Transpose, Squeeze, Unsqueeze) reuse their input's
// parameters on their output, so the optimizer's QdqToQLinear and
// QdqDataMovement passes find the groups they fuse.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tessera/quantization/calibrator.h"
#include "tessera/quantization/quant_graph.h"

namespace tessera::quant {

struct QdqPlan {
  std::vector<size_t> nodes;                   // to quantize, in graph order
  std::vector<std::string> activations;        // to calibrate: each gets its own parameters
  std::map<std::string, std::string> shared;   // output -> the input whose parameters it reuses
  std::vector<LeftFloat> left_float;
};

// What to quantize (before calibration: the tensors whose ranges are needed).
QdqPlan PlanQdq(const Model& model, const QuantizeOptions& options);

// Rewrites the model's main graph from the plan and the calibrated ranges.
void WriteQdq(Model& model, const QdqPlan& plan, const std::map<std::string, TensorRange>& ranges,
              const QuantizeOptions& options, QuantizeReport& report);

}  // namespace tessera::quant
