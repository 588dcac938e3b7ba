#include "tessera/quantization/calibrator.h"

#include <algorithm>
#include <set>

#include "tessera/base/status.h"
#include "tessera/providers/cpu/cpu_execution_provider.h"

namespace tessera::quant {

Calibrator::Calibrator(const Model& model, std::vector<std::string> tensors, const QuantizeOptions& options)
    : model_name_(model.DisplayName()), options_(options), tensors_(std::move(tensors)) {
  Model augmented = model;
  augmented.graph = model.graph->DeepCopy();
  std::set<std::string> outputs;
  for (const auto& o : augmented.graph->outputs) outputs.insert(o.name);
  for (const auto& t : tensors_)
    if (outputs.insert(t).second) augmented.graph->outputs.push_back(ValueInfo{t, TypeInfo{}, ""});
  SessionOptions so;
  // The graph as written: a fusion could otherwise hide the very values
  // (Conv outputs before their Relu) whose ranges are wanted.
  so.graph_optimization_level = OptimizationLevel::kDisabled;
  session_ = std::make_unique<Session>(std::move(augmented), so, ProviderList{MakeCpuExecutionProvider()});
  for (const auto& t : tensors_) stats_.emplace(t, Stats(options_.calib_num_bins));
}

Calibrator::~Calibrator() = default;

const std::vector<ValueInfo>& Calibrator::inputs() const { return session_->inputs(); }

void Calibrator::Collect(const Feeds& feeds) {
  std::set<std::string> fed;
  std::string names;
  for (const auto& in : inputs()) names += (names.empty() ? "" : ", ") + in.name;
  for (const auto& [name, value] : feeds) {
    const bool known = std::any_of(inputs().begin(), inputs().end(), [&](const ValueInfo& v) { return v.name == name; });
    TS_CHECK(known, kInvalidArgument, "model '", model_name_, "': calibration input '", name,
             "' is not an input of the model (its inputs: ", names, ")");
    fed.insert(name);
  }
  for (const auto& in : inputs())
    TS_CHECK(fed.count(in.name), kInvalidArgument, "model '", model_name_, "': calibration batch ", batches_ + 1,
             " has no value for input '", in.name, "'");
  std::vector<Value> values = session_->Run(feeds, tensors_);
  for (size_t i = 0; i < tensors_.size(); ++i) {
    Stats& s = stats_.at(tensors_[i]);
    const Value& v = values[i];
    if (!v.is_tensor() || v.tensor().dtype() != DataType::kFloat) {
      s.is_float = false;
      continue;
    }
    const Tensor& t = v.tensor();
    const int64_t before = s.histogram.count();
    s.histogram.Add(t.data<float>(), t.numel());
    if (options_.calib_moving_average && t.numel() > 0) {
      // This batch's own extremes, averaged into the running ones.
      const auto [lo, hi] = std::minmax_element(t.data<float>(), t.data<float>() + t.numel());
      const double c = options_.calib_moving_average_constant;
      if (before == 0) {
        s.avg_min = *lo;
        s.avg_max = *hi;
      } else {
        s.avg_min += c * (*lo - s.avg_min);
        s.avg_max += c * (*hi - s.avg_max);
      }
    }
  }
  ++batches_;
}

std::map<std::string, TensorRange> Calibrator::Ranges() const {
  TS_CHECK(batches_ > 0, kInvalidArgument, "model '", model_name_,
           "': static quantization needs calibration data, and none was given");
  std::map<std::string, TensorRange> out;
  const bool symmetric = options_.calib_tensor_range_symmetric;
  for (const auto& [name, s] : stats_) {
    if (!s.is_float || s.histogram.count() == 0) continue;
    std::pair<double, double> r{s.histogram.min(), s.histogram.max()};
    switch (options_.calibrate_method) {
      case CalibrationMethod::kMinMax:
        if (options_.calib_moving_average) r = {s.avg_min, s.avg_max};
        if (symmetric) {
          const double a = std::max(std::abs(r.first), std::abs(r.second));
          r = {-a, a};
        }
        break;
      case CalibrationMethod::kPercentile:
        r = s.histogram.PercentileRange(options_.calib_percentile, symmetric);
        break;
      case CalibrationMethod::kEntropy:
        r = s.histogram.EntropyRange(options_.calib_num_quantized_bins, symmetric);
        break;
      case CalibrationMethod::kDistribution:
        TS_THROW(kNotImplemented, "CalibrationMethod.Distribution is not built");
    }
    out[name] = TensorRange{r.first, r.second};
  }
  return out;
}

}  // namespace tessera::quant
