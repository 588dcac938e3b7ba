// ConstantFolding (basic, any provider): a deterministic node whose inputs
// are all constants is evaluated once, now, with the CPU kernels, and its
// outputs become initializers under the same names. Constant nodes thereby
// become initializers too.
#include <algorithm>
#include <cmath>
#include <exception>
#include <optional>

#include "tessera/ops/op_schema.h"
#include "tessera/ops/shape_inference.h"
#include "tessera/optimizer/basic_passes.h"
#include "tessera/optimizer/graph_editor.h"
#include "tessera/optimizer/pass_util.h"

namespace tessera {

namespace {

size_t BytesOf(const TypeInfo& t) {
  auto shape = t.StaticShape();
  if (!shape) return 0;
  size_t n = 1;
  for (int64_t d : *shape) n *= static_cast<size_t>(d);
  size_t bits = static_cast<size_t>(ElementBits(t.elem_type));
  return (n * bits + 7) / 8;
}

// Whether every reader of `value` is a QuantizeLinear, directly or through
// one Relu or Clip: a product's output the QDQ form quantizes again.
bool QuantizedAfter(const GraphEditor& editor, const std::string& value, bool through_activation = true) {
  const std::vector<int> readers = editor.Consumers(value);
  if (readers.empty()) return false;
  for (int r : readers) {
    const Node& c = editor.node(r);
    if (c.domain != kOnnxDomain || c.outputs.empty()) return false;
    if (c.op_type == "QuantizeLinear") continue;
    if (!through_activation || (c.op_type != "Relu" && c.op_type != "Clip") || readers.size() != 1) return false;
    if (!QuantizedAfter(editor, c.outputs[0], false)) return false;
  }
  return true;
}

// A DequantizeLinear of a constant 8-bit weight read only by Conv or MatMul
// products whose outputs are quantized again: the QDQ form of a quantized
// product, which the extended level runs as QLinearConv / QLinearMatMul
// (QdqToQLinear). Folded, the weight would become float (4x the bytes) and
// the pattern would be gone; ONNX Runtime keeps it too. Any other weight
// DequantizeLinear (a Gemm's, a product left float) folds: kept, it would
// dequantize the whole weight on every run.
bool IsQuantizedWeight(const GraphEditor& editor, const Node& n) {
  if (n.domain != kOnnxDomain || n.op_type != "DequantizeLinear" || n.inputs.empty() || n.outputs.empty()) return false;
  const Tensor* q = editor.Constant(n.inputs[0]);
  if (q == nullptr || (q->dtype() != DataType::kInt8 && q->dtype() != DataType::kUInt8)) return false;
  const std::vector<int> readers = editor.Consumers(n.outputs[0]);
  if (readers.empty()) return false;
  for (int r : readers) {
    const Node& c = editor.node(r);
    if (c.domain != kOnnxDomain || (c.op_type != "Conv" && c.op_type != "MatMul") || c.outputs.empty() ||
        !QuantizedAfter(editor, c.outputs[0]))
      return false;
  }
  return true;
}

// Ops whose output can be much larger than their inputs (op_trait::kMayGrow).
// When shape inference cannot size their output, the size is estimated
// here; ops without an estimate are not folded then (computing first could
// exhaust memory before the cap is checked).
bool CanGrow(const Node& n) { return OpHasTrait(n, op_trait::kMayGrow); }

// Elements of the output of a growing op, when they follow from its constant
// inputs; nullopt when unknown.
std::optional<double> EstimateElements(const Node& n, const std::vector<const Tensor*>& in, int64_t opset) {
  auto ints = [&](size_t i) -> std::optional<std::vector<int64_t>> {
    if (i >= in.size() || !in[i] || !IsInteger(in[i]->dtype())) return std::nullopt;
    return in[i]->ToInt64Vector();
  };
  if (in.empty() || !in[0]) return std::nullopt;
  const Shape& x = in[0]->shape();
  if (n.op_type == "Expand") {
    auto target = ints(1);
    if (!target) return std::nullopt;
    size_t rank = std::max(x.size(), target->size());
    double total = 1;
    for (size_t k = 0; k < rank; ++k) {
      int64_t a = k + x.size() >= rank ? x[k + x.size() - rank] : 1;
      int64_t b = k + target->size() >= rank ? (*target)[k + target->size() - rank] : 1;
      total *= static_cast<double>(std::max<int64_t>(std::max<int64_t>(a, b), 0));
    }
    return total;
  }
  if (n.op_type == "Tile") {
    auto reps = ints(1);
    if (!reps) return std::nullopt;
    double total = static_cast<double>(in[0]->numel());
    for (int64_t r : *reps) total *= static_cast<double>(std::max<int64_t>(r, 0));
    return total;
  }
  if (n.op_type == "Pad") {
    auto pads = opset < 11 ? AttrInts(n, "pads") : ints(1);
    if (!pads) return std::nullopt;
    double total = static_cast<double>(in[0]->numel());
    double extra = 0;
    for (int64_t p : *pads) extra += static_cast<double>(std::max<int64_t>(p, 0));
    // Loose upper bound: every axis grown by the sum of all pads.
    double bound = 1;
    for (int64_t d : x) bound *= static_cast<double>(d) + extra;
    return std::max(total, bound);
  }
  if (n.op_type == "Range") {
    if (in.size() < 3 || !in[1] || !in[2] || in[0]->numel() != 1 || in[1]->numel() != 1 || in[2]->numel() != 1)
      return std::nullopt;
    double start = in[0]->GetAsDouble(0), limit = in[1]->GetAsDouble(0), delta = in[2]->GetAsDouble(0);
    if (delta == 0) return std::nullopt;
    return std::max(0.0, std::ceil((limit - start) / delta));
  }
  if (n.op_type == "OneHot") {
    if (in.size() < 2 || !in[1] || in[1]->numel() != 1) return std::nullopt;
    return static_cast<double>(in[0]->numel()) * std::max(0.0, in[1]->GetAsDouble(0));
  }
  return std::nullopt;
}

class ConstantFolding final : public GraphPass {
 public:
  std::string name() const override { return "ConstantFolding"; }
  OptimizationLevel level() const override { return OptimizationLevel::kBasic; }

