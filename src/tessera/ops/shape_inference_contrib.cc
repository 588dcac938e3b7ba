// Shape inference of the optimizer's fused ops (ai.tessera) and ONNX
// Runtime's contrib ops (com.microsoft): mostly the types of the ai.onnx op
// each one extends.
#include <algorithm>
#include <initializer_list>

#include "tessera/ops/shape_inference_rules.h"

namespace tessera::shape_inference {

namespace {


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


}  // namespace

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


}  // namespace tessera::shape_inference
