#include "tessera/ops/shape_inference.h"

#include <algorithm>
#include <initializer_list>
#include <set>

namespace tessera {

namespace {

using Dims = std::vector<Dim>;

TypeInfo Unknown() { return TypeInfo{}; }
TypeInfo TensorOf(DataType t, Dims d) { return TypeInfo::Tensor(t, std::move(d)); }
TypeInfo TensorOf(DataType t) { return TypeInfo::Tensor(t); }

bool HasShape(const TypeInfo& t) { return t.is_tensor() && t.shape.has_value(); }
int64_t RankOf(const TypeInfo& t) { return static_cast<int64_t>(t.shape->size()); }

int64_t AttrInt(const Node& n, const std::string& name, int64_t d) {
  const Attribute* a = n.FindAttribute(name);
  return a && a->type == AttributeType::kInt ? a->i : d;
}
std::vector<int64_t> AttrInts(const Node& n, const std::string& name) {
  const Attribute* a = n.FindAttribute(name);
  return a && a->type == AttributeType::kInts ? a->ints : std::vector<int64_t>{};
}
bool HasAttr(const Node& n, const std::string& name) { return n.FindAttribute(name) != nullptr; }

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

std::vector<TypeInfo> Pool(const InferenceInput& in, bool global) {
  const TypeInfo& x = in.inputs[0];
  if (!HasShape(x) || RankOf(x) < 3) return {TensorOf(x.elem_type)};
  Dims out = *x.shape;
  size_t spatial = out.size() - 2;
  if (global) {
    for (size_t i = 2; i < out.size(); ++i) out[i] = Dim::Known(1);
    return {TensorOf(x.elem_type, out)};
  }
  const Node& n = in.node;
  std::vector<int64_t> kernel = AttrInts(n, "kernel_shape");
  bool is_conv = n.op_type == "Conv";
  if (is_conv && kernel.empty()) {
    if (in.inputs.size() < 2 || !HasShape(in.inputs[1])) return {TensorOf(x.elem_type)};
    for (size_t i = 2; i < in.inputs[1].shape->size(); ++i) {
      if (!(*in.inputs[1].shape)[i].known()) return {TensorOf(x.elem_type)};
      kernel.push_back((*in.inputs[1].shape)[i].value);
    }
  }
  if (kernel.size() != spatial) return {TensorOf(x.elem_type)};
  std::vector<int64_t> strides = AttrInts(n, "strides"), dil = AttrInts(n, "dilations"), pads = AttrInts(n, "pads");
  strides.resize(spatial, 1);
  dil.resize(spatial, 1);
  pads.resize(2 * spatial, 0);
  std::string auto_pad;
  if (const Attribute* a = n.FindAttribute("auto_pad")) auto_pad = a->s;
  bool ceil_mode = AttrInt(n, "ceil_mode", 0) != 0;
  if (is_conv) {
    if (in.inputs.size() < 2 || !HasShape(in.inputs[1]) || !(*in.inputs[1].shape)[0].known())
      out[1] = Dim{};
    else
      out[1] = (*in.inputs[1].shape)[0];
  }
  for (size_t i = 0; i < spatial; ++i) {
    const Dim& d = (*x.shape)[i + 2];
    if (!d.known()) {
      out[i + 2] = Dim{};
      continue;
    }
    int64_t ek = (kernel[i] - 1) * dil[i] + 1;
    int64_t o;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      o = (d.value + strides[i] - 1) / strides[i];
    } else if (auto_pad == "VALID") {
      o = (d.value - ek) / strides[i] + 1;
    } else {
      int64_t span = d.value + pads[i] + pads[i + spatial] - ek;
      o = (ceil_mode ? (span + strides[i] - 1) / strides[i] : span / strides[i]) + 1;
      // A last window starting in the end padding is dropped.
      if (ceil_mode && (o - 1) * strides[i] >= d.value + pads[i]) --o;
    }
    if (o < 0) return {TensorOf(x.elem_type)};
    out[i + 2] = Dim::Known(o);
  }
  std::vector<TypeInfo> result = {TensorOf(x.elem_type, out)};
  if (n.op_type == "MaxPool" && n.outputs.size() > 1) result.push_back(TensorOf(DataType::kInt64, out));
  return result;
}

std::vector<TypeInfo> Reduce(const InferenceInput& in) {
  const TypeInfo& x = in.inputs[0];
  const Node& n = in.node;
  bool arg = n.op_type == "ArgMax" || n.op_type == "ArgMin";
  DataType out_type = arg ? DataType::kInt64 : x.elem_type;
  if (!HasShape(x)) return {TensorOf(out_type)};
  int64_t rank = RankOf(x);
  bool keep = AttrInt(n, "keepdims", 1) != 0;
  std::vector<int64_t> axes;
  if (arg) {
    axes = {AttrInt(n, "axis", 0)};
  } else if (HasAttr(n, "axes")) {
    axes = AttrInts(n, "axes");
  } else if (in.inputs.size() > 1 && in.inputs[1].kind != TypeInfo::Kind::kUnknown) {
    auto c = ConstInts(in, 1);
    if (!c) return {TensorOf(out_type)};
    axes = *c;
  }
  if (axes.empty()) {
    if (AttrInt(n, "noop_with_empty_axes", 0) != 0) return {x};
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  std::set<int64_t> reduced;
  for (int64_t a : axes) {
    if (!Normalize(a, rank)) return {TensorOf(out_type)};
    reduced.insert(a);
  }
  Dims out;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced.count(i)) out.push_back((*x.shape)[static_cast<size_t>(i)]);
    else if (keep) out.push_back(Dim::Known(1));
  }
  return {TensorOf(out_type, out)};
}

