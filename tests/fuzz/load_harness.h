// Fuzz harness (fuzz_model_load.cc, and the regression test): arbitrary
// bytes as a model file -> load -> session creation -> (when the model is
// safe to run, see SafeToRun) one Run with zero-filled inputs. Any
// tessera::Error is an accepted outcome; a crash, sanitizer report, leak,
// other exception, timeout or OOM is a bug.
//
// The caps below are harness limits, not runtime limits: a legal model may
// ask for a 1e9-element ConstantOfShape or a Loop with 1e18 iterations, which
// is slow rather than wrong, so such models are loaded but not run.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "tessera/api/providers.h"
#include "tessera/base/status.h"
#include "tessera/runtime/session.h"

namespace tessera_fuzz {

using tessera::DataType;
using tessera::Session;
using tessera::TypeInfo;

constexpr int64_t kMaxInputElements = 1024;
constexpr int64_t kMaxStaticElements = int64_t{1} << 20;  // any statically inferred value

inline tessera::SessionOptions FuzzOptions() {
  tessera::SessionOptions options;
  options.intra_op_num_threads = 1;
  options.log_severity_level = tessera::Severity::kFatal;
  options.load_limits.max_tensor_bytes = int64_t{16} << 20;
  options.load_limits.max_total_initializer_bytes = int64_t{32} << 20;
  options.load_limits.max_graph_nesting = 8;
  options.load_limits.max_nodes = 4096;
  return options;
}

// Ops whose output size or running time comes from tensor *values* (which a
// 16-byte initializer can set to 1e9) rather than from input shapes.
inline bool SizedByValues(const std::string& op) {
  static const std::set<std::string> kOps = {
      "ConstantOfShape", "Expand", "Tile", "Range", "Pad", "Resize", "Upsample", "OneHot",
      "Loop", "RandomNormal", "RandomUniform", "EyeLike", "MaxUnpool", "NonMaxSuppression",
      "CenterCropPad", "Col2Im", "STFT", "MelWeightMatrix", "BlackmanWindow", "HannWindow",
      "HammingWindow", "TfIdfVectorizer", "Multinomial", "Bernoulli", "ImageDecoder",
      "DFT", "StringSplit", "RegexFullMatch", "SequenceConstruct", "SplitToSequence"};
  return kOps.count(op) > 0;
}

inline bool SafeToRun(const Session& session) {
  for (const auto& node : session.model().graph->nodes) {
    if (SizedByValues(node.op_type)) return false;
    if (!node.domain.empty() && node.domain != "ai.onnx") return false;
    for (const auto& attr : node.attributes)
      if (attr.g || !attr.graphs.empty()) return false;  // bodies may hide any op
    for (const auto& out : node.outputs) {
      const TypeInfo* type = session.ValueType(out);
      if (type == nullptr || !type->is_tensor() || !type->shape) continue;
      int64_t n = 1;
      for (const auto& d : *type->shape) {
        if (!d.known()) break;  // unknown until run time: the kernels must cope
        if (d.value > kMaxStaticElements || n > kMaxStaticElements / std::max<int64_t>(d.value, 1)) return false;
        n *= d.value;
      }
    }
  }
  return true;
}

// A zero-filled tensor for a declared input, unknown dims as 1; nullopt when
// the input is not a tensor or too big.
inline std::optional<tessera::Tensor> ZeroInput(const TypeInfo& type) {
  if (!type.is_tensor() || type.elem_type == DataType::kUndefined) return std::nullopt;
  tessera::Shape shape;
  int64_t n = 1;
  if (type.shape) {
    if (type.shape->size() > 6) return std::nullopt;
    for (const auto& d : *type.shape) {
      int64_t v = d.known() ? d.value : 1;
      if (v > kMaxInputElements) return std::nullopt;
      n *= v;
      if (n > kMaxInputElements) return std::nullopt;
      shape.push_back(v);
    }
  }
  tessera::Tensor t(type.elem_type, shape);
  if (type.elem_type != DataType::kString && t.nbytes() > 0) std::memset(t.raw_data(), 0, t.nbytes());
  return t;
}

// One fuzz input; shared by the libFuzzer target and the regression test.
inline void RunLoadHarness(const uint8_t* data, size_t size) {
  static const tessera::ProviderList providers = tessera::MakeProviders({"cpu"});
  static const tessera::SessionOptions options = FuzzOptions();
  std::unique_ptr<Session> session;
  try {
    session = Session::FromBytes(data, size, options, providers);
  } catch (const tessera::Error&) {
    return;  // a clear refusal is the expected outcome for most inputs
  }
  if (!SafeToRun(*session)) return;
  tessera::Feeds feeds;
  for (const auto& input : session->inputs()) {
    std::optional<tessera::Tensor> t = ZeroInput(input.type);
    if (!t) return;
    feeds.emplace_back(input.name, std::move(*t));
  }
  try {
    session->Run(feeds);
  } catch (const tessera::Error&) {
  }
}

}  // namespace tessera_fuzz
