// A runtime value flowing along a graph edge: a tensor, a sequence of values,
// a map, or an empty optional.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "tessera/ir/tensor.h"
#include "tessera/ir/type_info.h"

namespace tessera {

class Value;

struct SequenceValue {
  TypeInfo elem_type;  // element type, kept so an empty sequence is typed
  std::vector<Value> items;
};

struct MapValue {
  DataType key_type = DataType::kUndefined;  // int64 or string keys
  std::vector<int64_t> int_keys;
  std::vector<std::string> string_keys;
  std::shared_ptr<Value> values;  // a tensor (one row per key) or a sequence
};

struct OptionalNone {
  TypeInfo elem_type;
};

class Value {
 public:
  Value() = default;
  Value(Tensor t) : v_(std::move(t)) {}  // NOLINT: implicit on purpose, tensors are the common case
  static Value Sequence(SequenceValue s) { Value v; v.v_ = std::make_shared<const SequenceValue>(std::move(s)); return v; }
  static Value Map(MapValue m) { Value v; v.v_ = std::make_shared<const MapValue>(std::move(m)); return v; }
  static Value None(TypeInfo elem_type) { Value v; v.v_ = OptionalNone{std::move(elem_type)}; return v; }

  bool empty() const { return std::holds_alternative<std::monostate>(v_); }
  bool is_tensor() const { return std::holds_alternative<Tensor>(v_); }
  bool is_sequence() const { return std::holds_alternative<std::shared_ptr<const SequenceValue>>(v_); }
  bool is_map() const { return std::holds_alternative<std::shared_ptr<const MapValue>>(v_); }
  bool is_none() const { return std::holds_alternative<OptionalNone>(v_); }

  const Tensor& tensor() const { return std::get<Tensor>(v_); }
  Tensor& tensor() { return std::get<Tensor>(v_); }
  const SequenceValue& sequence() const { return *std::get<std::shared_ptr<const SequenceValue>>(v_); }
  const MapValue& map() const { return *std::get<std::shared_ptr<const MapValue>>(v_); }
  const OptionalNone& none() const { return std::get<OptionalNone>(v_); }

  // "tensor float[2,3]", "seq(3)", "map", "none"
  std::string Describe() const;

 private:
  std::variant<std::monostate, Tensor, std::shared_ptr<const SequenceValue>, std::shared_ptr<const MapValue>,
               OptionalNone>
      v_;
};

// The static type of a runtime value: a tensor's exact shape; a sequence's
// element type from its first item (shape left open, items may differ) or
// its declared element type when empty; a map's key and value types; an
// empty optional's element type.
TypeInfo TypeOfValue(const Value& v);

}  // namespace tessera
