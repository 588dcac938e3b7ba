// Sequences and maps as ORT exposes them: GetValueCount / GetValue read
// them (a map is two values: keys, then values), CreateValue builds them.
#include "tessera/api/c/ort_objects.h"

namespace tessera::capi {

namespace {

Tensor MapKeys(const MapValue& m) {
  if (m.key_type == DataType::kString) {
    Tensor keys(DataType::kString, {static_cast<int64_t>(m.string_keys.size())});
    for (size_t i = 0; i < m.string_keys.size(); ++i) keys.data<std::string>()[i] = m.string_keys[i];
    return keys;
  }
  Tensor keys(DataType::kInt64, {static_cast<int64_t>(m.int_keys.size())});
  for (size_t i = 0; i < m.int_keys.size(); ++i) keys.data<int64_t>()[i] = m.int_keys[i];
  return keys;
}

Value MakeSequence(const OrtValue* const* in, size_t n, const char* entry) {
  SequenceValue s;
  for (size_t i = 0; i < n; ++i) {
    const Value& item = Live(in[i], entry, "in[i]")->value;
    if (!item.is_tensor() && !item.is_map())
      TS_THROW(kInvalidArgument, entry, ": a sequence holds tensors or maps; element ", i, " is ", item.Describe());
    if (i > 0) {
      const Value& first = in[0]->value;
      bool same = item.is_tensor() == first.is_tensor() &&
                  (!item.is_tensor() || item.tensor().dtype() == first.tensor().dtype());
      if (!same)
        TS_THROW(kInvalidArgument, entry, ": sequence elements must share one type; element 0 is ", first.Describe(),
                 ", element ", i, " is ", item.Describe());
    }
    s.items.push_back(item.is_tensor() ? Value(item.tensor().Clone()) : item);
  }
  if (!s.items.empty() && s.items.front().is_tensor()) s.elem_type = TypeInfo::Tensor(s.items.front().tensor().dtype());
  return Value::Sequence(std::move(s));
}

Value MakeMap(const OrtValue* const* in, size_t n, const char* entry) {
  if (n != 2) TS_THROW(kInvalidArgument, entry, ": a map is made of 2 values (keys, values), got ", n);
  const Tensor& keys = TensorOf(in[0], entry, "in[0] (keys)");
  const Tensor& values = TensorOf(in[1], entry, "in[1] (values)");
  if (keys.rank() != 1 || values.rank() != 1 || keys.numel() != values.numel())
    TS_THROW(kInvalidArgument, entry, ": map keys and values must be 1-D of one length, got ", keys.Describe(), " and ",
             values.Describe());
  MapValue m;
  m.key_type = keys.dtype();
  if (keys.dtype() == DataType::kString) {
    for (int64_t i = 0; i < keys.numel(); ++i) m.string_keys.push_back(keys.data<std::string>()[i]);
  } else if (keys.dtype() == DataType::kInt64) {
    for (int64_t i = 0; i < keys.numel(); ++i) m.int_keys.push_back(keys.data<int64_t>()[i]);
  } else {
    TS_THROW(kInvalidArgument, entry, ": map keys must be int64 or string, got ", DataTypeName(keys.dtype()));
  }
  m.values = std::make_shared<Value>(values.Clone());
  return Value::Map(std::move(m));
}

}  // namespace

OrtStatus* GetValueCount(const OrtValue* value, size_t* out) noexcept {
  return Guard([&] {
    const Value& v = Live(value, "GetValueCount", "value")->value;
    NotNull(out, "GetValueCount", "out");
    if (v.is_sequence()) *out = v.sequence().items.size();
    else if (v.is_map()) *out = 2;
    else TS_THROW(kInvalidArgument, "GetValueCount: the value is ", v.Describe(), ", not a sequence or a map");
  });
}

OrtStatus* GetValue(const OrtValue* value, int index, OrtAllocator* allocator, OrtValue** out) noexcept {
  return Guard([&] {
    const Value& v = Live(value, "GetValue", "value")->value;
    NotNull(allocator, "GetValue", "allocator");
    NotNull(out, "GetValue", "out");
    if (v.is_sequence()) {
      const auto& items = v.sequence().items;
      if (index < 0 || static_cast<size_t>(index) >= items.size())
        TS_THROW(kInvalidArgument, "GetValue: index ", index, " is out of range for a sequence of ", items.size());
      const Value& item = items[static_cast<size_t>(index)];
      // The client may write into what it gets; the sequence keeps its own.
      *out = new OrtValue(item.is_tensor() ? Value(item.tensor().Clone()) : item);
    } else if (v.is_map()) {
      if (index != 0 && index != 1)
        TS_THROW(kInvalidArgument, "GetValue: a map has values 0 (keys) and 1 (values), not ", index);
      if (index == 0) *out = new OrtValue(MapKeys(v.map()));
      else *out = new OrtValue(DetachOutput(v.map().values ? *v.map().values : Value()));
    } else {
      TS_THROW(kInvalidArgument, "GetValue: the value is ", v.Describe(), ", not a sequence or a map");
    }
  });
}

OrtStatus* CreateValue(const OrtValue* const* in, size_t num_values, enum ONNXType value_type,
                       OrtValue** out) noexcept {
  return Guard([&] {
    NotNull(out, "CreateValue", "out");
    if (num_values > 0) NotNull(in, "CreateValue", "in");
    if (value_type == ONNX_TYPE_SEQUENCE) *out = new OrtValue(MakeSequence(in, num_values, "CreateValue"));
    else if (value_type == ONNX_TYPE_MAP) *out = new OrtValue(MakeMap(in, num_values, "CreateValue"));
    else
      TS_THROW(kInvalidArgument, "CreateValue: value_type ", static_cast<int>(value_type),
               " is not ONNX_TYPE_SEQUENCE (2) or ONNX_TYPE_MAP (3)");
  });
}

}  // namespace tessera::capi
