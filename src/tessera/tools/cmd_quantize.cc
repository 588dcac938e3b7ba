// `tessera quantize IN.onnx OUT.onnx --mode dynamic|static [...]`: writes an
// int8 model, dynamic (MatMulInteger, activations quantized at run time) or
// static QDQ (calibrated on a folder of inputs); see docs/quantization.md.
#include <cstdio>
#include <filesystem>

#include "tessera/format/model_loader.h"
#include "tessera/quantization/calibration_data.h"
#include "tessera/quantization/quantizer.h"
#include "tessera/tools/cli.h"

namespace tessera::cli {

namespace {

constexpr const char* kUsage =
    "usage: tessera quantize IN.onnx OUT.onnx --mode dynamic|static [--calibration DIR]\n"
    "       [--method minmax|percentile|entropy] [--percentile 99.999] [--per-channel] [--reduce-range]\n"
    "       [--format qdq|qoperator] [--weight-type int8|uint8] [--activation-type uint8|int8]\n"
    "       [--op-types A,B] [--exclude-op-types A,B] [--nodes A,B] [--exclude-nodes A,B]\n"
    "       [--symmetric-activations] [--extra KEY=VALUE ...] [--external-data]";

double ParseDouble(const std::string& name, const std::string& v) {
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0') TS_THROW(kInvalidArgument, "--", name, " expects a number, got '", v, "'");
  return d;
}

double FileMiB(const std::string& path) {
  std::error_code ec;
  auto bytes = std::filesystem::file_size(path, ec);
  if (ec) return 0;
  auto data = std::filesystem::file_size(path + ".data", ec);  // external data written next to it
  if (!ec) bytes += data;
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

}  // namespace

int QuantizeCommand(int argc, char** argv) {
  Args args = ParseArgs(argc, argv, 2, {"per-channel", "reduce-range", "symmetric-activations", "external-data"});
  if (args.positional.size() != 2 || !args.has("mode")) TS_THROW(kInvalidArgument, kUsage);
  const std::string& in = args.positional[0];
  const std::string& out = args.positional[1];
  quant::QuantizeOptions o;
  const std::string mode = args.get("mode");
  if (mode == "dynamic") o.mode = quant::QuantMode::kDynamic;
  else if (mode == "static") o.mode = quant::QuantMode::kStatic;
  else TS_THROW(kInvalidArgument, "--mode must be dynamic or static, got '", mode, "'");
  o.format = quant::ParseQuantFormat(args.get("format", o.mode == quant::QuantMode::kStatic ? "qdq" : "qoperator"));
  if (o.mode == quant::QuantMode::kDynamic && o.format != quant::QuantFormat::kQOperator)
    TS_THROW(kInvalidArgument, "dynamic quantization writes the QOperator form (MatMulInteger); drop --format qdq");
  o.op_types_to_quantize = SplitList(args.get("op-types"));
  o.op_types_to_exclude = SplitList(args.get("exclude-op-types"));
  o.nodes_to_quantize = SplitList(args.get("nodes"));
  o.nodes_to_exclude = SplitList(args.get("exclude-nodes"));
  o.per_channel = args.has("per-channel");
  o.reduce_range = args.has("reduce-range");
  o.use_external_data_format = args.has("external-data");
  o.weight_type = quant::ParseQuantType(args.get("weight-type", "int8"), "--weight-type");
  // uint8 activations by default on the command line: ORT's QDQ examples
  // and the ranges Tessera's QLinear kernels were measured on.
  o.activation_type = quant::ParseQuantType(args.get("activation-type", "uint8"), "--activation-type");
  o.activation_symmetric = args.has("symmetric-activations");
  o.calibrate_method = quant::ParseCalibrationMethod(args.get("method", "minmax"));
  std::map<std::string, std::string> extra;
  for (const auto& kv : args.all("extra")) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) TS_THROW(kInvalidArgument, "--extra expects KEY=VALUE, got '", kv, "'");
    extra[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (args.has("percentile")) extra["CalibPercentile"] = args.get("percentile");
  std::vector<std::string> warnings = quant::ApplyExtraOptions(extra, o);
  if (args.has("percentile")) ParseDouble("percentile", args.get("percentile"));

  Model model = LoadModelFromFile(in);
  std::unique_ptr<quant::CalibrationFolder> folder;
  if (o.mode == quant::QuantMode::kStatic) {
    if (!args.has("calibration"))
      TS_THROW(kInvalidArgument, "static quantization needs calibration inputs: --calibration DIR (see tessera "
               "quantize --help)");
    folder = std::make_unique<quant::CalibrationFolder>(args.get("calibration"), quant::CalibrationInputs(model));
  } else if (args.has("calibration")) {
    warnings.push_back("--calibration is ignored in dynamic mode");
  }
  quant::QuantizeReport report = quant::QuantizeModel(
      model, o, [&](Feeds& feeds) { return folder != nullptr && folder->Next(feeds); });
  for (auto& w : warnings) report.warnings.push_back(std::move(w));
  quant::SaveQuantizedModel(model, out, o.use_external_data_format);
  std::printf("%s", quant::DescribeReport(report).c_str());
  const double before = FileMiB(in), after = FileMiB(out);
  std::printf("wrote %s: %.2f MiB -> %.2f MiB (%.2fx smaller)\n", out.c_str(), before, after,
              after > 0 ? before / after : 0.0);
  return 0;
}

}  // namespace tessera::cli