std::vector<TypeInfo> MatMul(const InferenceInput& in) {
  const TypeInfo& a = in.inputs[0];
  const TypeInfo& b = in.inputs[1];
  if (!HasShape(a) || !HasShape(b) || a.shape->empty() || b.shape->empty()) return {TensorOf(a.elem_type)};
  Dims da = *a.shape, db = *b.shape;
  bool a_vec = da.size() == 1, b_vec = db.size() == 1;
  if (a_vec) da.insert(da.begin(), Dim::Known(1));
  if (b_vec) db.push_back(Dim::Known(1));
  TypeInfo ba = TensorOf(a.elem_type, Dims(da.begin(), da.end() - 2));
  TypeInfo bb = TensorOf(b.elem_type, Dims(db.begin(), db.end() - 2));
  auto batch = Broadcast({ba, bb});
  if (!batch) return {TensorOf(a.elem_type)};
  Dims out = *batch;
  if (!a_vec) out.push_back(da[da.size() - 2]);
  if (!b_vec) out.push_back(db.back());
  return {TensorOf(a.elem_type, out)};
}

// LSTM, GRU and RNN: Y [seq, dirs, batch, hidden] and the final states
// (Y_h, and LSTM's Y_c) [dirs, batch, hidden]; layout 1 puts batch first
// in all of them. Hidden comes from hidden_size, else from R [dirs, gates*H, H].
std::vector<TypeInfo> Recurrent(const InferenceInput& in) {
  const TypeInfo& x = in.inputs[0];
  const size_t outputs = in.node.op_type == "LSTM" ? 3 : 2;
  if (!HasShape(x) || RankOf(x) != 3) return std::vector<TypeInfo>(outputs, TensorOf(x.elem_type));
  const bool batch_first = AttrInt(in.node, "layout", 0) != 0;
  const Dim seq = (*x.shape)[batch_first ? 1 : 0], batch = (*x.shape)[batch_first ? 0 : 1];
  const Attribute* direction = in.node.FindAttribute("direction");
  const Dim dirs = Dim::Known(direction != nullptr && direction->s == "bidirectional" ? 2 : 1);
  Dim hidden;
  if (HasAttr(in.node, "hidden_size")) hidden = Dim::Known(AttrInt(in.node, "hidden_size", 0));
  else if (in.inputs.size() > 2 && HasShape(in.inputs[2]) && RankOf(in.inputs[2]) == 3) hidden = (*in.inputs[2].shape)[2];
  std::vector<TypeInfo> result = {
      TensorOf(x.elem_type, batch_first ? Dims{batch, seq, dirs, hidden} : Dims{seq, dirs, batch, hidden})};
  const Dims state = batch_first ? Dims{batch, dirs, hidden} : Dims{dirs, batch, hidden};
  result.resize(outputs, TensorOf(x.elem_type, state));
  return result;
}

std::vector<TypeInfo> Gemm(const InferenceInput& in) {
  const TypeInfo& a = in.inputs[0];
  const TypeInfo& b = in.inputs[1];
  if (!HasShape(a) || !HasShape(b) || RankOf(a) != 2 || RankOf(b) != 2) return {TensorOf(a.elem_type)};
  bool ta = AttrInt(in.node, "transA", 0) != 0, tb = AttrInt(in.node, "transB", 0) != 0;
  return {TensorOf(a.elem_type, {(*a.shape)[ta ? 1 : 0], (*b.shape)[tb ? 0 : 1]})};
}

