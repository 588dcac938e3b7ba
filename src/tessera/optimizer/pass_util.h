// Small queries the graph passes share: determinism, attributes, constant
// integer lists and static shapes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/ir/graph.h"
#include "tessera/optimizer/graph_editor.h"
#include "tessera/optimizer/graph_pass.h"

namespace tessera {

// True when two runs of the node on the same inputs give the same outputs
// (no Random*, Bernoulli, Multinomial, training-mode Dropout sampling).
bool IsDeterministic(const Node& node);
bool IsOp(const Node& node, const char* op_type);  // ai.onnx op of that type

int64_t AttrInt(const Node& node, const std::string& name, int64_t default_value);
std::optional<std::vector<int64_t>> AttrInts(const Node& node, const std::string& name);

// Input `slot` as a constant integer list (an initializer that no feed can
// override); nullopt when absent or not constant.
std::optional<std::vector<int64_t>> ConstantInts(const GraphEditor& editor, const Node& node, size_t slot);

// The opset the model imports for the node's domain (-1 without a model).
int64_t OpsetOf(const PassContext& ctx, const Node& node);

// Static types of the values of one graph, from declared graph inputs and
// constants only: declared value_info (which a model may get wrong) is not
// trusted, and a subgraph's declared input shapes are ignored (loop-carried
// values may change shape between iterations).
std::unordered_map<std::string, TypeInfo> InferTrustedTypes(const Graph& graph, bool is_subgraph,
                                                            const PassContext& ctx);

// The value's fully static shape in `types`, if known.
std::optional<std::vector<int64_t>> StaticShapeOf(const std::unordered_map<std::string, TypeInfo>& types,
                                                  const std::string& value);

}  // namespace tessera
