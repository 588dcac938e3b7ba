#include "tessera/optimizer/pass_util.h"

#include "tessera/ops/op_schema.h"
#include "tessera/ops/shape_inference.h"

namespace tessera {

bool IsOp(const Node& node, const char* op_type) { return node.domain == kOnnxDomain && node.op_type == op_type; }

bool IsDeterministic(const Node& node) { return !OpHasTrait(node, op_trait::kNondeterministic); }

int64_t AttrInt(const Node& node, const std::string& name, int64_t default_value) {
  const Attribute* a = node.FindAttribute(name);
  return a && a->type == AttributeType::kInt ? a->i : default_value;
}

std::optional<std::vector<int64_t>> AttrInts(const Node& node, const std::string& name) {
  const Attribute* a = node.FindAttribute(name);
  if (!a || a->type != AttributeType::kInts) return std::nullopt;
  return a->ints;
}

std::optional<std::vector<int64_t>> ConstantInts(const GraphEditor& editor, const Node& node, size_t slot) {
  if (slot >= node.inputs.size() || node.inputs[slot].empty()) return std::nullopt;
  const Tensor* t = editor.Constant(node.inputs[slot]);
  if (!t || (t->dtype() != DataType::kInt64 && t->dtype() != DataType::kInt32)) return std::nullopt;
  return t->ToInt64Vector();
}

int64_t OpsetOf(const PassContext& ctx, const Node& node) { return ctx.model ? ctx.model->OpsetFor(node.domain) : -1; }

std::unordered_map<std::string, TypeInfo> InferTrustedTypes(const Graph& graph, bool is_subgraph,
                                                            const PassContext& ctx) {
  // A shallow copy (subgraphs stay shared) with the untrusted declarations cut.
  Graph trusted;
  trusted.name = graph.name;
  trusted.nodes = graph.nodes;
  trusted.initializers = graph.initializers;
  trusted.inputs = graph.inputs;
  for (auto& in : trusted.inputs) {
    if (is_subgraph) {
      in.type.shape.reset();
      continue;
    }
    // An input with a default runs with the default's shape when not fed:
    // its declared shape holds only when both agree.
    auto init = graph.initializers.find(in.name);
    if (init != graph.initializers.end() && in.type.shape) {
      auto declared = in.type.StaticShape();
      if (!declared || *declared != init->second.shape()) in.type.shape.reset();
    }
  }
  auto opset_for = [&](const std::string& domain) { return ctx.model ? ctx.model->OpsetFor(domain) : int64_t{-1}; };
  return InferGraphTypes(trusted, opset_for).types;
}

std::optional<std::vector<int64_t>> StaticShapeOf(const std::unordered_map<std::string, TypeInfo>& types,
                                                  const std::string& value) {
  auto it = types.find(value);
  if (it == types.end() || !it->second.is_tensor()) return std::nullopt;
  return it->second.StaticShape();
}

}  // namespace tessera