std::vector<TypeInfo> Reshape(const InferenceInput& in) {
  const TypeInfo& x = in.inputs[0];
  std::optional<std::vector<int64_t>> target;
  if (in.opset < 5) {
    if (HasAttr(in.node, "shape")) target = AttrInts(in.node, "shape");
  } else {
    target = ConstInts(in, 1);
  }
  if (!target) return {TensorOf(x.elem_type)};
  bool allow_zero = AttrInt(in.node, "allowzero", 0) != 0;
  Dims out;
  int64_t known_product = 1;
  int infer_at = -1;
  bool all_known = HasShape(x) && std::all_of(x.shape->begin(), x.shape->end(), [](const Dim& d) { return d.known(); });
  for (size_t i = 0; i < target->size(); ++i) {
    int64_t v = (*target)[i];
    if (v == 0 && !allow_zero) {
      if (!HasShape(x) || i >= x.shape->size()) return {TensorOf(x.elem_type)};
      out.push_back((*x.shape)[i]);
      // Overflowing products (hostile dims) leave the shape to the kernel.
      if ((*x.shape)[i].known() && __builtin_mul_overflow(known_product, (*x.shape)[i].value, &known_product))
        return {TensorOf(x.elem_type)};
    } else if (v == -1) {
      infer_at = static_cast<int>(i);
      out.push_back(Dim{});
    } else {
      out.push_back(Dim::Known(v));
      if (__builtin_mul_overflow(known_product, v, &known_product)) return {TensorOf(x.elem_type)};
    }
  }
  if (infer_at >= 0) {
    if (!all_known || known_product == 0) return {TensorOf(x.elem_type, out)};
    int64_t total = 1;
    for (const Dim& d : *x.shape)
      if (__builtin_mul_overflow(total, d.value, &total)) return {TensorOf(x.elem_type, out)};
    out[static_cast<size_t>(infer_at)] = Dim::Known(total / known_product);
  }
  return {TensorOf(x.elem_type, out)};
}

std::vector<TypeInfo> Transpose(const InferenceInput& in) {
  const TypeInfo& x = in.inputs[0];
  if (!HasShape(x)) return {TensorOf(x.elem_type)};
  std::vector<int64_t> perm = AttrInts(in.node, "perm");
  int64_t rank = RankOf(x);
  if (perm.empty())
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  if (static_cast<int64_t>(perm.size()) != rank) return {TensorOf(x.elem_type)};
  Dims out;
  for (int64_t p : perm) {
    if (!Normalize(p, rank)) return {TensorOf(x.elem_type)};
    out.push_back((*x.shape)[static_cast<size_t>(p)]);
  }
  return {TensorOf(x.elem_type, out)};
}

std::vector<TypeInfo> Concat(const InferenceInput& in) {
  DataType t = in.inputs.empty() ? DataType::kUndefined : in.inputs[0].elem_type;
  for (const auto& x : in.inputs)
    if (!HasShape(x)) return {TensorOf(t)};
  int64_t rank = RankOf(in.inputs[0]);
  int64_t axis = AttrInt(in.node, "axis", 0);
  if (!Normalize(axis, rank)) return {TensorOf(t)};
  Dims out = *in.inputs[0].shape;
  int64_t sum = 0;
  bool known = true;
  for (const auto& x : in.inputs) {
    if (RankOf(x) != rank) return {TensorOf(t)};
    const Dim& d = (*x.shape)[static_cast<size_t>(axis)];
    if (d.known()) sum += d.value;
    else known = false;
  }
  out[static_cast<size_t>(axis)] = known ? Dim::Known(sum) : Dim{};
  return {TensorOf(t, out)};
}

std::vector<TypeInfo> Unsqueeze(const InferenceInput& in) {
  const TypeInfo& x = in.inputs[0];
  std::optional<std::vector<int64_t>> axes;
  if (HasAttr(in.node, "axes")) axes = AttrInts(in.node, "axes");
  else axes = ConstInts(in, 1);
  if (!HasShape(x) || !axes) return {TensorOf(x.elem_type)};
  int64_t out_rank = RankOf(x) + static_cast<int64_t>(axes->size());
  std::set<int64_t> at;
  for (int64_t a : *axes) {
    if (!Normalize(a, out_rank)) return {TensorOf(x.elem_type)};
    at.insert(a);
  }
  Dims out;
  size_t k = 0;
  for (int64_t i = 0; i < out_rank; ++i) {
    if (at.count(i)) out.push_back(Dim::Known(1));
    else if (k < x.shape->size()) out.push_back((*x.shape)[k++]);
  }
  return {TensorOf(x.elem_type, out)};
}

