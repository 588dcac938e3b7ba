// Static type and shape inference (shape_inference.h): the readers the
// rules share, the dispatch through the op schemas (op_schema.h; the rules
// live in infer_<family>.cc), and the walk over a graph.
#include "tessera/ops/shape_inference.h"

#include <algorithm>
#include <set>

#include "tessera/ops/infer_rules.h"

namespace tessera {

namespace shape_inference {

int64_t AttrInt(const Node& n, const std::string& name, int64_t d) {
  const Attribute* a = n.FindAttribute(name);
  return a && a->type == AttributeType::kInt ? a->i : d;
}
std::vector<int64_t> AttrInts(const Node& n, const std::string& name) {
  const Attribute* a = n.FindAttribute(name);
  return a && a->type == AttributeType::kInts ? a->ints : std::vector<int64_t>{};
}

std::optional<std::vector<int64_t>> ConstInts(const InferenceInput& in, size_t i) {
  if (i >= in.constants.size() || in.constants[i] == nullptr) return std::nullopt;
  const Tensor& t = *in.constants[i];
  if (!IsInteger(t.dtype()) || IsSubByte(t.dtype())) return std::nullopt;
  return t.ToInt64Vector();
}

bool Normalize(int64_t& axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return false;
  if (axis < 0) axis += rank;
  return true;
}

// Multidirectional broadcast; nullopt when a rank is unknown or dims clash.
std::optional<Dims> Broadcast(const std::vector<TypeInfo>& ts) {
  size_t rank = 0;
  for (const auto& t : ts) {
    if (!HasShape(t)) return std::nullopt;
    rank = std::max(rank, t.shape->size());
  }
  Dims out(rank, Dim::Known(1));
  for (const auto& t : ts) {
    size_t off = rank - t.shape->size();
    for (size_t i = 0; i < t.shape->size(); ++i) {
      const Dim& d = (*t.shape)[i];
      Dim& o = out[off + i];
      if (d.known() && d.value == 1) continue;
      if (o.known() && o.value == 1) {
        o = d;
      } else if (d.known() && o.known()) {
        if (d.value != o.value) return std::nullopt;
      } else if (!d.known() && !o.known()) {
        if (d.param != o.param || d.param.empty()) o = Dim{};
      } else if (d.known()) {
        o = d;  // a symbol broadcast against a known dim > 1 must equal it
      }
    }
  }
  return out;
}

std::vector<TypeInfo> SameAsInput0(const InferenceInput& in) { return {in.inputs[0]}; }

// The element type alone, for ops whose output type follows input 0's.
std::vector<TypeInfo> ElementTypeOfInput0(const InferenceInput& in) {
  if (!in.inputs[0].is_tensor()) return {};
  return {TensorOf(in.inputs[0].elem_type)};
}

}  // namespace shape_inference

using namespace shape_inference;

std::vector<TypeInfo> InferOutputTypes(const InferenceInput& in) {
  const Node& n = in.node;
  std::vector<TypeInfo> result;
  const OpSchema* schema = FindOpSchema(n.domain, n.op_type, in.opset);
  // A node without inputs is malformed unless its op takes none (graph
  // validation refuses it later, but the optimizer infers types before
  // that, and the rules read input 0).
  if (schema && schema->infer && !n.outputs.empty() &&
      (!in.inputs.empty() || schema->Has(op_trait::kTakesNoInputs)))
    result = schema->infer(in);
  result.resize(n.outputs.size());
  return result;
}

GraphTypes InferGraphTypes(const Graph& graph, const std::function<int64_t(const std::string&)>& opset_for) {
  GraphTypes g;
  for (const auto& [name, t] : graph.initializers) {
    Dims d;
    for (int64_t v : t.shape()) d.push_back(Dim::Known(v));
    g.types[name] = TypeInfo::Tensor(t.dtype(), d);
    g.constants[name] = t;
  }
  for (const auto* list : {&graph.inputs, &graph.value_info})
    for (const auto& vi : *list)
      if (vi.type.kind != TypeInfo::Kind::kUnknown) g.types[vi.name] = vi.type;
  // A graph input may override an initializer of the same name: not constant.
  for (const auto& vi : graph.inputs) g.constants.erase(vi.name);

  for (const Node& node : graph.nodes) {
    InferenceInput in{node, opset_for(node.domain), {}, {}};
    for (const auto& name : node.inputs) {
      auto it = name.empty() ? g.types.end() : g.types.find(name);
      in.inputs.push_back(it == g.types.end() ? TypeInfo{} : it->second);
      auto c = name.empty() ? g.constants.end() : g.constants.find(name);
      in.constants.push_back(c == g.constants.end() ? nullptr : &c->second);
    }
    std::vector<TypeInfo> out = InferOutputTypes(in);
    for (size_t i = 0; i < node.outputs.size() && i < out.size(); ++i) {
      const std::string& name = node.outputs[i];
      if (name.empty() || out[i].kind == TypeInfo::Kind::kUnknown) continue;
      auto it = g.types.find(name);
      // A declared type wins, except where inference knows more dims.
      if (it == g.types.end() || !it->second.shape) g.types[name] = out[i];
    }
    // Values known at session creation: Constant nodes and shapes of static inputs.
    if (node.op_type == "Constant" && node.domain == kOnnxDomain && !node.outputs.empty()) {
      for (const auto& a : node.attributes)
        if (a.name == "value" && a.t.defined()) g.constants[node.outputs[0]] = a.t;
    } else if (node.op_type == "Shape" && node.domain == kOnnxDomain && !in.inputs.empty() &&
               !node.outputs.empty()) {
      auto s = in.inputs[0].StaticShape();
      if (s) {
        int64_t rank = static_cast<int64_t>(s->size());
        int64_t start = AttrInt(node, "start", 0), end = AttrInt(node, "end", rank);
        if (start < 0) start += rank;
        if (end < 0) end += rank;
        start = std::clamp<int64_t>(start, 0, rank);
        end = std::clamp<int64_t>(end, start, rank);
        std::vector<int64_t> v(s->begin() + start, s->begin() + end);
        g.constants[node.outputs[0]] = Tensor::FromVector<int64_t>(v, {static_cast<int64_t>(v.size())});
      }
    }
  }
  return g;
}

}  // namespace tessera
