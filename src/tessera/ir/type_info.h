// Static type of a graph value: a tensor with an element type and a
// (possibly symbolic, possibly unknown) shape, or a sequence / optional / map.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/ir/data_type.h"

namespace tessera {

// One dimension: a known size, a named symbol ("batch"), or unknown.
struct Dim {
  int64_t value = -1;  // >= 0 when known
  std::string param;   // symbolic name when value < 0
  // What the dimension means ("DATA_BATCH", "DATA_CHANNEL"...), as ONNX's
  // dimension denotation; free-dimension overrides can match on it.
  std::string denotation;
  bool known() const { return value >= 0; }
  static Dim Known(int64_t v) { return Dim{v, {}, {}}; }
  static Dim Symbol(std::string s) { return Dim{-1, std::move(s), {}}; }
  std::string ToString() const { return known() ? std::to_string(value) : (param.empty() ? "?" : param); }
};

struct TypeInfo {
  enum class Kind { kUnknown, kTensor, kSparseTensor, kSequence, kOptional, kMap, kOpaque };

  Kind kind = Kind::kUnknown;
  DataType elem_type = DataType::kUndefined;  // tensors; key type for maps
  std::optional<std::vector<Dim>> shape;      // tensors; nullopt = rank unknown
  std::shared_ptr<TypeInfo> inner;            // sequence / optional element, map value

  static TypeInfo Tensor(DataType t, std::optional<std::vector<Dim>> shape = std::nullopt) {
    TypeInfo i;
    i.kind = Kind::kTensor;
    i.elem_type = t;
    i.shape = std::move(shape);
    return i;
  }
  bool is_tensor() const { return kind == Kind::kTensor; }
  // Fully known static shape, if any.
  std::optional<std::vector<int64_t>> StaticShape() const;
  // ONNX Runtime style: "tensor(float)", "seq(tensor(int64))", "map(string,tensor(float))".
  std::string TypeString() const;
  // TypeString plus the shape: "tensor(float)[batch,3,224,224]".
  std::string ToString() const;
};

}  // namespace tessera
