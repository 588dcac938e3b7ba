// RedundantNodeElimination (basic, any provider): removes nodes that
// provably pass their input through unchanged, and shortens chains that
// undo or override each other:
//   Identity; Dropout in inference mode (mask unread); Cast/CastLike to the
//   type the input already has; Reshape/Slice whose static output shape
//   equals the input's (Slice with unit steps); Expand to a shape the input
//   already has; Tile by all-one repeats; Pad by all-zero pads; Transpose with the identity permutation; Transpose pairs (removed
//   when they cancel, composed into one otherwise); Unsqueeze followed by
//   Squeeze of the same axes; Reshape/Flatten reading another Reshape/Flatten
//   (it reads the first one's input instead).
#include <algorithm>
#include <numeric>

#include "tessera/optimizer/basic_passes.h"
#include "tessera/optimizer/graph_editor.h"
#include "tessera/optimizer/pass_util.h"

namespace tessera {

namespace {

using Types = std::unordered_map<std::string, TypeInfo>;

bool AllEqual(const std::vector<int64_t>& v, int64_t x) {
  return std::all_of(v.begin(), v.end(), [&](int64_t e) { return e == x; });
}

class RedundantNodeElimination final : public GraphPass {
 public:
  std::string name() const override { return "RedundantNodeElimination"; }
  OptimizationLevel level() const override { return OptimizationLevel::kBasic; }

  int Apply(Graph& graph, const std::vector<std::string>& outer_scope, const PassContext& ctx) const override {
    Types types = InferTrustedTypes(graph, ctx.in_subgraph, ctx);
    GraphEditor editor(graph, outer_scope);
    int changes = 0;
    for (int i = 0; i < static_cast<int>(editor.size()); ++i) {
      if (editor.removed(i)) continue;
      const Node& n = editor.node(i);
      if (n.domain != kOnnxDomain || n.inputs.empty() || n.inputs[0].empty() || n.outputs.empty() ||
          n.outputs[0].empty() || !ctx.AppliesTo(n))
        continue;
      if (Rewrite(editor, i, types, ctx)) ++changes;
    }
    if (changes) editor.Commit();
    return changes;
  }

 private:
  // Readers of the node's output read its input instead; the node goes.
  static bool Bypass(GraphEditor& editor, int i, const std::string& input) {
    if (!editor.Forward(editor.node(i).outputs[0], input)) return false;
    editor.RemoveNode(i);
    return true;
  }

  // The live node producing `value` when it is the ai.onnx op `op`, else -1.
  static int ProducerOp(const GraphEditor& editor, const std::string& value, const char* op) {
    int p = editor.Producer(value);
    return p >= 0 && !editor.removed(p) && IsOp(editor.node(p), op) ? p : -1;
  }

  static bool OnlyOutput0Read(const GraphEditor& editor, const Node& n) {
    for (size_t k = 1; k < n.outputs.size(); ++k)
      if (!n.outputs[k].empty() && editor.UseCount(n.outputs[k]) > 0) return false;
    return true;
  }

  static bool SameStaticShape(const Types& types, const Node& n) {
    auto in = StaticShapeOf(types, n.inputs[0]), out = StaticShapeOf(types, n.outputs[0]);
    return in && out && *in == *out;
  }

