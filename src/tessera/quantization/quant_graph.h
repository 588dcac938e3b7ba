// Graph helpers the quantization writers share: which nodes the options
// select, fresh value names, consumer lists, constant weights, and the
// report of what was quantized and what stayed float.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "tessera/ir/graph.h"
#include "tessera/quantization/quantize_options.h"

namespace tessera::quant {

struct LeftFloat {
  std::string node;  // name, or its first output when unnamed
  std::string op_type;
  std::string reason;
};

struct QuantizeReport {
  std::map<std::string, int> quantized;  // op type -> nodes
  std::vector<LeftFloat> left_float;
  std::vector<std::string> warnings;
  int calibration_batches = 0;
  int64_t tensors_quantized = 0;  // activations given a Q/DQ pair (static)
};

// Why the options leave `node` float, or "" when it is to be quantized.
std::string SelectionRefusal(const Node& node, const QuantizeOptions& options);
std::string NodeDisplayName(const Node& node);

// Hands out value names no other value of the graph has.
class NameAllocator {
 public:
  explicit NameAllocator(const Graph& graph);
  std::string Fresh(const std::string& base);

 private:
  std::set<std::string> used_;
};

// Value name -> indices of the nodes reading it (main graph).
std::map<std::string, std::vector<size_t>> ConsumersOf(const Graph& graph);
// A constant weight: an initializer that no graph input can override.
const Tensor* ConstantInitializer(const Graph& graph, const std::string& name);
bool IsGraphOutput(const Graph& graph, const std::string& name);
int64_t AttrIntOr(const Node& node, const std::string& name, int64_t fallback);
float AttrFloatOr(const Node& node, const std::string& name, float fallback);
// Drops the named initializers nothing reads any more (nodes, subgraphs,
// graph outputs).
void DropUnusedInitializers(Graph& graph, const std::set<std::string>& candidates);
// Throws kOpsetMismatch naming the model when its ai.onnx opset is below
// `needed` for `what`.
void RequireOpset(const Model& model, int64_t needed, const std::string& what);

}  // namespace tessera::quant