std::vector<TypeInfo> Squeeze(const InferenceInput& in) {
  const TypeInfo& x = in.inputs[0];
  if (!HasShape(x)) return {TensorOf(x.elem_type)};
  std::optional<std::vector<int64_t>> axes;
  if (HasAttr(in.node, "axes")) axes = AttrInts(in.node, "axes");
  else if (in.inputs.size() > 1 && in.inputs[1].kind != TypeInfo::Kind::kUnknown) axes = ConstInts(in, 1);
  else axes = std::vector<int64_t>{};
  if (!axes) return {TensorOf(x.elem_type)};
  int64_t rank = RankOf(x);
  std::set<int64_t> drop;
  if (axes->empty()) {
    for (int64_t i = 0; i < rank; ++i) {
      const Dim& d = (*x.shape)[static_cast<size_t>(i)];
      if (!d.known()) return {TensorOf(x.elem_type)};
      if (d.value == 1) drop.insert(i);
    }
  }
  for (int64_t a : *axes) {
    if (!Normalize(a, rank)) return {TensorOf(x.elem_type)};
    drop.insert(a);
  }
  Dims out;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop.count(i)) out.push_back((*x.shape)[static_cast<size_t>(i)]);
  return {TensorOf(x.elem_type, out)};
}

std::vector<TypeInfo> Flatten(const InferenceInput& in) {
  const TypeInfo& x = in.inputs[0];
  if (!HasShape(x)) return {TensorOf(x.elem_type)};
  int64_t rank = RankOf(x);
  int64_t axis = AttrInt(in.node, "axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) return {TensorOf(x.elem_type)};
  auto product = [&](int64_t b, int64_t e) -> Dim {
    int64_t p = 1;
    for (int64_t i = b; i < e; ++i) {
      const Dim& d = (*x.shape)[static_cast<size_t>(i)];
      if (!d.known()) return Dim{};
      p *= d.value;
    }
    return Dim::Known(p);
  };
  return {TensorOf(x.elem_type, {product(0, axis), product(axis, rank)})};
}

std::vector<TypeInfo> Gather(const InferenceInput& in) {
  const TypeInfo& x = in.inputs[0];
  const TypeInfo& idx = in.inputs[1];
  if (!HasShape(x) || !HasShape(idx)) return {TensorOf(x.elem_type)};
  int64_t axis = AttrInt(in.node, "axis", 0);
  if (!Normalize(axis, RankOf(x))) return {TensorOf(x.elem_type)};
  Dims out(x.shape->begin(), x.shape->begin() + axis);
  out.insert(out.end(), idx.shape->begin(), idx.shape->end());
  out.insert(out.end(), x.shape->begin() + axis + 1, x.shape->end());
  return {TensorOf(x.elem_type, out)};
}

std::vector<TypeInfo> ShapeOp(const InferenceInput& in) {
  const TypeInfo& x = in.inputs[0];
  if (!HasShape(x)) return {TensorOf(DataType::kInt64, {Dim{}})};
  int64_t rank = RankOf(x);
  int64_t start = AttrInt(in.node, "start", 0), end = AttrInt(in.node, "end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  return {TensorOf(DataType::kInt64, {Dim::Known(std::max<int64_t>(0, end - start))})};
}

std::vector<TypeInfo> Split(const InferenceInput& in) {
  const TypeInfo& x = in.inputs[0];
  size_t n = in.node.outputs.size();
  std::vector<TypeInfo> unknown(n, TensorOf(x.elem_type));
  if (!HasShape(x)) return unknown;
  int64_t axis = AttrInt(in.node, "axis", 0);
  if (!Normalize(axis, RankOf(x))) return unknown;
  const Dim& d = (*x.shape)[static_cast<size_t>(axis)];
  std::optional<std::vector<int64_t>> sizes;
  bool split_input = in.node.inputs.size() > 1 && !in.node.inputs[1].empty();
  if (HasAttr(in.node, "split")) sizes = AttrInts(in.node, "split");
  else if (split_input) sizes = ConstInts(in, 1);
  if (!sizes && split_input) return unknown;  // sizes computed at run time, not an even split
  if (!sizes) {
    if (!d.known()) return unknown;
    sizes = std::vector<int64_t>();
    int64_t chunk = (d.value + static_cast<int64_t>(n) - 1) / static_cast<int64_t>(n);
    for (size_t i = 0; i < n; ++i)
      sizes->push_back(std::max<int64_t>(0, std::min(chunk, d.value - chunk * static_cast<int64_t>(i))));
  }
  if (sizes->size() != n) return unknown;
  std::vector<TypeInfo> out;
  for (int64_t s : *sizes) {
    Dims dims = *x.shape;
    dims[static_cast<size_t>(axis)] = Dim::Known(s);
    out.push_back(TensorOf(x.elem_type, dims));
  }
  return out;
}

std::vector<TypeInfo> Slice(const InferenceInput& in) {
  const TypeInfo& x = in.inputs[0];
  if (!HasShape(x)) return {TensorOf(x.elem_type)};
  std::optional<std::vector<int64_t>> starts, ends, axes, steps;
  if (in.opset < 10) {
    starts = AttrInts(in.node, "starts");
    ends = AttrInts(in.node, "ends");
    if (HasAttr(in.node, "axes")) axes = AttrInts(in.node, "axes");
  } else {
    starts = ConstInts(in, 1);
    ends = ConstInts(in, 2);
    if (in.inputs.size() > 3 && in.inputs[3].kind != TypeInfo::Kind::kUnknown) {
      axes = ConstInts(in, 3);
      if (!axes) return {TensorOf(x.elem_type)};
    }
    if (in.inputs.size() > 4 && in.inputs[4].kind != TypeInfo::Kind::kUnknown) {
      steps = ConstInts(in, 4);
      if (!steps) return {TensorOf(x.elem_type)};
    }
  }
  if (!starts || !ends || starts->size() != ends->size()) return {TensorOf(x.elem_type)};
  int64_t rank = RankOf(x);
  if (!axes) {
    axes = std::vector<int64_t>();
    for (size_t i = 0; i < starts->size(); ++i) axes->push_back(static_cast<int64_t>(i));
  }
  if (!steps) steps = std::vector<int64_t>(starts->size(), 1);
  if (axes->size() != starts->size() || steps->size() != starts->size()) return {TensorOf(x.elem_type)};
  Dims out = *x.shape;
  for (size_t i = 0; i < axes->size(); ++i) {
    int64_t a = (*axes)[i];
    if (!Normalize(a, rank)) return {TensorOf(x.elem_type)};
    const Dim& d = (*x.shape)[static_cast<size_t>(a)];
    int64_t step = (*steps)[i];
    if (!d.known() || step == 0) {
      out[static_cast<size_t>(a)] = Dim{};
      continue;
    }
    int64_t n = d.value, s = (*starts)[i], e = (*ends)[i];
    if (s < 0) s += n;
    if (e < 0) e += n;
    int64_t len;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, n);
      e = std::clamp<int64_t>(e, 0, n);
      len = e > s ? 1 + (e - s - 1) / step : 0;  // no overflow for huge steps
    } else {
      s = std::clamp<int64_t>(s, -1, n - 1);
      e = std::clamp<int64_t>(e, -1, n - 1);
      len = s > e ? 1 - (s - e - 1) / step : 0;  // -step overflows for INT64_MIN
    }
    out[static_cast<size_t>(a)] = Dim::Known(len);
  }
  return {TensorOf(x.elem_type, out)};
}