  static bool Rewrite(GraphEditor& editor, int i, const Types& types, const PassContext& ctx) {
    const Node& n = editor.node(i);
    const std::string x = n.inputs[0];
    const std::string& op = n.op_type;
    int64_t opset = OpsetOf(ctx, n);
    if (op == "Identity") return Bypass(editor, i, x);
    if (op == "Dropout") return InferenceDropout(editor, n, opset) && Bypass(editor, i, x);
    if (op == "Cast" || op == "CastLike") {
      auto it = types.find(x);
      if (it == types.end() || !it->second.is_tensor() || it->second.elem_type == DataType::kUndefined) return false;
      DataType target = DataType::kUndefined;
      if (op == "Cast") {
        target = static_cast<DataType>(AttrInt(n, "to", 0));
      } else if (n.inputs.size() > 1) {
        auto like = types.find(n.inputs[1]);
        if (like != types.end() && like->second.is_tensor()) target = like->second.elem_type;
      }
      return target == it->second.elem_type && Bypass(editor, i, x);
    }
    if (op == "Reshape") return ReshapeChainOrBypass(editor, i, types, ctx, true);
    if (op == "Tile") {
      auto repeats = ConstantInts(editor, n, 1);
      return repeats && AllEqual(*repeats, 1) && Bypass(editor, i, x);
    }
    if (op == "Expand") {
      // Broadcasting x to `shape` keeps x's shape when every (right-aligned)
      // target dim is 1 or x's own dim.
      auto target = ConstantInts(editor, n, 1);
      auto in = StaticShapeOf(types, x);
      if (!target || !in || target->size() > in->size()) return false;
      size_t offset = in->size() - target->size();
      for (size_t k = 0; k < target->size(); ++k)
        if ((*target)[k] != 1 && (*target)[k] != (*in)[offset + k]) return false;
      return Bypass(editor, i, x);
    }
    if (op == "Slice") {
      bool unit_steps = opset < 10 || n.inputs.size() < 5 || n.inputs[4].empty();
      if (!unit_steps) {
        auto steps = ConstantInts(editor, n, 4);
        unit_steps = steps && AllEqual(*steps, 1);
      }
      return unit_steps && SameStaticShape(types, n) && Bypass(editor, i, x);
    }
    if (op == "Pad") {
      auto pads = opset < 11 ? AttrInts(n, "pads") : ConstantInts(editor, n, 1);
      return pads && AllEqual(*pads, 0) && Bypass(editor, i, x);
    }
    if (op == "Transpose") return TransposeRewrite(editor, i, types);
    if (op == "Squeeze") return UnsqueezeSqueeze(editor, i, types, opset);
    if (op == "Flatten") return ReshapeChainOrBypass(editor, i, types, ctx, false);
    return false;
  }

  static bool InferenceDropout(const GraphEditor& editor, const Node& n, int64_t opset) {
    if (!OnlyOutput0Read(editor, n)) return false;
    // The CPU kernel runs opsets before 12 in test mode (Y = X).
    if (opset < 12) return true;
    bool training = false;
    if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
      const Tensor* t = editor.Constant(n.inputs[2]);
      if (!t || t->dtype() != DataType::kBool || t->numel() != 1) return false;
      training = t->data<bool>()[0];
    }
    if (!training) return true;
    // Training mode with ratio 0 keeps every element.
    if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
      const Tensor* r = editor.Constant(n.inputs[1]);
      return r && r->numel() == 1 && IsFloatingPoint(r->dtype()) && r->GetAsDouble(0) == 0.0;
    }
    return false;
  }

  // A Reshape or Flatten reading another Reshape/Flatten reads that one's
  // input instead (its result only depends on the element count and order);
  // otherwise a Reshape to the input's own static shape is removed.
  static bool ReshapeChainOrBypass(GraphEditor& editor, int i, const Types& types, const PassContext& ctx,
                                   bool is_reshape) {
    const Node& n = editor.node(i);
    bool reshape_like = is_reshape || n.op_type == "Flatten";
    if (reshape_like && OpsetOf(ctx, n) >= 5) {
      int p = ProducerOp(editor, n.inputs[0], "Reshape");
      if (p < 0) p = ProducerOp(editor, n.inputs[0], "Flatten");
      if (p >= 0 && !editor.node(p).inputs.empty() && !editor.node(p).inputs[0].empty()) {
        const std::string source = editor.node(p).inputs[0];
        auto shape = is_reshape ? ConstantInts(editor, n, 1) : std::nullopt;
        bool self_contained = shape && (AttrInt(n, "allowzero", 0) == 1 || !std::count(shape->begin(), shape->end(), 0));
        if (self_contained) {
          editor.SetInput(i, 0, source);
          return true;
        }
        // The target shape depends on the intermediate's dims: spell it out
        // when it is statically known.
        auto out = StaticShapeOf(types, n.outputs[0]);
        if (out && !std::count(out->begin(), out->end(), 0)) {
          Node r;
          r.name = n.name;
          r.op_type = "Reshape";
          r.domain = kOnnxDomain;
          std::string shape_name = editor.AddInitializer(
              n.outputs[0] + "_shape", Tensor::FromVector<int64_t>(*out, {static_cast<int64_t>(out->size())}));
          r.inputs = {source, shape_name};
          r.outputs = {n.outputs[0]};
          editor.ReplaceNode(i, std::move(r));
          return true;
        }
      }
    }
    if (n.op_type == "Flatten") return false;
    return SameStaticShape(types, n) && Bypass(editor, i, n.inputs[0]);
  }

