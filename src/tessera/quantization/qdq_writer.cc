#include "tessera/quantization/qdq_writer.h"

#include <algorithm>
#include <set>

#include "tessera/base/status.h"
#include "tessera/quantization/quant_params.h"

namespace tessera::quant {

namespace {

// How one node is quantized.
struct NodeRule {
  std::vector<size_t> activation_inputs;
  int weight_input = -1;
  int64_t weight_axis = -1;  // the output-channel axis of the weight
  int bias_input = -1;
  bool output_shares_input = false;
  std::string refusal;  // non-empty: stays float, and why
};

bool IsOneOf(const std::string& op, std::initializer_list<const char*> ops) {
  for (const char* o : ops)
    if (op == o) return true;
  return false;
}

const Tensor* FloatConstant(const Graph& g, const Node& n, size_t input) {
  if (input >= n.inputs.size()) return nullptr;
  const Tensor* t = ConstantInitializer(g, n.inputs[input]);
  return t && t->dtype() == DataType::kFloat ? t : nullptr;
}

NodeRule RuleFor(const Graph& g, const Node& n) {
  NodeRule r;
  const std::string& op = n.op_type;
  if (n.inputs.empty() || n.inputs[0].empty() || n.outputs.empty()) {
    r.refusal = "no input or output to quantize";
    return r;
  }
  if (op == "Conv") {
    const Tensor* w = FloatConstant(g, n, 1);
    if (!w) {
      r.refusal = "its weight is not a constant float initializer";
      return r;
    }
    r.activation_inputs = {0};
    r.weight_input = 1;
    r.weight_axis = 0;
    if (const Tensor* b = FloatConstant(g, n, 2); b && b->rank() == 1 && b->numel() == w->dim(0)) r.bias_input = 2;
  } else if (op == "MatMul" || op == "Gemm") {
    r.activation_inputs = {0};
    const Tensor* w = n.inputs.size() > 1 ? FloatConstant(g, n, 1) : nullptr;
    if (w && w->rank() == 2) {
      r.weight_input = 1;
      r.weight_axis = op == "Gemm" && AttrIntOr(n, "transB", 0) != 0 ? 0 : 1;
    } else if (w) {
      r.refusal = "its constant B is not a matrix";
      return r;
    } else {
      r.activation_inputs.push_back(1);
    }
    if (op == "Gemm" && r.weight_input >= 0 && AttrFloatOr(n, "beta", 1.0f) == 1.0f) {
      const int64_t cols = w->dim(r.weight_axis == 0 ? 0 : 1);
      if (const Tensor* b = FloatConstant(g, n, 2); b && b->rank() == 1 && b->numel() == cols) r.bias_input = 2;
    }
  } else if (op == "MaxPool") {
    if (n.outputs.size() > 1 && !n.outputs[1].empty()) {
      r.refusal = "its Indices output is used";
      return r;
    }
    r.activation_inputs = {0};
    r.output_shares_input = true;
  } else if (IsOneOf(op, {"Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze"})) {
    r.activation_inputs = {0};
    r.output_shares_input = true;
  } else if (op == "Concat") {
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (!n.inputs[i].empty()) r.activation_inputs.push_back(i);
  } else if (op == "Add" || op == "Mul") {
    // A constant operand stays float (only activations are calibrated).
    for (size_t i = 0; i < n.inputs.size() && i < 2; ++i)
      if (!ConstantInitializer(g, n.inputs[i])) r.activation_inputs.push_back(i);
    if (r.activation_inputs.empty()) r.refusal = "both operands are constants";
  } else {  // Relu, Clip, Sigmoid, AveragePool, GlobalAveragePool
    r.activation_inputs = {0};
  }
  return r;
}

// Values whose Q/DQ pair moves to the Relu or Clip reading them.
std::set<std::string> FoldedIntoActivation(const Graph& g, const std::vector<size_t>& nodes,
                                           const std::map<std::string, std::vector<size_t>>& consumers,
                                           const std::set<size_t>& selected) {
  std::set<std::string> folded;
  for (size_t i : nodes) {
    const Node& n = g.nodes[i];
    if (n.op_type == "Relu" || n.op_type == "Clip" || RuleFor(g, n).output_shares_input) continue;
    const std::string& out = n.outputs[0];
    auto it = consumers.find(out);
    if (it == consumers.end() || it->second.size() != 1 || IsGraphOutput(g, out)) continue;
    const size_t c = it->second[0];
    if (selected.count(c) && (g.nodes[c].op_type == "Relu" || g.nodes[c].op_type == "Clip") &&
        g.nodes[c].inputs[0] == out)
      folded.insert(out);
  }
  return folded;
}

}  // namespace

QdqPlan PlanQdq(const Model& model, const QuantizeOptions& options) {
  const Graph& g = *model.graph;
  QdqPlan plan;
  std::set<size_t> selected;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    std::string why = SelectionRefusal(n, options);
    if (why.empty()) why = RuleFor(g, n).refusal;
    if (!why.empty()) {
      plan.left_float.push_back({NodeDisplayName(n), n.op_type, why});
      continue;
    }
    plan.nodes.push_back(i);
    selected.insert(i);
  }
  const auto consumers = ConsumersOf(g);
  const std::set<std::string> folded = FoldedIntoActivation(g, plan.nodes, consumers, selected);
  std::set<std::string> seen;
  auto want = [&](const std::string& t) {
    if (!t.empty() && !ConstantInitializer(g, t) && seen.insert(t).second) plan.activations.push_back(t);
  };
  for (size_t i : plan.nodes) {
    const Node& n = g.nodes[i];
    const NodeRule r = RuleFor(g, n);
    for (size_t k : r.activation_inputs)
      if (!folded.count(n.inputs[k])) want(n.inputs[k]);
    if (r.output_shares_input) plan.shared[n.outputs[0]] = n.inputs[0];
    else if (!folded.count(n.outputs[0])) want(n.outputs[0]);
  }
  // A value both calibrated and shared takes the shared parameters.
  std::erase_if(plan.activations, [&](const std::string& t) { return plan.shared.count(t) > 0; });
  return plan;
}

