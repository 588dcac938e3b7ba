// Static type and shape inference. At session creation every value whose
// shape follows from the declared input shapes and the constants gets a type;
// values whose shapes depend on data stay unknown and are computed by the
// kernels at run time. Inference never rejects a model: a kernel remains the
// authority on what it accepts.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/ir/graph.h"

namespace tessera {

struct InferenceInput {
  const Node& node;
  int64_t opset;
  std::vector<TypeInfo> inputs;          // kind kUnknown when unknown or omitted
  std::vector<const Tensor*> constants;  // the input's value when it is a known constant
};

// Output types of one node by its op schema's rule (op_schema.h), kUnknown
// where they cannot be derived statically.
std::vector<TypeInfo> InferOutputTypes(const InferenceInput& in);

struct GraphTypes {
  std::unordered_map<std::string, TypeInfo> types;    // every value with a known type
  std::unordered_map<std::string, Tensor> constants;  // values known at session creation
};

// Walks a topologically sorted graph. Declared types (inputs, value_info,
// outputs) seed the walk; inferred types complete them.
GraphTypes InferGraphTypes(const Graph& graph, const std::function<int64_t(const std::string& domain)>& opset_for);

}  // namespace tessera