  static std::optional<std::vector<int64_t>> Perm(const Node& n, const Types& types) {
    if (auto p = AttrInts(n, "perm")) return p;
    auto shape = types.find(n.inputs[0]);
    if (shape == types.end() || !shape->second.shape) return std::nullopt;
    std::vector<int64_t> reversed(shape->second.shape->size());
    std::iota(reversed.rbegin(), reversed.rend(), 0);
    return reversed;
  }

  // A permutation of 0..n-1 (a malformed perm stays for the kernel to report).
  static bool IsPermutation(const std::vector<int64_t>& p) {
    std::vector<bool> seen(p.size(), false);
    for (int64_t v : p) {
      if (v < 0 || v >= static_cast<int64_t>(p.size()) || seen[static_cast<size_t>(v)]) return false;
      seen[static_cast<size_t>(v)] = true;
    }
    return true;
  }

  static bool IsIdentityPerm(const std::vector<int64_t>& p) {
    for (size_t k = 0; k < p.size(); ++k)
      if (p[k] != static_cast<int64_t>(k)) return false;
    return true;
  }

  static bool TransposeRewrite(GraphEditor& editor, int i, const Types& types) {
    const Node& n = editor.node(i);
    auto p2 = Perm(n, types);
    if (p2 && !IsPermutation(*p2)) return false;
    if (p2 && IsIdentityPerm(*p2)) return Bypass(editor, i, n.inputs[0]);
    int p = ProducerOp(editor, n.inputs[0], "Transpose");
    if (p < 0 || editor.node(p).inputs.empty() || editor.node(p).inputs[0].empty()) return false;
    const Node& first = editor.node(p);
    const std::string source = first.inputs[0];
    // Reversals on both sides cancel whatever the rank.
    if (!first.FindAttribute("perm") && !n.FindAttribute("perm")) return Bypass(editor, i, source);
    auto p1 = Perm(first, types);
    if (!p1 && p2) {  // first reverses a tensor whose rank the second's perm gives
      p1 = std::vector<int64_t>(p2->size());
      std::iota(p1->rbegin(), p1->rend(), 0);
    }
    if (p1 && !p2) {
      p2 = std::vector<int64_t>(p1->size());
      std::iota(p2->rbegin(), p2->rend(), 0);
    }
    if (!p1 || !p2 || p1->size() != p2->size() || !IsPermutation(*p1)) return false;
    std::vector<int64_t> composed(p2->size());
    for (size_t k = 0; k < p2->size(); ++k) {
      int64_t j = (*p2)[k];
      if (j < 0 || j >= static_cast<int64_t>(p1->size())) return false;
      composed[k] = (*p1)[static_cast<size_t>(j)];
    }
    if (IsIdentityPerm(composed)) return Bypass(editor, i, source);
    Node t;
    t.name = n.name;
    t.op_type = "Transpose";
    t.domain = kOnnxDomain;
    t.inputs = {source};
    t.outputs = {n.outputs[0]};
    Attribute perm;
    perm.name = "perm";
    perm.type = AttributeType::kInts;
    perm.ints = composed;
    t.attributes.push_back(perm);
    editor.ReplaceNode(i, std::move(t));
    return true;
  }

  static std::optional<std::vector<int64_t>> Axes(const GraphEditor& editor, const Node& n, int64_t opset) {
    return opset < 13 ? AttrInts(n, "axes") : ConstantInts(editor, n, 1);
  }

  static bool UnsqueezeSqueeze(GraphEditor& editor, int i, const Types& types, int64_t opset) {
    const Node& sq = editor.node(i);
    int p = ProducerOp(editor, sq.inputs[0], "Unsqueeze");
    if (p < 0) return false;
    const Node& un = editor.node(p);
    if (un.inputs.empty() || un.inputs[0].empty()) return false;
    auto a = Axes(editor, un, opset), b = Axes(editor, sq, opset);
    if (!a || !b || a->size() != b->size()) return false;
    // Both lists index the unsqueezed tensor; negative entries need its rank.
    auto rank_in = types.find(un.inputs[0]);
    bool has_rank = rank_in != types.end() && rank_in->second.shape;
    int64_t rank = has_rank ? static_cast<int64_t>(rank_in->second.shape->size() + a->size()) : 0;
    for (auto* list : {&*a, &*b})
      for (auto& v : *list) {
        if (v < 0 && !has_rank) return false;
        if (v < 0) v += rank;
      }
    std::sort(a->begin(), a->end());
    std::sort(b->begin(), b->end());
    return *a == *b && Bypass(editor, i, un.inputs[0]);
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeRedundantNodeElimination() { return std::make_unique<RedundantNodeElimination>(); }

}  // namespace tessera
