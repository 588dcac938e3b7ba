// CommonSubexpressionElimination (basic, any provider): two deterministic
// nodes with the same op, domain, attributes and inputs compute the same
// values; the later one is removed and its readers read the earlier one.
#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "tessera/optimizer/basic_passes.h"
#include "tessera/optimizer/graph_editor.h"
#include "tessera/optimizer/pass_util.h"

namespace tessera {

namespace {

void AppendTensor(std::string& key, const Tensor& t) {
  key += DataTypeName(t.dtype());
  key += ShapeToString(t.shape());
  if (t.dtype() == DataType::kString) {
    for (int64_t i = 0; i < t.numel(); ++i) {
      const std::string& s = t.data<std::string>()[i];
      key += std::to_string(s.size()) + ":" + s;
    }
  } else if (t.raw_data()) {
    key.append(static_cast<const char*>(t.raw_data()), t.nbytes());
  }
  key += '|';
}

// An exact description of the computation: equal keys, equal results.
std::string KeyOf(const Node& n) {
  std::string key = n.domain + "\x1f" + n.op_type + "\x1f";
  for (const auto& in : n.inputs) key += std::to_string(in.size()) + ":" + in;
  key += "\x1f" + std::to_string(n.outputs.size());
  std::vector<const Attribute*> attrs;
  for (const auto& a : n.attributes) attrs.push_back(&a);
  std::sort(attrs.begin(), attrs.end(), [](const Attribute* a, const Attribute* b) { return a->name < b->name; });
  for (const Attribute* a : attrs) {
    key += "\x1f" + a->name + "=" + std::to_string(static_cast<int>(a->type)) + ":";
    char buf[sizeof(float)];
    std::memcpy(buf, &a->f, sizeof(float));
    key.append(buf, sizeof(float));  // bitwise: -0.0 and NaN payloads stay distinct
    key += std::to_string(a->i) + ":" + std::to_string(a->s.size()) + ":" + a->s + ":";
    for (float f : a->floats) {
      std::memcpy(buf, &f, sizeof(float));
      key.append(buf, sizeof(float));
    }
    key += ":";
    for (int64_t v : a->ints) key += std::to_string(v) + ",";
    key += ":";
    for (const auto& s : a->strings) key += std::to_string(s.size()) + ":" + s;
    key += ":";
    if (a->t.defined()) AppendTensor(key, a->t);
    for (const auto& t : a->tensors) AppendTensor(key, t);
    key += a->tp.ToString() + a->ref_attr_name;
    for (const auto& tp : a->type_protos) key += tp.ToString();
  }
  return key;
}

class CommonSubexpressionElimination final : public GraphPass {
 public:
  std::string name() const override { return "CommonSubexpressionElimination"; }
  OptimizationLevel level() const override { return OptimizationLevel::kBasic; }

  int Apply(Graph& graph, const std::vector<std::string>& outer_scope, const PassContext& ctx) const override {
    GraphEditor editor(graph, outer_scope);
    std::unordered_map<std::string, int> seen;
    int merged = 0;
    for (int i = 0; i < static_cast<int>(editor.size()); ++i) {
      const Node& n = editor.node(i);
      if (!IsDeterministic(n) || GraphEditor::HasSubgraphs(n) || n.outputs.empty() || !ctx.AppliesTo(n)) continue;
      auto [it, inserted] = seen.emplace(KeyOf(n), i);
      if (inserted) continue;
      int keep = it->second;
      if (!Mergeable(editor, editor.node(keep), n)) continue;
      std::vector<std::string> dup = n.outputs, orig = editor.node(keep).outputs;
      for (size_t k = 0; k < dup.size(); ++k)
        if (!dup[k].empty()) editor.Forward(dup[k], orig[k]);
      editor.RemoveNode(i);
      ++merged;
    }
    if (merged) editor.Commit();
    return merged;
  }

 private:
  // Every output of `dup` can be redirected to `keep`'s: keep produces it,
  // and at most one of each pair is a graph output (Forward renames then).
  static bool Mergeable(const GraphEditor& editor, const Node& keep, const Node& dup) {
    for (size_t k = 0; k < dup.outputs.size(); ++k) {
      if (dup.outputs[k].empty()) continue;
      if (keep.outputs[k].empty()) return false;
      if (editor.IsGraphOutput(dup.outputs[k]) && editor.IsGraphOutput(keep.outputs[k])) return false;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeCommonSubexpressionElimination() {
  return std::make_unique<CommonSubexpressionElimination>();
}

}  // namespace tessera
