// Static calibration: the float model runs on the CPU provider with every
// activation that will be quantized added as a graph output, batch after
// batch, and each such tensor's statistics (min/max, histogram) accumulate.
// Ranges() then turns them into one [rmin, rmax] per tensor by the method
// asked for.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/ir/graph.h"
#include "tessera/quantization/quantize_options.h"
#include "tessera/quantization/tensor_histogram.h"
#include "tessera/runtime/session.h"

namespace tessera::quant {

struct TensorRange {
  double rmin = 0;
  double rmax = 0;
};

class Calibrator {
 public:
  // tensors: the values to observe (graph inputs or node outputs of the
  // model's main graph).
  Calibrator(const Model& model, std::vector<std::string> tensors, const QuantizeOptions& options);
  ~Calibrator();

  // The inputs a feed must hold (initializer-backed inputs excluded).
  const std::vector<ValueInfo>& inputs() const;
  // Runs one batch. Throws kInvalidArgument naming the model and the input
  // when a feed is not an input of the model or one is missing.
  void Collect(const Feeds& feeds);
  int batches() const { return batches_; }

  // Tensors that were observed as float (others, such as int64 shapes, are
  // never quantized) and their ranges by options.calibrate_method.
  std::map<std::string, TensorRange> Ranges() const;

 private:
  struct Stats {
    TensorHistogram histogram;
    double avg_min = 0, avg_max = 0;  // CalibMovingAverage
    bool is_float = true;
    explicit Stats(int bins) : histogram(bins) {}
  };

  std::string model_name_;
  QuantizeOptions options_;
  std::vector<std::string> tensors_;
  std::unique_ptr<Session> session_;
  std::map<std::string, Stats> stats_;
  int batches_ = 0;
};

}  // namespace tessera::quant
