// Schema entries of the ai.onnx ops that only move, make or describe data:
// Reshape, Transpose, Concat, (Un)Squeeze, Flatten, the gathers, Shape,
// Size, Split, Slice, Expand, Tile, Pad, Constant, ConstantOfShape...
#include <algorithm>
#include <set>

#include "tessera/ops/infer_rules.h"

namespace tessera::shape_inference {

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

namespace {

using namespace op_trait;

std::vector<TypeInfo> SizeRule(const InferenceInput&) { return {TensorOf(DataType::kInt64, Dims{})}; }

// [rank, number of nonzero elements].
std::vector<TypeInfo> NonZeroRule(const InferenceInput& in) {
  const TypeInfo& x = in.inputs[0];
  if (!HasShape(x)) return {TensorOf(DataType::kInt64)};
  return {TensorOf(DataType::kInt64, {Dim::Known(RankOf(x)), Dim{}})};
}

std::vector<TypeInfo> ConstantOfShapeRule(const InferenceInput& in) {
  auto dims = ConstInts(in, 0);
  const Attribute* v = in.node.FindAttribute("value");
  DataType t = v && v->t.defined() ? v->t.dtype() : DataType::kFloat;
  if (!dims) return {TensorOf(t)};
  Dims d;
  for (int64_t x : *dims) d.push_back(Dim::Known(x));
  return {TensorOf(t, d)};
}

}  // namespace

std::vector<OpSchema> MovementSchemas() {
  constexpr uint32_t kGrowingMovement = kDataMovement | kMayGrow;
  return {
      Onnx("Reshape", Reshape, kDataMovement), Onnx("Transpose", Transpose, kDataMovement),
      Onnx("Concat", Concat, kDataMovement), Onnx("Unsqueeze", Unsqueeze, kDataMovement),
      Onnx("Squeeze", Squeeze, kDataMovement), Onnx("Flatten", Flatten, kDataMovement),
      Onnx("Gather", Gather, kDataMovement), Onnx("GatherElements", ElementTypeOfInput0, kDataMovement),
      Onnx("GatherND", ElementTypeOfInput0, kDataMovement), Onnx("Compress", ElementTypeOfInput0, kDataMovement),
      Onnx("Shape", ShapeOp, kDataMovement), Onnx("Size", SizeRule, kDataMovement),
      Onnx("Split", Split, kDataMovement), Onnx("Slice", Slice, kDataMovement),
      Onnx("DepthToSpace", ElementTypeOfInput0, kDataMovement),
      Onnx("SpaceToDepth", ElementTypeOfInput0, kDataMovement),
      Onnx("Expand", ElementTypeOfInput0, kGrowingMovement), Onnx("Tile", ElementTypeOfInput0, kGrowingMovement),
      Onnx("Pad", ElementTypeOfInput0, kGrowingMovement), Onnx("CenterCropPad", ElementTypeOfInput0, kMayGrow),
      Onnx("NonZero", NonZeroRule), Onnx("Constant", ConstantOp, kDataMovement | kTakesNoInputs),
      Onnx("ConstantOfShape", ConstantOfShapeRule, kGrowingMovement),
  };
}

}  // namespace tessera::shape_inference