void WriteQdq(Model& model, const QdqPlan& plan, const std::map<std::string, TensorRange>& ranges,
              const QuantizeOptions& options, QuantizeReport& report) {
  Graph& g = *model.graph;
  const DataType act_type = QuantTypeToDataType(options.activation_type, "activation_type");
  const DataType w_type = QuantTypeToDataType(options.weight_type, "weight_type");
  const IntRange act_range = IntRangeFor(act_type, options.activation_symmetric, false);
  const size_t original = g.nodes.size();
  NameAllocator names(g);
  const auto consumers = ConsumersOf(g);

  // Parameters of every value that gets a pair: its own range, or the
  // range of the value it shares with.
  std::map<std::string, QuantParams> params;
  auto resolve = [&](std::string t) -> const TensorRange* {
    for (int guard = 0; guard < 1 << 20; ++guard) {
      auto s = plan.shared.find(t);
      if (s == plan.shared.end()) break;
      t = s->second;
    }
    auto it = ranges.find(t);
    return it == ranges.end() ? nullptr : &it->second;
  };
  std::vector<std::string> order = plan.activations;
  for (const auto& [t, from] : plan.shared) order.push_back(t);
  for (const auto& t : order)
    if (const TensorRange* r = resolve(t); r && !params.count(t))
      params[t] = ComputeQuantParams(r->rmin, r->rmax, act_range, options.activation_symmetric);

  RequireOpset(model, 10, "QuantizeLinear/DequantizeLinear");
  if (options.per_channel)
    for (size_t i : plan.nodes)
      if (RuleFor(g, g.nodes[i]).weight_input >= 0) {
        RequireOpset(model, 13, "per-channel weights (DequantizeLinear with an axis)");
        break;
      }
  std::map<std::string, std::string> dequantized;  // value -> its DequantizeLinear output
  std::map<std::string, std::string> original_of;  // and back
  std::vector<Node> added;
  auto add_node = [&](const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
                      const std::string& base, int64_t axis) {
    Node n;
    n.op_type = op;
    n.name = names.Fresh(base + "_" + op);
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    if (axis >= 0) {
      Attribute a;
      a.name = "axis";
      a.type = AttributeType::kInt;
      a.i = axis;
      n.attributes.push_back(a);
    }
    added.push_back(std::move(n));
  };
  auto add_initializer = [&](const std::string& base, Tensor t) {
    std::string name = names.Fresh(base);
    g.initializers[name] = std::move(t);
    return name;
  };

  // Activations: Q -> DQ, and every reader takes the DQ output.
  for (const auto& t : order) {
    auto p = params.find(t);
    if (p == params.end() || dequantized.count(t)) continue;
    const std::string scale = add_initializer(t + "_scale", ScaleTensor(p->second.scale));
    const std::string zero = add_initializer(t + "_zero_point", ZeroPointTensor(act_type, p->second.zero_point));
    const std::string q = names.Fresh(t + "_QuantizeLinear_Output");
    const bool graph_input = std::any_of(g.inputs.begin(), g.inputs.end(), [&](const ValueInfo& v) { return v.name == t; });
    std::string source = t, dq = names.Fresh(t + "_DequantizeLinear_Output");
    if (IsGraphOutput(g, t) && !graph_input) {
      // The graph output keeps its name, now on the DQ: the producer
      // writes a new name that the Q reads.
      source = names.Fresh(t + "_float");
      for (size_t i = 0; i < original; ++i)
        for (auto& o : g.nodes[i].outputs)
          if (o == t) o = source;
      dq = t;
    }
    add_node("QuantizeLinear", {source, scale, zero}, {q}, t, -1);
    add_node("DequantizeLinear", {q, scale, zero}, {dq}, t, -1);
    if (auto c = consumers.find(t); c != consumers.end() && dq != t)
      for (size_t i : c->second)
        for (auto& in : g.nodes[i].inputs)
          if (in == t) in = dq;
    dequantized[t] = dq;
    original_of[dq] = t;
    ++report.tensors_quantized;
  }

  // Weights and biases, node by node.
  std::map<std::pair<std::string, int64_t>, std::pair<std::string, Tensor>> weights;  // -> DQ output, scales
  std::set<std::string> replaced;
  for (size_t i : plan.nodes) {
    Node& n = g.nodes[i];
    const NodeRule r = RuleFor(g, n);
    bool touched = params.count(n.outputs[0]) > 0;
    for (const auto& in : n.inputs) touched |= original_of.count(in) > 0;
    // The float value the node's first input dequantizes ("" when none).
    const std::string x_original = original_of.count(n.inputs[0]) ? original_of[n.inputs[0]] : std::string();
    if (r.weight_input >= 0 && !x_original.empty()) {
      const std::string w = n.inputs[static_cast<size_t>(r.weight_input)];
      const int64_t axis = options.per_channel ? r.weight_axis : -1;
      auto key = std::make_pair(w, axis);
      if (!weights.count(key)) {
        const Tensor* wt = ConstantInitializer(g, w);
        QuantizedWeight qw = QuantizeWeight(*wt, w_type, axis, options.WeightSymmetric(), options.reduce_range);
        const std::string qn = add_initializer(w + "_quantized", qw.values);
        const std::string sn = add_initializer(w + "_scale", qw.scale);
        const std::string zn = add_initializer(w + "_zero_point", qw.zero_point);
        const std::string dq = names.Fresh(w + "_DequantizeLinear_Output");
        add_node("DequantizeLinear", {qn, sn, zn}, {dq}, w, axis);
        weights[key] = {dq, qw.scale};
      }
      n.inputs[static_cast<size_t>(r.weight_input)] = weights[key].first;
      replaced.insert(w);
      touched = true;
      if (r.bias_input >= 0 && params.count(x_original)) {
        const std::string b = n.inputs[static_cast<size_t>(r.bias_input)];
        QuantizedBias qb = QuantizeBias(*ConstantInitializer(g, b), params[x_original].scale, weights[key].second);
        const bool bias_axis = qb.scale.rank() == 1;
        const std::string qn = add_initializer(b + "_quantized", qb.values);
        const std::string sn = add_initializer(b + "_scale", qb.scale);
        const std::string dq = names.Fresh(b + "_DequantizeLinear_Output");
        add_node("DequantizeLinear", {qn, sn}, {dq}, b, bias_axis ? 0 : -1);
        n.inputs[static_cast<size_t>(r.bias_input)] = dq;
        replaced.insert(b);
      }
    } else if (r.weight_input >= 0) {
      report.left_float.push_back({NodeDisplayName(n), n.op_type, "its input is not a float activation"});
      continue;
    }
    if (touched) ++report.quantized[n.op_type];
    else report.left_float.push_back({NodeDisplayName(n), n.op_type, "none of its tensors is float"});
  }
  for (auto& n : added) g.nodes.push_back(std::move(n));
  DropUnusedInitializers(g, replaced);
  g.SortTopologically();
}

}  // namespace tessera::quant
