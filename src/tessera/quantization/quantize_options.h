// What `tessera quantize` and tessera.quantization take: the enums and
// option names follow ONNX Runtime's quantization tool (quantize_dynamic,
// quantize_static) so a script written for one reads the same for the other.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tessera/ir/data_type.h"

namespace tessera::quant {

// ORT's QuantType values, in ORT's order. Only QInt8 and QUInt8 are
// written; the others are named so that asking for them is a clear error.
enum class QuantType { kQInt8 = 0, kQUInt8 = 1, kQFloat8E4M3FN = 2, kQInt16 = 3, kQUInt16 = 4, kQInt4 = 5, kQUInt4 = 6 };
enum class QuantFormat { kQOperator = 0, kQDQ = 1 };
enum class CalibrationMethod { kMinMax = 0, kEntropy = 1, kPercentile = 2, kDistribution = 3 };
enum class QuantMode { kDynamic, kStatic };

const char* QuantTypeName(QuantType t);
const char* CalibrationMethodName(CalibrationMethod m);
// "int8"/"qint8"/"QInt8" -> kQInt8; throws kInvalidArgument naming `what`.
QuantType ParseQuantType(const std::string& s, const std::string& what);
CalibrationMethod ParseCalibrationMethod(const std::string& s);
QuantFormat ParseQuantFormat(const std::string& s);
// The element type a supported QuantType writes (int8 / uint8); throws
// kNotImplemented for the others, naming `what` (e.g. "weight_type").
DataType QuantTypeToDataType(QuantType t, const std::string& what);

struct QuantizeOptions {
  QuantMode mode = QuantMode::kStatic;
  QuantFormat format = QuantFormat::kQDQ;
  // Empty: every op type the mode quantizes (DefaultOpTypes).
  std::vector<std::string> op_types_to_quantize;
  std::vector<std::string> op_types_to_exclude;
  std::vector<std::string> nodes_to_quantize;  // empty: all nodes
  std::vector<std::string> nodes_to_exclude;
  bool per_channel = false;
  bool reduce_range = false;  // 7-bit weights
  QuantType weight_type = QuantType::kQInt8;
  QuantType activation_type = QuantType::kQInt8;
  CalibrationMethod calibrate_method = CalibrationMethod::kMinMax;
  bool use_external_data_format = false;

  // extra_options, after ApplyExtraOptions. weight_symmetric defaults to
  // true for int8 weights and false for uint8 ones, as in ORT.
  int weight_symmetric = -1;  // -1: by weight_type
  bool activation_symmetric = false;
  bool calib_tensor_range_symmetric = false;
  bool calib_moving_average = false;
  double calib_moving_average_constant = 0.01;
  double calib_percentile = 99.999;
  int calib_num_bins = 2048;
  int calib_num_quantized_bins = 128;

  bool WeightSymmetric() const { return weight_symmetric < 0 ? weight_type == QuantType::kQInt8 : weight_symmetric != 0; }
};

// Applies ORT's extra_options keys (values as text: "1"/"True"/"0.01");
// returns a warning for every key Tessera does not know (ignored) and
// throws kInvalidArgument for a known key with a bad value.
std::vector<std::string> ApplyExtraOptions(const std::map<std::string, std::string>& extra, QuantizeOptions& options);

// Op types each mode can quantize, and the default list.
const std::vector<std::string>& SupportedOpTypes(QuantMode mode);
// Throws kInvalidArgument for an op type in either list that the mode has
// no rule for, and kNotImplemented for types and formats not written.
void ValidateOptions(const QuantizeOptions& options);

}  // namespace tessera::quant
