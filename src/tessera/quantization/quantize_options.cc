#include "tessera/quantization/quantize_options.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "tessera/base/status.h"

namespace tessera::quant {

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ParseBool(const std::string& key, const std::string& v) {
  const std::string l = Lower(v);
  if (l == "1" || l == "true" || l == "yes" || l == "on") return true;
  if (l == "0" || l == "false" || l == "no" || l == "off") return false;
  TS_THROW(kInvalidArgument, "extra_options['", key, "'] wants a boolean, got '", v, "'");
}

double ParseNumber(const std::string& key, const std::string& v) {
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || end == v.c_str() || *end != '\0')
    TS_THROW(kInvalidArgument, "extra_options['", key, "'] wants a number, got '", v, "'");
  return d;
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

const char* QuantTypeName(QuantType t) {
  switch (t) {
    case QuantType::kQInt8: return "QInt8";
    case QuantType::kQUInt8: return "QUInt8";
    case QuantType::kQFloat8E4M3FN: return "QFLOAT8E4M3FN";
    case QuantType::kQInt16: return "QInt16";
    case QuantType::kQUInt16: return "QUInt16";
    case QuantType::kQInt4: return "QInt4";
    case QuantType::kQUInt4: return "QUInt4";
  }
  return "?";
}

const char* CalibrationMethodName(CalibrationMethod m) {
  switch (m) {
    case CalibrationMethod::kMinMax: return "MinMax";
    case CalibrationMethod::kEntropy: return "Entropy";
    case CalibrationMethod::kPercentile: return "Percentile";
    case CalibrationMethod::kDistribution: return "Distribution";
  }
  return "?";
}

QuantType ParseQuantType(const std::string& s, const std::string& what) {
  const std::string l = Lower(s);
  if (l == "int8" || l == "qint8") return QuantType::kQInt8;
  if (l == "uint8" || l == "quint8") return QuantType::kQUInt8;
  if (l == "int16" || l == "qint16") return QuantType::kQInt16;
  if (l == "uint16" || l == "quint16") return QuantType::kQUInt16;
  if (l == "int4" || l == "qint4") return QuantType::kQInt4;
  if (l == "uint4" || l == "quint4") return QuantType::kQUInt4;
  if (l == "float8e4m3fn" || l == "qfloat8e4m3fn") return QuantType::kQFloat8E4M3FN;
  TS_THROW(kInvalidArgument, what, ": unknown quantization type '", s, "' (int8 or uint8)");
}

CalibrationMethod ParseCalibrationMethod(const std::string& s) {
  const std::string l = Lower(s);
  if (l == "minmax") return CalibrationMethod::kMinMax;
  if (l == "entropy") return CalibrationMethod::kEntropy;
  if (l == "percentile") return CalibrationMethod::kPercentile;
  if (l == "distribution") return CalibrationMethod::kDistribution;
  TS_THROW(kInvalidArgument, "unknown calibration method '", s, "' (minmax, percentile or entropy)");
}

QuantFormat ParseQuantFormat(const std::string& s) {
  const std::string l = Lower(s);
  if (l == "qdq") return QuantFormat::kQDQ;
  if (l == "qoperator") return QuantFormat::kQOperator;
  TS_THROW(kInvalidArgument, "unknown quantization format '", s, "' (qdq or qoperator)");
}

DataType QuantTypeToDataType(QuantType t, const std::string& what) {
  if (t == QuantType::kQInt8) return DataType::kInt8;
  if (t == QuantType::kQUInt8) return DataType::kUInt8;
  TS_THROW(kNotImplemented, what, " ", QuantTypeName(t),
           " is not supported: tessera quantize writes 8-bit models (QInt8 or QUInt8)");
}

std::vector<std::string> ApplyExtraOptions(const std::map<std::string, std::string>& extra, QuantizeOptions& o) {
  std::vector<std::string> warnings;
  for (const auto& [k, v] : extra) {
    if (k == "WeightSymmetric") o.weight_symmetric = ParseBool(k, v) ? 1 : 0;
    else if (k == "ActivationSymmetric") o.activation_symmetric = ParseBool(k, v);
    else if (k == "CalibTensorRangeSymmetric") o.calib_tensor_range_symmetric = ParseBool(k, v);
    else if (k == "CalibMovingAverage") o.calib_moving_average = ParseBool(k, v);
    else if (k == "CalibMovingAverageConstant") o.calib_moving_average_constant = ParseNumber(k, v);
    else if (k == "CalibPercentile") o.calib_percentile = ParseNumber(k, v);
    else if (k == "CalibNumBins") o.calib_num_bins = static_cast<int>(ParseNumber(k, v));
    else if (k == "CalibNumQuantizedBins") o.calib_num_quantized_bins = static_cast<int>(ParseNumber(k, v));
    // What Tessera always does: a constant B only (dynamic), one shared DQ.
    else if (k == "MatMulConstBOnly" || k == "DedicatedQDQPair") continue;
    else warnings.push_back("extra_options['" + k + "'] is not known to tessera quantize; ignored");
  }
  if (!(o.calib_percentile > 0 && o.calib_percentile <= 100))
    TS_THROW(kInvalidArgument, "the calibration percentile must be in (0, 100], got ", o.calib_percentile);
  if (o.calib_num_bins < 256 || o.calib_num_bins % 4 != 0)
    TS_THROW(kInvalidArgument, "CalibNumBins must be a multiple of 4 of at least 256, got ", o.calib_num_bins);
  if (o.calib_num_quantized_bins < 2 || o.calib_num_quantized_bins > o.calib_num_bins / 2)
    TS_THROW(kInvalidArgument, "CalibNumQuantizedBins must be in [2, CalibNumBins / 2], got ",
             o.calib_num_quantized_bins);
  return warnings;
}

const std::vector<std::string>& SupportedOpTypes(QuantMode mode) {
  static const std::vector<std::string> kStatic = {
      "Conv", "MatMul", "Gemm", "Relu", "Clip", "MaxPool", "AveragePool", "GlobalAveragePool", "Add", "Mul",
      "Concat", "Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze", "Sigmoid"};
  static const std::vector<std::string> kDynamic = {"MatMul", "Gemm"};
  return mode == QuantMode::kStatic ? kStatic : kDynamic;
}

void ValidateOptions(const QuantizeOptions& o) {
  const auto& supported = SupportedOpTypes(o.mode);
  const char* mode = o.mode == QuantMode::kStatic ? "static" : "dynamic";
  for (const auto* list : {&o.op_types_to_quantize, &o.op_types_to_exclude})
    for (const auto& t : *list)
      if (std::find(supported.begin(), supported.end(), t) == supported.end())
        TS_THROW(kInvalidArgument, "op type '", t, "' has no ", mode, " quantization rule; the ", mode,
                 " mode quantizes ", Join(supported));
  QuantTypeToDataType(o.weight_type, "weight_type");
  if (o.mode == QuantMode::kStatic) {
    QuantTypeToDataType(o.activation_type, "activation_type");
    if (o.format != QuantFormat::kQDQ)
      TS_THROW(kNotImplemented, "static quantization writes the QDQ format only (QOperator is not built); "
               "Tessera's optimizer runs QDQ Conv and MatMul as QLinearConv and QLinearMatMul");
    if (o.calibrate_method == CalibrationMethod::kDistribution)
      TS_THROW(kNotImplemented, "CalibrationMethod.Distribution is not built (it serves float8 and 16-bit "
               "types, which tessera quantize does not write); use MinMax, Percentile or Entropy");
  }
}

}  // namespace tessera::quant
