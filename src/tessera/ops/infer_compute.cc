// Schema entries of the ai.onnx compute ops: pools and convolutions,
// reductions, MatMul, Gemm, the recurrent ops, attention, TopK and the
// resampling ops.
#include <algorithm>
#include <set>

#include "tessera/ops/infer_rules.h"

namespace tessera::shape_inference {

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

namespace {

using namespace op_trait;

std::vector<TypeInfo> PoolRule(const InferenceInput& in) { return Pool(in, false); }
std::vector<TypeInfo> GlobalPoolRule(const InferenceInput& in) { return Pool(in, true); }

// Values, then int64 indices.
std::vector<TypeInfo> TopKRule(const InferenceInput& in) {
  std::vector<TypeInfo> result = ElementTypeOfInput0(in);
  if (!result.empty() && in.node.outputs.size() > 1) result.push_back(TensorOf(DataType::kInt64));
  return result;
}

}  // namespace

std::vector<OpSchema> ComputeSchemas() {
  return {
      Onnx("Conv", PoolRule), Onnx("MaxPool", PoolRule), Onnx("AveragePool", PoolRule), Onnx("LpPool", PoolRule),
      Onnx("GlobalAveragePool", GlobalPoolRule), Onnx("GlobalMaxPool", GlobalPoolRule),
      Onnx("GlobalLpPool", GlobalPoolRule), Onnx("ConvTranspose", ElementTypeOfInput0),
      Onnx("ReduceL1", Reduce), Onnx("ReduceL2", Reduce), Onnx("ReduceLogSum", Reduce),
      Onnx("ReduceLogSumExp", Reduce), Onnx("ReduceMax", Reduce), Onnx("ReduceMean", Reduce),
      Onnx("ReduceMin", Reduce), Onnx("ReduceProd", Reduce), Onnx("ReduceSum", Reduce),
      Onnx("ReduceSumSquare", Reduce), Onnx("ArgMax", Reduce), Onnx("ArgMin", Reduce),
      Onnx("MatMul", MatMul), Onnx("Gemm", Gemm), Onnx("Einsum", ElementTypeOfInput0, kMayGrow),
      Onnx("LSTM", Recurrent), Onnx("GRU", Recurrent), Onnx("RNN", Recurrent),
      Onnx("Attention", ElementTypeOfInput0), Onnx("TopK", TopKRule),
      Onnx("Resize", ElementTypeOfInput0, kMayGrow), Onnx("Upsample", ElementTypeOfInput0, kMayGrow),
      Onnx("GridSample", ElementTypeOfInput0), Onnx("RoiAlign", ElementTypeOfInput0),
      Onnx("MaxUnpool", ElementTypeOfInput0, kMayGrow),
  };
}

}  // namespace tessera::shape_inference
