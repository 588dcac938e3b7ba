// Schema entries of the optimizer's fused ops (ai.tessera) and of ONNX
// Runtime's contrib ops (com.microsoft): mostly the types of the ai.onnx op
// each one extends.
#include <algorithm>
#include <initializer_list>
#include <string>

#include "tessera/ops/infer_rules.h"

namespace tessera::shape_inference {

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

namespace {

TypeInfo Input(const InferenceInput& in, size_t i) { return i < in.inputs.size() ? in.inputs[i] : Unknown(); }

std::vector<TypeInfo> Untyped(const InferenceInput& in) { return std::vector<TypeInfo>(in.node.outputs.size()); }

// The optimizer's fused ops (ai.tessera) have the types of the ai.onnx ops
// they replace, so later passes still see shapes past a fused node.
std::vector<TypeInfo> AsFusedOnnx(const InferenceInput& in, const char* onnx_op, std::vector<TypeInfo> inputs) {
  return InferAsOnnxOp(in, onnx_op, std::move(inputs), {"activation", "activation_params"}, true);
}

std::vector<TypeInfo> FusedConvRule(const InferenceInput& in) { return AsFusedOnnx(in, "Conv", in.inputs); }
std::vector<TypeInfo> FusedGemmRule(const InferenceInput& in) { return AsFusedOnnx(in, "Gemm", in.inputs); }

// Every output (the sum among them) has the input's type.
std::vector<TypeInfo> AllAsInput0(const InferenceInput& in) {
  return std::vector<TypeInfo>(in.node.outputs.size(), in.inputs[0]);
}

// MatMul of op(A) and op(B), op swapping the last two axes when set; a
// transposed operand of unknown rank leaves the output untyped.
std::vector<TypeInfo> FusedMatMulRule(const InferenceInput& in) {
  std::vector<TypeInfo> ins(in.inputs.begin(), in.inputs.begin() + std::min<size_t>(2, in.inputs.size()));
  const char* attrs[2] = {"transA", "transB"};
  for (size_t i = 0; i < ins.size(); ++i) {
    if (AttrInt(in.node, attrs[i], 0) == 0) continue;
    if (!HasShape(ins[i]) || RankOf(ins[i]) < 2) return Untyped(in);
    auto& d = *ins[i].shape;
    std::swap(d[d.size() - 1], d[d.size() - 2]);
  }
  return AsFusedOnnx(in, "MatMul", ins);
}

// Q's shape with V's last dim.
std::vector<TypeInfo> FusedAttentionRule(const InferenceInput& in) {
  if (in.inputs.size() < 3) return Untyped(in);
  const TypeInfo& x = in.inputs[0];
  const TypeInfo& v = in.inputs[2];
  if (!HasShape(x) || !HasShape(v) || RankOf(x) < 2 || RankOf(v) != RankOf(x)) return {TensorOf(x.elem_type)};
  Dims d = *x.shape;
  d.back() = v.shape->back();
  return {TensorOf(x.elem_type, d)};
}

// com.microsoft's quantized ops have the types of the ai.onnx op they
// quantize, read from their data inputs; their channels_last forms permute
// NHWC to NCHW and back around it.
std::vector<TypeInfo> AsQuantizedOnnx(const InferenceInput& in, const char* onnx_op, std::vector<TypeInfo> inputs) {
  return InferAsOnnxOp(in, onnx_op, std::move(inputs), {"channels_last"}, false);
}

// The first `count` inputs typed as the ai.onnx op of the same name (or
// `onnx_op`), without the fused activation.
template <size_t count>
std::vector<TypeInfo> LeadingInputsAsOnnx(const InferenceInput& in, const char* onnx_op) {
  std::vector<TypeInfo> ins(in.inputs.begin(), in.inputs.begin() + std::min(in.inputs.size(), count));
  return AsFusedOnnx(in, onnx_op, ins);
}
std::vector<TypeInfo> MsGridSample(const InferenceInput& in) { return LeadingInputsAsOnnx<2>(in, "GridSample"); }
std::vector<TypeInfo> MsFusedConv(const InferenceInput& in) { return LeadingInputsAsOnnx<3>(in, "Conv"); }

// The ai.onnx op of the same name, with the node's attributes and constants.
std::vector<TypeInfo> AsSameOnnxOp(const InferenceInput& in) {
  return InferAsOnnxOp(in, in.node.op_type.c_str(), in.inputs, {}, true);
}

// output, mean, inv_std_var (one per row, float whatever the input), sum.
std::vector<TypeInfo> SkipNormRule(const InferenceInput& in) {
  std::vector<TypeInfo> result(in.node.outputs.size());
  const TypeInfo x = in.inputs[0];
  result[0] = x;
  if (result.size() > 3) result[3] = x;
  TypeInfo stat = TensorOf(DataType::kFloat);
  if (HasShape(x) && RankOf(x) >= 1) {
    Dims d = *x.shape;
    d.back() = Dim::Known(1);
    stat = TensorOf(stat.elem_type, d);
  }
  for (size_t i = 1; i < 3 && i < result.size(); ++i) result[i] = stat;
  return result;
}

// (batch, sequence, num_heads * V head size) for 3-D query and value.
std::vector<TypeInfo> MultiHeadAttentionRule(const InferenceInput& in) {
  const TypeInfo q = Input(in, 0), v = Input(in, 2);
  std::vector<TypeInfo> result(in.node.outputs.size(), TensorOf(q.elem_type));
  if (HasShape(q) && RankOf(q) == 3 && HasShape(v) && RankOf(v) == 3)
    result[0] = TensorOf(q.elem_type, {(*q.shape)[0], (*q.shape)[1], (*v.shape)[2]});
  return result;
}

std::vector<TypeInfo> EmbedLayerNormRule(const InferenceInput& in) {
  const TypeInfo ids = Input(in, 0), word = Input(in, 2);
  std::vector<TypeInfo> result(in.node.outputs.size());
  result[0] = TensorOf(DataType::kFloat);
  const bool ids_2d = HasShape(ids) && RankOf(ids) == 2;
  if (ids_2d && HasShape(word) && RankOf(word) == 2)
    result[0] = TensorOf(DataType::kFloat, {(*ids.shape)[0], (*ids.shape)[1], (*word.shape)[1]});
  if (result.size() > 1) result[1] = ids_2d ? TensorOf(DataType::kInt32, {(*ids.shape)[0]}) : TensorOf(DataType::kInt32);
  if (result.size() > 2) result[2] = result[0];
  return result;
}

// (batch, sequence, V hidden); present (2, batch, heads, past + sequence, head size).
std::vector<TypeInfo> MsAttentionRule(const InferenceInput& in) {
  const TypeInfo x = Input(in, 0), w = Input(in, 1);
  std::vector<TypeInfo> result(in.node.outputs.size());
  result[0] = TensorOf(x.elem_type);
  std::vector<int64_t> sizes = AttrInts(in.node, "qkv_hidden_sizes");
  int64_t hv = sizes.size() == 3 ? sizes[2] : -1;
  if (hv < 0 && HasShape(w) && RankOf(w) == 2 && (*w.shape)[1].known()) hv = (*w.shape)[1].value / 3;
  if (HasShape(x) && RankOf(x) == 3 && hv > 0)
    result[0] = TensorOf(x.elem_type, {(*x.shape)[0], (*x.shape)[1], Dim::Known(hv)});
  if (result.size() > 1) result[1] = TensorOf(x.elem_type);
  return result;
}

// (batch, sequence, num_heads * head size); the cache's length is a value.
std::vector<TypeInfo> GroupQueryAttentionRule(const InferenceInput& in) {
  const Node& n = in.node;
  const TypeInfo q = Input(in, 0);
  std::vector<TypeInfo> result(n.outputs.size());
  result[0] = TensorOf(q.elem_type);
  const int64_t heads = AttrInt(n, "num_heads", 0), kv = AttrInt(n, "kv_num_heads", 0);
  const bool packed = n.inputs.size() < 2 || n.inputs[1].empty();
  if (HasShape(q) && RankOf(q) == 3 && (*q.shape)[2].known() && heads > 0) {
    const int64_t total_heads = packed ? heads + 2 * kv : heads;
    if (total_heads > 0 && (*q.shape)[2].value % total_heads == 0)
      result[0] = TensorOf(q.elem_type,
                           {(*q.shape)[0], (*q.shape)[1], Dim::Known((*q.shape)[2].value / total_heads * heads)});
  }
  for (size_t i = 1; i < 3 && i < result.size(); ++i) result[i] = TensorOf(q.elem_type);
  return result;
}

// A's shape with N for K.
std::vector<TypeInfo> MatMulNBitsRule(const InferenceInput& in) {
  const TypeInfo a = Input(in, 0);
  if (!HasShape(a) || RankOf(a) < 1) return {TensorOf(a.elem_type)};
  Dims d = *a.shape;
  d.back() = Dim::Known(AttrInt(in.node, "N", -1));
  return {d.back().value >= 0 ? TensorOf(a.elem_type, d) : TensorOf(a.elem_type)};
}

std::vector<TypeInfo> BiasSplitGeluRule(const InferenceInput& in) {
  const TypeInfo x = Input(in, 0);
  if (!HasShape(x) || RankOf(x) < 1 || !x.shape->back().known()) return {TensorOf(x.elem_type)};
  Dims d = *x.shape;
  d.back() = Dim::Known(d.back().value / 2);
  return {TensorOf(x.elem_type, d)};
}

// MatMul of op(A) and op(B): transBatch moves axis 0 behind the batch axes
// (to the row position), then trans swaps the last two axes.
std::vector<TypeInfo> MsFusedMatMulRule(const InferenceInput& in) {
  bool known = true;
  auto operand = [&](size_t i, const char* batch_attr, const char* attr) {
    TypeInfo t = Input(in, i);
    if (AttrInt(in.node, batch_attr, 0) != 0) {
      if (!HasShape(t) || RankOf(t) < 3) {
        known = false;
        return t;
      }
      Dims& d = *t.shape;
      std::rotate(d.begin(), d.begin() + 1, d.end() - 1);
    }
    if (AttrInt(in.node, attr, 0) != 0 && HasShape(t) && RankOf(t) >= 2)
      std::swap(t.shape->back(), (*t.shape)[t.shape->size() - 2]);
    return t;
  };
  TypeInfo a = operand(0, "transBatchA", "transA"), b = operand(1, "transBatchB", "transB");
  return known ? AsQuantizedOnnx(in, "MatMul", {a, b}) : Untyped(in);
}

std::vector<TypeInfo> MsQLinearConvRule(const InferenceInput& in) { return AsQuantizedOnnx(in, "QLinearConv", in.inputs); }

// Quantized output when y_scale is given (uint8 unless y_zero_point says), float otherwise.
std::vector<TypeInfo> QGemmRule(const InferenceInput& in) {
  const Node& n = in.node;
  const TypeInfo a = Input(in, 0), b = Input(in, 3);
  auto given = [&](size_t i) { return in.inputs.size() > i && n.inputs.size() > i && !n.inputs[i].empty(); };
  const DataType yt = given(7) ? (n.inputs.size() > 8 && !n.inputs[8].empty() ? Input(in, 8).elem_type : DataType::kUInt8)
                               : DataType::kFloat;
  if (!HasShape(a) || !HasShape(b) || RankOf(a) != 2 || RankOf(b) != 2) return {TensorOf(yt)};
  return {TensorOf(yt, {(*a.shape)[AttrInt(n, "transA", 0) ? 1 : 0], (*b.shape)[AttrInt(n, "transB", 0) ? 0 : 1]})};
}

// MatMul's shape, in `t` (kUndefined: A's type).
template <DataType t>
std::vector<TypeInfo> MatMulOfTwoInputs(const InferenceInput& in) {
  std::vector<TypeInfo> result = AsQuantizedOnnx(in, "MatMul", {Input(in, 0), Input(in, 1)});
  if (!result.empty()) result[0].elem_type = t == DataType::kUndefined ? Input(in, 0).elem_type : t;
  return result;
}

std::vector<TypeInfo> QLinearBinaryRule(const InferenceInput& in) {
  const TypeInfo a = Input(in, 0), b = Input(in, 3);
  auto shape = Broadcast({a, b});
  return {shape ? TensorOf(a.elem_type, *shape) : TensorOf(a.elem_type)};
}

// Inputs: y_scale, y_zero_point, then (data, scale, zero point) per input.
std::vector<TypeInfo> QLinearConcatRule(const InferenceInput& in) {
  std::vector<TypeInfo> data;
  for (size_t i = 2; i < in.inputs.size(); i += 3) data.push_back(in.inputs[i]);
  return data.empty() ? Untyped(in) : AsQuantizedOnnx(in, "Concat", data);
}

std::vector<TypeInfo> QLinearPoolRule(const InferenceInput& in) {
  const char* onnx_op = in.node.op_type == "QLinearAveragePool" ? "AveragePool" : "GlobalAveragePool";
  const TypeInfo x = Input(in, 0);
  const bool channels_last = AttrInt(in.node, "channels_last", 0) != 0;
  if (!channels_last || !HasShape(x)) {
    std::vector<TypeInfo> result = AsQuantizedOnnx(in, onnx_op, {x});
    if (channels_last && !result.empty()) result[0] = TensorOf(x.elem_type);
    return result;
  }
  if (RankOf(x) < 3) return Untyped(in);
  const Dims& d = *x.shape;
  Dims nchw = {d[0], d.back()};
  nchw.insert(nchw.end(), d.begin() + 1, d.end() - 1);
  auto r = AsQuantizedOnnx(in, onnx_op, {TensorOf(x.elem_type, nchw)});
  if (r.empty() || !HasShape(r[0])) return {TensorOf(x.elem_type)};
  const Dims& o = *r[0].shape;
  Dims nhwc = {o[0]};
  nhwc.insert(nhwc.end(), o.begin() + 2, o.end());
  nhwc.push_back(o[1]);
  return {TensorOf(x.elem_type, nhwc)};
}

}  // namespace

std::vector<OpSchema> ContribSchemas() {
  return {
      Fused("Gelu", SameAsInput0), Fused("LayerNormalization", SameAsInput0),
      Fused("RMSNormalization", SameAsInput0), Fused("QLinearSilu", SameAsInput0),
      Fused("SkipLayerNormalization", AllAsInput0), Fused("FusedConv", FusedConvRule),
      Fused("FusedGemm", FusedGemmRule), Fused("FusedMatMul", FusedMatMulRule),
      Fused("Attention", FusedAttentionRule),

      Microsoft("QLinearSigmoid", SameAsInput0), Microsoft("QLinearLeakyRelu", SameAsInput0),
      Microsoft("Gelu", SameAsInput0), Microsoft("BiasGelu", SameAsInput0), Microsoft("FastGelu", SameAsInput0),
      Microsoft("QuickGelu", SameAsInput0), Microsoft("BiasAdd", SameAsInput0),
      Microsoft("BiasSoftmax", SameAsInput0), Microsoft("RotaryEmbedding", SameAsInput0),
      Microsoft("Inverse", SameAsInput0), Microsoft("QLinearSoftmax", SameAsInput0),
      Microsoft("SkipLayerNormalization", SkipNormRule), Microsoft("SkipSimplifiedLayerNormalization", SkipNormRule),
      Microsoft("MultiHeadAttention", MultiHeadAttentionRule),
      Microsoft("EmbedLayerNormalization", EmbedLayerNormRule), Microsoft("Attention", MsAttentionRule),
      Microsoft("GroupQueryAttention", GroupQueryAttentionRule), Microsoft("MatMulNBits", MatMulNBitsRule),
      Microsoft("BiasSplitGelu", BiasSplitGeluRule), Microsoft("GridSample", MsGridSample),
      Microsoft("FusedConv", MsFusedConv), Microsoft("Trilu", AsSameOnnxOp), Microsoft("Range", AsSameOnnxOp),
      Microsoft("QuantizeLinear", AsSameOnnxOp), Microsoft("DequantizeLinear", AsSameOnnxOp),
      Microsoft("FusedMatMul", MsFusedMatMulRule), Microsoft("QLinearConv", MsQLinearConvRule),
      Microsoft("QGemm", QGemmRule), Microsoft("MatMulIntegerToFloat", MatMulOfTwoInputs<DataType::kFloat>),
      Microsoft("DynamicQuantizeMatMul", MatMulOfTwoInputs<DataType::kUndefined>),
      Microsoft("QLinearAdd", QLinearBinaryRule), Microsoft("QLinearMul", QLinearBinaryRule),
      Microsoft("QLinearConcat", QLinearConcatRule), Microsoft("QLinearGlobalAveragePool", QLinearPoolRule),
      Microsoft("QLinearAveragePool", QLinearPoolRule),
  };
}

}  // namespace tessera::shape_inference