std::vector<TypeInfo> ConstantOp(const InferenceInput& in) {
  for (const auto& a : in.node.attributes) {
    if (a.type == AttributeType::kTensor) {
      Dims d;
      for (int64_t v : a.t.shape()) d.push_back(Dim::Known(v));
      return {TensorOf(a.t.dtype(), d)};
    }
    if (a.name == "value_float") return {TensorOf(DataType::kFloat, {})};
    if (a.name == "value_int") return {TensorOf(DataType::kInt64, {})};
    if (a.name == "value_string") return {TensorOf(DataType::kString, {})};
    if (a.name == "value_floats") return {TensorOf(DataType::kFloat, {Dim::Known(static_cast<int64_t>(a.floats.size()))})};
    if (a.name == "value_ints") return {TensorOf(DataType::kInt64, {Dim::Known(static_cast<int64_t>(a.ints.size()))})};
    if (a.name == "value_strings")
      return {TensorOf(DataType::kString, {Dim::Known(static_cast<int64_t>(a.strings.size()))})};
  }
  return {Unknown()};
}

// The optimizer's fused ops (ai.tessera) have the types of the ai.onnx ops
// they replace, so later passes still see shapes past a fused node.
// The types of a fused or contrib node as those of the ai.onnx op it
// extends (at the newest opset), read from `inputs`, without the node's
// own attributes `dropped`; the node's constants are passed on when
// `with_constants`.
std::vector<TypeInfo> InferAsOnnxOp(const InferenceInput& in, const char* onnx_op, std::vector<TypeInfo> inputs,
                                    std::initializer_list<const char*> dropped, bool with_constants) {
  Node plain = in.node;
  plain.domain = kOnnxDomain;
  plain.op_type = onnx_op;
  plain.attributes.clear();
  for (const auto& a : in.node.attributes) {
    bool drop = false;
    for (const char* d : dropped) drop |= a.name == d;
    if (!drop) plain.attributes.push_back(a);
  }
  InferenceInput sub{plain, 22, std::move(inputs), {}};
  if (with_constants) sub.constants = in.constants;
  return InferOutputTypes(sub);
}

