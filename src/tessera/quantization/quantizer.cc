#include "tessera/quantization/quantizer.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tessera/base/status.h"
#include "tessera/format/model_loader.h"
#include "tessera/quantization/calibrator.h"
#include "tessera/quantization/dynamic_writer.h"
#include "tessera/quantization/qdq_writer.h"

namespace tessera::quant {

namespace {

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) TS_THROW(kIoError, "cannot write '", path, "'");
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) TS_THROW(kIoError, "failed writing '", path, "'");
}

}  // namespace

std::vector<ValueInfo> CalibrationInputs(const Model& model) {
  std::vector<ValueInfo> out;
  for (const auto& in : model.graph->inputs)
    if (!model.graph->initializers.count(in.name)) out.push_back(in);
  return out;
}

QuantizeReport QuantizeModel(Model& model, const QuantizeOptions& options, const FeedSource& next) {
  TS_CHECK(model.graph != nullptr, kInvalidModel, "model '", model.DisplayName(), "' has no graph");
  ValidateOptions(options);
  QuantizeReport report;
  // The graph is rewritten on a copy, so an error leaves `model` as it was.
  Model work = model;
  work.graph = model.graph->DeepCopy();
  if (options.mode == QuantMode::kDynamic) {
    WriteDynamic(work, options, report);
  } else {
    const QdqPlan plan = PlanQdq(work, options);
    Calibrator calibrator(work, plan.activations, options);
    Feeds feeds;
    while (next && next(feeds)) {
      calibrator.Collect(feeds);
      feeds.clear();
    }
    report.calibration_batches = calibrator.batches();
    const auto ranges = calibrator.Ranges();
    report.left_float = plan.left_float;
    WriteQdq(work, plan, ranges, options, report);
  }
  model = std::move(work);
  return report;
}

void SaveQuantizedModel(const Model& model, const std::string& path, bool external_data) {
  int64_t weight_bytes = 0;
  for (const auto& [name, t] : model.graph->initializers) weight_bytes += static_cast<int64_t>(t.nbytes());
  // protobuf refuses messages of 2 GB and more; leave room for the graph.
  if (!external_data && weight_bytes < (int64_t{2} << 30) - (int64_t{64} << 20)) {
    WriteFile(path, SerializeModel(model));
    return;
  }
  const std::string location = std::filesystem::path(path).filename().string() + ".data";
  std::string data;
  const std::string bytes = SerializeModelWithExternalData(model, location, &data);
  WriteFile((std::filesystem::path(path).parent_path() / location).string(), data);
  WriteFile(path, bytes);
}

std::string DescribeReport(const QuantizeReport& r) {
  std::ostringstream os;
  int total = 0;
  for (const auto& [op, n] : r.quantized) total += n;
  os << "quantized " << total << " node(s):";
  for (const auto& [op, n] : r.quantized) os << " " << op << " " << n;
  os << "\n";
  if (r.calibration_batches) os << "calibrated on " << r.calibration_batches << " batch(es)\n";
  // Left float: one line per (op type, reason), with up to 3 names.
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> groups;
  for (const auto& l : r.left_float) groups[{l.op_type, l.reason}].push_back(l.node);
  if (!groups.empty()) os << "left float " << r.left_float.size() << " node(s):\n";
  for (const auto& [key, nodes] : groups) {
    os << "  " << key.first << " x" << nodes.size() << ": " << key.second;
    if (key.second != "no quantization rule for this op type") {
      os << " (";
      for (size_t i = 0; i < nodes.size() && i < 3; ++i) os << (i ? ", " : "") << nodes[i];
      if (nodes.size() > 3) os << ", ...";
      os << ")";
    }
    os << "\n";
  }
  for (const auto& w : r.warnings) os << "warning: " << w << "\n";
  return os.str();
}

}  // namespace tessera::quant
