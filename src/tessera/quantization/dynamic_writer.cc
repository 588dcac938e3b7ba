#include "tessera/quantization/dynamic_writer.h"

#include <array>
#include <set>

#include "tessera/base/status.h"
#include "tessera/quantization/quant_params.h"

namespace tessera::quant {

namespace {

Node MakeNode(NameAllocator& names, const std::string& base, const std::string& op, std::vector<std::string> in,
              std::vector<std::string> out) {
  Node n;
  n.name = names.Fresh(base + "_" + op);
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

// B^T for a Gemm with transB: MatMulInteger takes B as [K, N].
Tensor Transposed(const Tensor& w) {
  const int64_t r = w.dim(0), c = w.dim(1);
  Tensor t(DataType::kFloat, {c, r});
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) t.data<float>()[j * r + i] = w.data<float>()[i * c + j];
  return t;
}

// Why a selected node stays float, or "".
std::string Refusal(const Graph& g, const Node& n) {
  if (n.inputs.size() < 2 || n.inputs[0].empty() || n.outputs.empty()) return "no input or output to quantize";
  const Tensor* w = ConstantInitializer(g, n.inputs[1]);
  if (!w || w->dtype() != DataType::kFloat) return "its B is not a constant float initializer";
  if (w->rank() != 2) return "its constant B is not a matrix";
  if (n.op_type == "Gemm") {
    if (AttrIntOr(n, "transA", 0) != 0) return "transA is set";
    if (AttrFloatOr(n, "alpha", 1.0f) != 1.0f) return "alpha is not 1";
    if (n.inputs.size() > 2 && !n.inputs[2].empty() && AttrFloatOr(n, "beta", 1.0f) != 1.0f) return "beta is not 1";
  }
  return "";
}

}  // namespace

void WriteDynamic(Model& model, const QuantizeOptions& options, QuantizeReport& report) {
  RequireOpset(model, 11, "DynamicQuantizeLinear");
  Graph& g = *model.graph;
  const DataType w_type = QuantTypeToDataType(options.weight_type, "weight_type");
  NameAllocator names(g);
  std::map<std::string, std::array<std::string, 3>> activations;  // A -> q, scale, zero point
  std::map<std::pair<std::string, bool>, std::array<std::string, 3>> weights;
  std::set<std::string> replaced;
  std::vector<Node> out;
  out.reserve(g.nodes.size());
  for (Node& n : g.nodes) {
    std::string why = SelectionRefusal(n, options);
    if (why.empty()) why = Refusal(g, n);
    if (!why.empty()) {
      if (why != "not an ai.onnx op") report.left_float.push_back({NodeDisplayName(n), n.op_type, why});
      out.push_back(std::move(n));
      continue;
    }
    const std::string base = NodeDisplayName(n);
    const std::string& a = n.inputs[0];
    if (!activations.count(a)) {
      std::array<std::string, 3> q = {names.Fresh(a + "_quantized"), names.Fresh(a + "_scale"),
                                      names.Fresh(a + "_zero_point")};
      out.push_back(MakeNode(names, a, "DynamicQuantizeLinear", {a}, {q[0], q[1], q[2]}));
      activations[a] = q;
    }
    const auto& aq = activations[a];
    const std::string& b = n.inputs[1];
    const bool trans = n.op_type == "Gemm" && AttrIntOr(n, "transB", 0) != 0;
    const auto key = std::make_pair(b, trans);
    if (!weights.count(key)) {
      const Tensor* w = ConstantInitializer(g, b);
      const Tensor kn = trans ? Transposed(*w) : *w;
      QuantizedWeight qw =
          QuantizeWeight(kn, w_type, options.per_channel ? 1 : -1, options.WeightSymmetric(), options.reduce_range);
      std::array<std::string, 3> q = {names.Fresh(b + "_quantized"), names.Fresh(b + "_scale"),
                                      names.Fresh(b + "_zero_point")};
      g.initializers[q[0]] = qw.values;
      g.initializers[q[1]] = qw.scale;
      g.initializers[q[2]] = qw.zero_point;
      weights[key] = q;
    }
    const auto& wq = weights[key];
    replaced.insert(b);
    const std::string& y = n.outputs[0];
    const std::string product = names.Fresh(y + "_MatMulInteger");
    const std::string as_float = names.Fresh(y + "_cast");
    const std::string scale = names.Fresh(y + "_scale_product");
    const bool has_bias = n.op_type == "Gemm" && n.inputs.size() > 2 && !n.inputs[2].empty();
    const std::string scaled = has_bias ? names.Fresh(y + "_scaled") : y;
    out.push_back(MakeNode(names, base, "MatMulInteger", {aq[0], wq[0], aq[2], wq[2]}, {product}));
    Node cast = MakeNode(names, base, "Cast", {product}, {as_float});
    Attribute to;
    to.name = "to";
    to.type = AttributeType::kInt;
    to.i = static_cast<int64_t>(DataType::kFloat);
    cast.attributes.push_back(to);
    out.push_back(std::move(cast));
    out.push_back(MakeNode(names, base + "_scales", "Mul", {aq[1], wq[1]}, {scale}));
    out.push_back(MakeNode(names, base, "Mul", {as_float, scale}, {scaled}));
    if (has_bias) out.push_back(MakeNode(names, base + "_bias", "Add", {scaled, n.inputs[2]}, {y}));
    ++report.quantized[n.op_type];
  }
  g.nodes = std::move(out);
  DropUnusedInitializers(g, replaced);
  g.SortTopologically();
}

}  // namespace tessera::quant