std::vector<TypeInfo> InferTesseraOutputTypes(const InferenceInput& in) {
  const Node& n = in.node;
  const std::string& op = n.op_type;
  std::vector<TypeInfo> result(n.outputs.size(), Unknown());
  if (result.empty() || in.inputs.empty()) return result;
  const TypeInfo& x = in.inputs[0];
  auto as_onnx = [&](const char* onnx_op, std::vector<TypeInfo> inputs) {
    return InferAsOnnxOp(in, onnx_op, std::move(inputs), {"activation", "activation_params"}, true);
  };
  if (op == "Gelu" || op == "LayerNormalization" || op == "RMSNormalization" || op == "QLinearSilu") {
    result[0] = x;
  } else if (op == "SkipLayerNormalization") {
    for (auto& r : result) r = x;
  } else if (op == "FusedConv") {
    result = as_onnx("Conv", in.inputs);
  } else if (op == "FusedGemm") {
    result = as_onnx("Gemm", in.inputs);
  } else if (op == "FusedMatMul") {
    std::vector<TypeInfo> ins(in.inputs.begin(), in.inputs.begin() + std::min<size_t>(2, in.inputs.size()));
    const char* attrs[2] = {"transA", "transB"};
    for (size_t i = 0; i < ins.size(); ++i) {
      if (AttrInt(n, attrs[i], 0) == 0) continue;
      if (!HasShape(ins[i]) || RankOf(ins[i]) < 2) return result;
      auto& d = *ins[i].shape;
      std::swap(d[d.size() - 1], d[d.size() - 2]);
    }
    result = as_onnx("MatMul", ins);
  } else if (op == "Attention" && in.inputs.size() >= 3) {
    const TypeInfo& v = in.inputs[2];
    if (HasShape(x) && HasShape(v) && RankOf(x) >= 2 && RankOf(v) == RankOf(x)) {
      Dims d = *x.shape;
      d.back() = v.shape->back();
      result[0] = TensorOf(x.elem_type, d);
    } else {
      result[0] = TensorOf(x.elem_type);
    }
  }
  result.resize(n.outputs.size(), Unknown());
  return result;
}