  int Apply(Graph& graph, const std::vector<std::string>& outer_scope, const PassContext& ctx) const override {
    if (!ctx.cpu_kernels || !ctx.model) return 0;
    GraphEditor editor(graph, outer_scope);
    int folded = 0;
    for (int i = 0; i < static_cast<int>(editor.size()); ++i) {
      if (editor.removed(i)) continue;
      std::vector<Tensor> outputs;
      if (!Evaluate(editor, editor.node(i), ctx, &outputs)) continue;
      Node& node = editor.node(i);
      std::vector<std::string> names = node.outputs;
      editor.RemoveNode(i);
      // The node is gone, so its output names are free to name initializers:
      // readers (and graph outputs) keep their names.
      for (size_t k = 0; k < names.size(); ++k)
        if (!names[k].empty()) graph.initializers[names[k]] = std::move(outputs[k]);
      ++folded;
    }
    if (folded) editor.Commit();
    return folded;
  }

 private:
  // Runs the node when it qualifies; false leaves it in the graph.
  static bool Evaluate(const GraphEditor& editor, const Node& node, const PassContext& ctx,
                       std::vector<Tensor>* result) {
    if (!IsDeterministic(node) || GraphEditor::HasSubgraphs(node) || !ctx.AppliesTo(node)) return false;
    // Run time depends on a pattern's value (a hostile one can backtrack for ages).
    if (IsOp(node, "RegexFullMatch")) return false;
    if (IsQuantizedWeight(editor, node)) return false;
    bool any_output = false;
    for (const auto& o : node.outputs) any_output |= !o.empty();
    if (!any_output) return false;
    std::vector<const Tensor*> constants;
    for (const auto& in : node.inputs) {
      if (in.empty()) {
        constants.push_back(nullptr);
        continue;
      }
      const Tensor* t = editor.Constant(in);
      if (!t) return false;
      constants.push_back(t);
    }
    int64_t opset = OpsetOf(ctx, node);
    std::string why_not;
    const KernelRow* row = ctx.cpu_kernels->Find(node.domain, node.op_type, opset, &why_not);
    if (!row) return false;
    // Skip outputs that statically exceed the cap before computing anything.
    InferenceInput in{node, opset, {}, constants};
    for (const Tensor* t : constants) {
      if (!t) {
        in.inputs.emplace_back();
        continue;
      }
      std::vector<Dim> dims;
      for (int64_t d : t->shape()) dims.push_back(Dim::Known(d));
      in.inputs.push_back(TypeInfo::Tensor(t->dtype(), dims));
    }
    size_t predicted = 0;
    try {
      for (const auto& t : InferOutputTypes(in))
        if (t.is_tensor()) predicted += BytesOf(t);
    } catch (const std::exception&) {
      return false;
    }
    if (predicted > ctx.max_folded_bytes) return false;
    if (predicted == 0 && CanGrow(node)) {
      auto elements = EstimateElements(node, constants, opset);
      // 16 bytes per element bounds every fixed-size element type.
      if (!elements || *elements * 16.0 > static_cast<double>(ctx.max_folded_bytes)) return false;
    }
    try {
      KernelInfo info(node, opset, &editor.graph());
      std::unique_ptr<OpKernel> kernel = row->create(info);
      std::vector<Value> inputs;
      inputs.reserve(constants.size());
      for (const Tensor* t : constants) inputs.push_back(t ? Value(*t) : Value());
      std::vector<const Value*> ptrs;
      for (const auto& v : inputs) ptrs.push_back(v.empty() ? nullptr : &v);
      std::vector<Value> outputs(node.outputs.size());
      // No thread pool: kernels then run their loops on this thread.
      KernelContext kctx(node, ptrs, &outputs, nullptr, nullptr);
      kernel->Compute(kctx);
      size_t total = 0;
      result->assign(node.outputs.size(), Tensor());
      for (size_t k = 0; k < node.outputs.size(); ++k) {
        if (node.outputs[k].empty()) continue;
        if (!outputs[k].is_tensor()) return false;  // sequences, maps, optionals stay computed at run time
        total += outputs[k].tensor().nbytes();
        (*result)[k] = outputs[k].tensor();
      }
      if (total > ctx.max_folded_bytes) return false;
    } catch (const std::exception& e) {
      // The node fails on these inputs: leave it, so the error surfaces when
      // (and only if) the model runs it.
      if (ctx.logger)
        TS_LOG(*ctx.logger, kVerbose, "ConstantFolding: not folding " << node.Label() << ": " << e.what());
      return false;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeConstantFolding() { return std::make_unique<ConstantFolding>(); }

}  // namespace tessera
