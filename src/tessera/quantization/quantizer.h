// The entry points `tessera quantize` and tessera.quantization call: load,
// check the options, calibrate (static), rewrite and save.
#pragma once

#include <functional>
#include <string>

#include "tessera/quantization/quant_graph.h"
#include "tessera/runtime/session.h"

namespace tessera::quant {

// Fills the next calibration batch; returns false when there is none.
using FeedSource = std::function<bool(Feeds& feeds)>;

// Rewrites `model` in place. Static mode calibrates on every batch `next`
// gives (an error when it gives none); dynamic mode ignores it.
QuantizeReport QuantizeModel(Model& model, const QuantizeOptions& options, const FeedSource& next = nullptr);

// The inputs calibration batches must feed (for listing calibration files).
std::vector<ValueInfo> CalibrationInputs(const Model& model);

// Writes the model; with external_data, or when the weights pass 2 GB,
// the initializers go to `<file name>.data` next to it.
void SaveQuantizedModel(const Model& model, const std::string& path, bool external_data);

// The CLI's summary: nodes quantized per op type, nodes left float grouped
// by op type and reason (with up to a few names).
std::string DescribeReport(const QuantizeReport& report);

}  // namespace tessera::quant