// com.microsoft's quantized ops (ONNX Runtime's contrib ops) have the types
// of the ai.onnx op they quantize, read from their data inputs; the
// channels_last forms permute NHWC to NCHW and back around it.
std::vector<TypeInfo> InferMicrosoftOutputTypes(const InferenceInput& in) {
  const Node& n = in.node;
  const std::string& op = n.op_type;
  std::vector<TypeInfo> result(n.outputs.size(), Unknown());
  if (result.empty()) return result;
  auto input = [&](size_t i) { return i < in.inputs.size() ? in.inputs[i] : Unknown(); };
  auto as_onnx = [&](const char* onnx_op, std::vector<TypeInfo> inputs) {
    return InferAsOnnxOp(in, onnx_op, std::move(inputs), {"channels_last"}, false);
  };
  if (op == "QLinearSigmoid" || op == "QLinearLeakyRelu" || op == "Gelu" || op == "BiasGelu" || op == "FastGelu" ||
      op == "QuickGelu" || op == "BiasAdd" || op == "BiasSoftmax" || op == "RotaryEmbedding") {
    result[0] = input(0);
  } else if (op == "SkipLayerNormalization" || op == "SkipSimplifiedLayerNormalization") {
    // output, mean, inv_std_var (one per row, float whatever the input), sum.
    const TypeInfo x = input(0);
    result[0] = x;
    if (result.size() > 3) result[3] = x;
    TypeInfo stat = TensorOf(DataType::kFloat);
    if (HasShape(x) && RankOf(x) >= 1) {
      Dims d = *x.shape;
      d.back() = Dim::Known(1);
      stat = TensorOf(stat.elem_type, d);
    }
    for (size_t i = 1; i < 3 && i < result.size(); ++i) result[i] = stat;
  } else if (op == "MultiHeadAttention") {
    // (batch, sequence, num_heads * V head size) for 3-D query and value.
    const TypeInfo q = input(0), v = input(2);
    result[0] = TensorOf(q.elem_type);
    if (HasShape(q) && RankOf(q) == 3 && HasShape(v) && RankOf(v) == 3)
      result[0] = TensorOf(q.elem_type, {(*q.shape)[0], (*q.shape)[1], (*v.shape)[2]});
    for (size_t i = 1; i < result.size(); ++i) result[i] = TensorOf(q.elem_type);
  } else if (op == "EmbedLayerNormalization") {
    const TypeInfo ids = input(0), word = input(2);
    result[0] = TensorOf(DataType::kFloat);
    if (HasShape(ids) && RankOf(ids) == 2 && HasShape(word) && RankOf(word) == 2)
      result[0] = TensorOf(DataType::kFloat, {(*ids.shape)[0], (*ids.shape)[1], (*word.shape)[1]});
    if (result.size() > 1)
      result[1] = HasShape(ids) && RankOf(ids) == 2 ? TensorOf(DataType::kInt32, {(*ids.shape)[0]}) : TensorOf(DataType::kInt32);
    if (result.size() > 2) result[2] = result[0];
  } else if (op == "Attention") {
    // (batch, sequence, V hidden); present (2, batch, heads, past + sequence, head size).
    const TypeInfo x = input(0), w = input(1);
    result[0] = TensorOf(x.elem_type);
    std::vector<int64_t> sizes = AttrInts(n, "qkv_hidden_sizes");
    int64_t hv = sizes.size() == 3 ? sizes[2] : -1;
    if (hv < 0 && HasShape(w) && RankOf(w) == 2 && (*w.shape)[1].known()) hv = (*w.shape)[1].value / 3;
    if (HasShape(x) && RankOf(x) == 3 && hv > 0) result[0] = TensorOf(x.elem_type, {(*x.shape)[0], (*x.shape)[1], Dim::Known(hv)});
    if (result.size() > 1) result[1] = TensorOf(x.elem_type);
  } else if (op == "GroupQueryAttention") {
    // (batch, sequence, num_heads * head size); the cache's length is a value.
    const TypeInfo q = input(0);
    result[0] = TensorOf(q.elem_type);
    const int64_t heads = AttrInt(n, "num_heads", 0), kv = AttrInt(n, "kv_num_heads", 0);
    const bool packed = n.inputs.size() < 2 || n.inputs[1].empty();
    if (HasShape(q) && RankOf(q) == 3 && (*q.shape)[2].known() && heads > 0) {
      const int64_t total_heads = packed ? heads + 2 * kv : heads;
      if (total_heads > 0 && (*q.shape)[2].value % total_heads == 0)
        result[0] = TensorOf(q.elem_type, {(*q.shape)[0], (*q.shape)[1],
                                           Dim::Known((*q.shape)[2].value / total_heads * heads)});
    }
    for (size_t i = 1; i < 3 && i < result.size(); ++i) result[i] = TensorOf(q.elem_type);
  } else if (op == "MatMulNBits") {
    // A's shape with N for K.
    const TypeInfo a = input(0);
    result[0] = TensorOf(a.elem_type);
    if (HasShape(a) && RankOf(a) >= 1) {
      Dims d = *a.shape;
      d.back() = Dim::Known(AttrInt(n, "N", -1));
      if (d.back().value >= 0) result[0] = TensorOf(a.elem_type, d);
    }
  } else if (op == "BiasSplitGelu") {
    const TypeInfo x = input(0);
    result[0] = TensorOf(x.elem_type);
    if (HasShape(x) && RankOf(x) >= 1 && x.shape->back().known()) {
      Dims d = *x.shape;
      d.back() = Dim::Known(d.back().value / 2);
      result[0] = TensorOf(x.elem_type, d);
    }
  } else if (op == "Inverse") {
    result[0] = input(0);
  } else if (op == "GridSample" || op == "FusedConv") {
    std::vector<TypeInfo> ins(in.inputs.begin(), in.inputs.begin() + std::min<size_t>(in.inputs.size(), op == "FusedConv" ? 3 : 2));
    result = InferAsOnnxOp(in, op == "FusedConv" ? "Conv" : "GridSample", ins, {"activation", "activation_params"}, true);
  } else if (op == "Trilu" || op == "Range") {
    result = InferAsOnnxOp(in, op.c_str(), in.inputs, {}, true);
  } else if (op == "FusedMatMul") {
    // MatMul of op(A) and op(B), op swapping the last two axes when set.
    auto transposed = [&](size_t i, const char* attr) {
      TypeInfo t = input(i);
      if (AttrInt(n, attr, 0) != 0 && HasShape(t) && RankOf(t) >= 2) std::swap(t.shape->back(), (*t.shape)[t.shape->size() - 2]);
      return t;
    };
    result = as_onnx("MatMul", {transposed(0, "transA"), transposed(1, "transB")});
  } else if (op == "QLinearConv") {
    result = as_onnx("QLinearConv", in.inputs);
  } else if (op == "QGemm") {
    const TypeInfo a = input(0), b = input(3);
    const DataType yt = in.inputs.size() > 7 && n.inputs.size() > 7 && !n.inputs[7].empty()
                            ? (n.inputs.size() > 8 && !n.inputs[8].empty() ? input(8).elem_type : DataType::kUInt8)
                            : DataType::kFloat;
    result[0] = TensorOf(yt);
    if (HasShape(a) && HasShape(b) && RankOf(a) == 2 && RankOf(b) == 2)
      result[0] = TensorOf(yt, {(*a.shape)[AttrInt(n, "transA", 0) ? 1 : 0], (*b.shape)[AttrInt(n, "transB", 0) ? 0 : 1]});
  } else if (op == "QLinearSoftmax") {
    result[0] = input(0);
  } else if (op == "QuantizeLinear" || op == "DequantizeLinear") {
    result = InferAsOnnxOp(in, op.c_str(), in.inputs, {}, true);
  } else if (op == "MatMulIntegerToFloat") {
    result = as_onnx("MatMul", {input(0), input(1)});
    if (!result.empty()) result[0].elem_type = DataType::kFloat;
  } else if (op == "DynamicQuantizeMatMul") {
    // MatMul's shape, in A's (float) type.
    result = as_onnx("MatMul", {input(0), input(1)});
    if (!result.empty()) result[0].elem_type = input(0).elem_type;
  } else if (op == "QLinearAdd" || op == "QLinearMul") {
    const TypeInfo a = input(0), b = input(3);
    auto shape = Broadcast({a, b});
    result[0] = shape ? TensorOf(a.elem_type, *shape) : TensorOf(a.elem_type);
  } else if (op == "QLinearConcat") {
    std::vector<TypeInfo> data;
    for (size_t i = 2; i < in.inputs.size(); i += 3) data.push_back(in.inputs[i]);
    if (!data.empty()) result = as_onnx("Concat", data);
  } else if (op == "QLinearGlobalAveragePool" || op == "QLinearAveragePool") {
    const char* onnx_op = op == "QLinearAveragePool" ? "AveragePool" : "GlobalAveragePool";
    TypeInfo x = input(0);
    if (AttrInt(n, "channels_last", 0) == 0 || !HasShape(x)) {
      result = as_onnx(onnx_op, {x});
      if (AttrInt(n, "channels_last", 0) != 0 && !result.empty()) result[0] = TensorOf(x.elem_type);
    } else if (RankOf(x) >= 3) {
      Dims d = *x.shape;
      Dims nchw = {d[0], d.back()};
      nchw.insert(nchw.end(), d.begin() + 1, d.end() - 1);
      auto r = as_onnx(onnx_op, {TensorOf(x.elem_type, nchw)});
      if (!r.empty() && HasShape(r[0])) {
        Dims o = *r[0].shape;
        Dims nhwc = {o[0]};
        nhwc.insert(nhwc.end(), o.begin() + 2, o.end());
        nhwc.push_back(o[1]);
        result[0] = TensorOf(x.elem_type, nhwc);
      } else {
        result[0] = TensorOf(x.elem_type);
      }
    }
  }
  result.resize(n.outputs.size(), Unknown());
  return result;
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
