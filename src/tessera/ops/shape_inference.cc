// Static type and shape inference (shape_inference.h): the per-domain
// dispatch, the op families whose rule is one line, and the walk over a
// graph. The per-op rules: shape_inference_rules.h.
#include "tessera/ops/shape_inference.h"

#include <algorithm>
#include <set>

#include "tessera/ops/shape_inference_rules.h"

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

}  // namespace shape_inference

using namespace shape_inference;

namespace {

const std::set<std::string>& ShapePreserving() {
  static const std::set<std::string> ops = {
      "Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal", "Floor", "Ceil", "Round", "Sign", "Sin", "Cos", "Tan",
      "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Erf", "Relu", "LeakyRelu", "Elu", "Selu",
      "Celu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Softplus", "Softsign", "ThresholdedRelu", "Gelu",
      "Mish", "Shrink", "Swish", "Softmax", "LogSoftmax", "Hardmax", "Identity", "Dropout", "Clip",
      "BatchNormalization", "LayerNormalization", "InstanceNormalization", "GroupNormalization", "LRN",
      "LpNormalization", "MeanVarianceNormalization", "RMSNormalization", "SimplifiedLayerNormalization", "CumSum", "CumProd", "BitwiseNot",
      "Trilu", "ReverseSequence", "PRelu", "RotaryEmbedding", "ScatterElements", "Scatter", "ScatterND",
      "TensorScatter", "Not", "EyeLike"};
  return ops;
}

const std::set<std::string>& BroadcastArithmetic() {
  static const std::set<std::string> ops = {"Add",        "Sub",        "Mul",        "Div",       "Pow",
                                            "Mod",        "Max",        "Min",        "Sum",       "Mean",
                                            "BitShift",   "BitwiseAnd", "BitwiseOr",  "BitwiseXor"};
  return ops;
}

const std::set<std::string>& BroadcastPredicate() {
  static const std::set<std::string> ops = {"Equal", "Less",  "Greater", "LessOrEqual", "GreaterOrEqual",
                                            "And",   "Or",    "Xor"};
  return ops;
}

}  // namespace

bool IsShapePreservingOp(const std::string& domain, const std::string& op_type) {
  return domain == kOnnxDomain && ShapePreserving().count(op_type) > 0;
}

std::vector<TypeInfo> InferOutputTypes(const InferenceInput& in) {
  const Node& n = in.node;
  const std::string& op = n.op_type;
  size_t num_out = n.outputs.size();
  std::vector<TypeInfo> result;
  auto first = [&]() -> const TypeInfo& {
    static const TypeInfo unknown;
    return in.inputs.empty() ? unknown : in.inputs[0];
  };
  if (n.domain == kTesseraDomain) return InferTesseraOutputTypes(in);
  if (n.domain == kMicrosoftDomain) return InferMicrosoftOutputTypes(in);
  if (n.domain != kOnnxDomain) {
    result.assign(num_out, Unknown());
    return result;
  }
  if (op == "Constant") {
    result = ConstantOp(in);
  } else if (in.inputs.empty()) {
    // Malformed (graph validation refuses it later), but the optimizer infers
    // types before that, and the inferers below read input 0.
    result.assign(num_out, Unknown());
  } else if (IsShapePreservingOp(n.domain, op)) {
    result = {first()};
    if (op == "Dropout" && num_out > 1) {
      TypeInfo mask = first();
      mask.elem_type = DataType::kBool;
      result.push_back(mask);
    }
  } else if (BroadcastArithmetic().count(op) || BroadcastPredicate().count(op) || op == "Where") {
    std::vector<TypeInfo> ins = in.inputs;
    DataType t = BroadcastPredicate().count(op) ? DataType::kBool
                 : op == "Where" && ins.size() > 1 ? ins[1].elem_type
                                                   : first().elem_type;
    auto shape = Broadcast(ins);
    result = {shape ? TensorOf(t, *shape) : TensorOf(t)};
  } else if (op == "IsNaN" || op == "IsInf") {
    TypeInfo r = first();
    r.elem_type = DataType::kBool;
    result = {r};
  } else if (op == "Cast") {
    TypeInfo r = first();
    r.kind = TypeInfo::Kind::kTensor;
    r.elem_type = static_cast<DataType>(AttrInt(n, "to", 0));
    result = {r};
  } else if (op == "CastLike") {
    TypeInfo r = first();
    if (in.inputs.size() > 1) r.elem_type = in.inputs[1].elem_type;
    result = {r};
  } else if (op == "MatMul") {
    result = MatMul(in);
  } else if (op == "Gemm") {
    result = Gemm(in);
  } else if (op == "LSTM" || op == "GRU" || op == "RNN") {
    result = Recurrent(in);
  } else if (op == "Conv" || op == "MaxPool" || op == "AveragePool" || op == "LpPool") {
    result = Pool(in, false);
  } else if (op == "GlobalAveragePool" || op == "GlobalMaxPool" || op == "GlobalLpPool") {
    result = Pool(in, true);
  } else if (op.rfind("Reduce", 0) == 0 || op == "ArgMax" || op == "ArgMin") {
    result = Reduce(in);
  } else if (op == "Reshape") {
    result = Reshape(in);
  } else if (op == "Transpose") {
    result = Transpose(in);
  } else if (op == "Concat") {
    result = Concat(in);
  } else if (op == "Unsqueeze") {
    result = Unsqueeze(in);
  } else if (op == "Squeeze") {
    result = Squeeze(in);
  } else if (op == "Flatten") {
    result = Flatten(in);
  } else if (op == "Gather") {
    result = Gather(in);
  } else if (op == "Shape") {
    result = ShapeOp(in);
  } else if (op == "Size") {
    result = {TensorOf(DataType::kInt64, Dims{})};
  } else if (op == "Split") {
    result = Split(in);
  } else if (op == "Slice") {
    result = Slice(in);
  } else if (op == "NonZero") {
    result = {TensorOf(DataType::kInt64, {Dim::Known(HasShape(first()) ? RankOf(first()) : -1), Dim{}})};
    if (!HasShape(first())) result = {TensorOf(DataType::kInt64)};
  } else if (op == "ConstantOfShape") {
    auto dims = ConstInts(in, 0);
    const Attribute* v = n.FindAttribute("value");
    DataType t = v && v->t.defined() ? v->t.dtype() : DataType::kFloat;
    if (dims) {
      Dims d;
      for (int64_t x : *dims) d.push_back(Dim::Known(x));
      result = {TensorOf(t, d)};
    } else {
      result = {TensorOf(t)};
    }
  } else {
    // Element type only, for ops whose output type follows input 0.
    static const std::set<std::string> same_type = {"Expand", "Tile", "Pad", "Resize", "Upsample", "TopK",
                                                    "GatherElements", "GatherND", "Compress", "DepthToSpace",
                                                    "SpaceToDepth", "ConvTranspose", "Einsum", "Attention",
                                                    "MaxUnpool", "GridSample", "RoiAlign", "CenterCropPad"};
    if (same_type.count(op) && first().is_tensor()) {
      result = {TensorOf(first().elem_type)};
      if (op == "TopK" && num_out > 1) result.push_back(TensorOf(DataType::kInt64));
    }
  }
  result.resize(num_out);
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
