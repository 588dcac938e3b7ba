// OrtValue tensors: over the client's memory, over memory this library
// allocates, and string tensors (std::string elements, as Tessera stores
// them).
#include <limits>

#include "tessera/api/c/ort_objects.h"

namespace tessera::capi {

namespace {

Shape ShapeFrom(const int64_t* shape, size_t shape_len, const char* entry) {
  if (shape_len > 0) NotNull(shape, entry, "shape");
  Shape s(shape, shape + shape_len);
  int64_t count = 1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] < 0) TS_THROW(kInvalidArgument, entry, ": dimension ", i, " of shape ", ShapeToString(s), " is negative");
    if (s[i] != 0 && count > std::numeric_limits<int64_t>::max() / s[i])
      TS_THROW(kInvalidArgument, entry, ": shape ", ShapeToString(s), " has more elements than fit in 64 bits");
    count *= s[i];
  }
  return s;
}

Tensor& MutableTensorOf(OrtValue* value, const char* entry, const char* argument) {
  Live(value, entry, argument);
  if (!value->value.is_tensor())
    TS_THROW(kInvalidArgument, entry, ": '", argument, "' is not a tensor (it is ", value->value.Describe(), ")");
  return value->value.tensor();
}

const Tensor& StringTensorOf(const OrtValue* value, const char* entry) {
  const Tensor& t = TensorOf(value, entry, "value");
  if (t.dtype() != DataType::kString)
    TS_THROW(kInvalidArgument, entry, ": the tensor holds ", DataTypeName(t.dtype()), ", not strings");
  return t;
}

std::string* StringsOf(OrtValue* value, const char* entry) {
  StringTensorOf(value, entry);
  return value->value.tensor().data<std::string>();
}

size_t CheckIndex(size_t index, const Tensor& t, const char* entry) {
  if (index >= static_cast<size_t>(t.numel()))
    TS_THROW(kInvalidArgument, entry, ": index ", index, " is out of range for ", t.numel(), " elements");
  return index;
}

// A keepalive that owns nothing: the client keeps the memory alive.
std::shared_ptr<const void> ClientOwned() { return std::make_shared<int>(0); }

OrtStatus* TensorOverMemory(void* p_data, size_t p_data_len, const int64_t* shape, size_t shape_len,
                            ONNXTensorElementDataType type, OrtValue** out, std::shared_ptr<const void> keepalive,
                            const char* entry) {
  return Guard([&] {
    NotNull(out, entry, "out");
    DataType dtype = FromOrtElementType(type, entry);
    if (dtype == DataType::kString)
      TS_THROW(kInvalidArgument, entry, ": string tensors cannot live in caller memory; use CreateTensorAsOrtValue "
               "and FillStringTensor");
    Shape s = ShapeFrom(shape, shape_len, entry);
    int64_t numel = 1;
    for (int64_t d : s) numel *= d;
    size_t needed = static_cast<size_t>(StorageBytes(dtype, numel));
    if (p_data_len < needed)
      TS_THROW(kInvalidArgument, entry, ": a ", DataTypeName(dtype), " tensor of shape ", ShapeToString(s), " needs ",
               needed, " bytes, the buffer has ", p_data_len);
    if (needed > 0) NotNull(p_data, entry, "p_data");
    auto buffer = TensorBuffer::Borrow(p_data, needed, keepalive ? std::move(keepalive) : ClientOwned());
    *out = new OrtValue(Tensor(dtype, s, std::move(buffer)));
  });
}

}  // namespace

const Tensor& TensorOf(const OrtValue* value, const char* entry, const char* argument) {
  Live(value, entry, argument);
  if (!value->value.is_tensor())
    TS_THROW(kInvalidArgument, entry, ": '", argument, "' is not a tensor (it is ", value->value.Describe(), ")");
  return value->value.tensor();
}

void ReleaseValue(OrtValue* input) noexcept { ReleaseHandle(input, "ReleaseValue"); }

OrtStatus* CreateTensorAsOrtValue(OrtAllocator* allocator, const int64_t* shape, size_t shape_len,
                                  ONNXTensorElementDataType type, OrtValue** out) noexcept {
  return Guard([&] {
    // Tessera allocates the memory itself (64-byte aligned, released with
    // the value); the allocator only has to be a real one.
    NotNull(allocator, "CreateTensorAsOrtValue", "allocator");
    NotNull(out, "CreateTensorAsOrtValue", "out");
    DataType dtype = FromOrtElementType(type, "CreateTensorAsOrtValue");
    *out = new OrtValue(Tensor(dtype, ShapeFrom(shape, shape_len, "CreateTensorAsOrtValue")));
  });
}

OrtStatus* CreateTensorWithDataAsOrtValue(const OrtMemoryInfo* info, void* p_data, size_t p_data_len,
                                          const int64_t* shape, size_t shape_len, ONNXTensorElementDataType type,
                                          OrtValue** out) noexcept {
  if (OrtStatus* bad = Guard([&] {
        const auto* mi = Live(info, "CreateTensorWithDataAsOrtValue", "info");
        if (mi->device_type != OrtMemoryInfoDeviceType_CPU)
          TS_THROW(kInvalidArgument, "CreateTensorWithDataAsOrtValue: memory '", mi->name,
                   "' is a device's; Tessera's C API takes tensors in host memory only");
      }))
    return bad;
  return TensorOverMemory(p_data, p_data_len, shape, shape_len, type, out, nullptr, "CreateTensorWithDataAsOrtValue");
}

// The value owns the memory: when the last tensor using it goes, the
// deleter's Free gets it back.
OrtStatus* CreateTensorWithDataAndDeleterAsOrtValue(OrtAllocator* deleter, void* p_data, size_t p_data_len,
                                                    const int64_t* shape, size_t shape_len,
                                                    ONNXTensorElementDataType type, OrtValue** out) noexcept {
  const char* entry = "CreateTensorWithDataAndDeleterAsOrtValue";
  if (!deleter) return MakeStatus(ORT_INVALID_ARGUMENT, std::string(entry) + ": 'deleter' is NULL");
  std::shared_ptr<const void> owner(p_data, [deleter](const void* p) { deleter->Free(deleter, const_cast<void*>(p)); });
  return TensorOverMemory(p_data, p_data_len, shape, shape_len, type, out, std::move(owner), entry);
}

OrtStatus* IsTensor(const OrtValue* value, int* out) noexcept {
  return Guard([&] { *NotNull(out, "IsTensor", "out") = Live(value, "IsTensor", "value")->value.is_tensor(); });
}

OrtStatus* IsSparseTensor(const OrtValue* value, int* out) noexcept {
  return Guard([&] {
    Live(value, "IsSparseTensor", "value");
    *NotNull(out, "IsSparseTensor", "out") = 0;  // Tessera's values are dense
  });
}

OrtStatus* HasValue(const OrtValue* value, int* out) noexcept {
  return Guard([&] {
    const auto* v = Live(value, "HasValue", "value");
    *NotNull(out, "HasValue", "out") = !v->value.is_none() && !v->value.empty();
  });
}

OrtStatus* GetTensorMutableData(OrtValue* value, void** out) noexcept {
  return Guard([&] {
    Tensor& t = MutableTensorOf(value, "GetTensorMutableData", "value");
    *NotNull(out, "GetTensorMutableData", "out") = t.raw_data();
  });
}

OrtStatus* GetTensorData(const OrtValue* value, const void** out) noexcept {
  return Guard([&] { *NotNull(out, "GetTensorData", "out") = TensorOf(value, "GetTensorData", "value").raw_data(); });
}

OrtStatus* GetTensorSizeInBytes(const OrtValue* ort_value, size_t* size) noexcept {
  return Guard([&] {
    const Tensor& t = TensorOf(ort_value, "GetTensorSizeInBytes", "ort_value");
    if (t.dtype() == DataType::kString)
      TS_THROW(kInvalidArgument, "GetTensorSizeInBytes: a string tensor has no fixed byte size");
    *NotNull(size, "GetTensorSizeInBytes", "size") = static_cast<size_t>(StorageBytes(t.dtype(), t.numel()));
  });
}

OrtStatus* GetTensorTypeAndShape(const OrtValue* value, OrtTensorTypeAndShapeInfo** out) noexcept {
  return Guard([&] {
    const Tensor& t = TensorOf(value, "GetTensorTypeAndShape", "value");
    *NotNull(out, "GetTensorTypeAndShape", "out") = MakeTensorInfo(t).release();
  });
}

OrtStatus* GetTypeInfo(const OrtValue* value, OrtTypeInfo** out) noexcept {
  return Guard([&] {
    const auto* v = Live(value, "GetTypeInfo", "value");
    *NotNull(out, "GetTypeInfo", "out") = MakeTypeInfo(v->value).release();
  });
}

OrtStatus* GetValueType(const OrtValue* value, enum ONNXType* out) noexcept {
  return Guard([&] {
    const Value& v = Live(value, "GetValueType", "value")->value;
    NotNull(out, "GetValueType", "out");
    *out = v.is_tensor() ? ONNX_TYPE_TENSOR
         : v.is_sequence() ? ONNX_TYPE_SEQUENCE
         : v.is_map() ? ONNX_TYPE_MAP
         : v.is_none() ? ONNX_TYPE_OPTIONAL
         : ONNX_TYPE_UNKNOWN;
  });
}

OrtStatus* GetTensorMemoryInfo(const OrtValue* value, const OrtMemoryInfo** mem_info) noexcept {
  return Guard([&] {
    TensorOf(value, "GetTensorMemoryInfo", "value");
    *NotNull(mem_info, "GetTensorMemoryInfo", "mem_info") = CpuMemoryInfo();
  });
}

OrtStatus* GetTensorElementTypeAndShapeDataReference(const OrtValue* value, ONNXTensorElementDataType* elem_type,
                                                     const int64_t** shape_data, size_t* shape_data_count) noexcept {
  const char* entry = "GetTensorElementTypeAndShapeDataReference";
  return Guard([&] {
    const Tensor& t = TensorOf(value, entry, "value");
    *NotNull(elem_type, entry, "elem_type") = ToOrtElementType(t.dtype());
    *NotNull(shape_data, entry, "shape_data") = t.shape().data();
    *NotNull(shape_data_count, entry, "shape_data_count") = t.shape().size();
  });
}

OrtStatus* TensorAt(OrtValue* value, const int64_t* location_values, size_t location_values_count,
                    void** out) noexcept {
  return Guard([&] {
    Tensor& t = MutableTensorOf(value, "TensorAt", "value");
    NotNull(out, "TensorAt", "out");
    if (IsSubByte(t.dtype()))
      TS_THROW(kInvalidArgument, "TensorAt: ", DataTypeName(t.dtype()), " elements share bytes; no element address");
    if (location_values_count != t.shape().size())
      TS_THROW(kInvalidArgument, "TensorAt: ", location_values_count, " indices for a tensor of rank ", t.rank());
    if (location_values_count > 0) NotNull(location_values, "TensorAt", "location_values");
    int64_t offset = 0;
    for (size_t i = 0; i < location_values_count; ++i) {
      if (location_values[i] < 0 || location_values[i] >= t.shape()[i])
        TS_THROW(kInvalidArgument, "TensorAt: index ", location_values[i], " is out of range for dimension ", i,
                 " of shape ", ShapeToString(t.shape()));
      offset = offset * t.shape()[i] + location_values[i];
    }
    *out = static_cast<char*>(t.raw_data()) + offset * (ElementBits(t.dtype()) / 8);
  });
}

// Host to host: every pair must agree in element type and shape.
OrtStatus* CopyTensors(const OrtEnv* env, const OrtValue* const* src_tensors, OrtValue* const* dst_tensors,
                       OrtSyncStream* stream, size_t num_tensors) noexcept {
  return Guard([&] {
    Live(env, "CopyTensors", "env");
    if (stream) TS_THROW(kInvalidArgument, "CopyTensors: Tessera's tensors are in host memory; there is no stream to use");
    if (num_tensors == 0) return;
    NotNull(src_tensors, "CopyTensors", "src_tensors");
    NotNull(dst_tensors, "CopyTensors", "dst_tensors");
    for (size_t i = 0; i < num_tensors; ++i) {
      const Tensor& src = TensorOf(src_tensors[i], "CopyTensors", "src_tensors[i]");
      MutableTensorOf(dst_tensors[i], "CopyTensors", "dst_tensors[i]");
      CopyIntoPreallocated(Value(src), dst_tensors[i]->value, "tensor " + std::to_string(i));
    }
  });
}

// ----------------------------------------------------------------- strings

OrtStatus* FillStringTensor(OrtValue* value, const char* const* s, size_t s_len) noexcept {
  return Guard([&] {
    std::string* strings = StringsOf(value, "FillStringTensor");
    size_t n = static_cast<size_t>(value->value.tensor().numel());
    if (s_len != n) TS_THROW(kInvalidArgument, "FillStringTensor: ", s_len, " strings for ", n, " elements");
    if (n > 0) NotNull(s, "FillStringTensor", "s");
    for (size_t i = 0; i < n; ++i) strings[i] = NotNull(s[i], "FillStringTensor", "s[i]");
  });
}

OrtStatus* FillStringTensorElement(OrtValue* value, const char* s, size_t index) noexcept {
  return Guard([&] {
    std::string* strings = StringsOf(value, "FillStringTensorElement");
    strings[CheckIndex(index, value->value.tensor(), "FillStringTensorElement")] =
        NotNull(s, "FillStringTensorElement", "s");
  });
}

OrtStatus* GetResizedStringTensorElementBuffer(OrtValue* value, size_t index, size_t length_in_bytes,
                                               char** buffer) noexcept {
  const char* entry = "GetResizedStringTensorElementBuffer";
  return Guard([&] {
    std::string* strings = StringsOf(value, entry);
    std::string& element = strings[CheckIndex(index, value->value.tensor(), entry)];
    element.resize(length_in_bytes);
    *NotNull(buffer, entry, "buffer") = element.data();
  });
}

OrtStatus* GetStringTensorDataLength(const OrtValue* value, size_t* len) noexcept {
  return Guard([&] {
    const Tensor& t = StringTensorOf(value, "GetStringTensorDataLength");
    size_t total = 0;
    for (int64_t i = 0; i < t.numel(); ++i) total += t.data<std::string>()[i].size();
    *NotNull(len, "GetStringTensorDataLength", "len") = total;
  });
}

// All strings back to back in s (no terminators) and each one's start in
// offsets, as ORT lays them out.
OrtStatus* GetStringTensorContent(const OrtValue* value, void* s, size_t s_len, size_t* offsets,
                                  size_t offsets_len) noexcept {
  return Guard([&] {
    const Tensor& t = StringTensorOf(value, "GetStringTensorContent");
    const std::string* strings = t.data<std::string>();
    size_t n = static_cast<size_t>(t.numel());
    if (offsets_len != n)
      TS_THROW(kInvalidArgument, "GetStringTensorContent: offsets has ", offsets_len, " entries for ", n, " strings");
    size_t total = 0;
    for (size_t i = 0; i < n; ++i) total += strings[i].size();
    if (s_len < total)
      TS_THROW(kInvalidArgument, "GetStringTensorContent: the buffer holds ", s_len, " bytes, the strings need ", total);
    if (n > 0) NotNull(offsets, "GetStringTensorContent", "offsets");
    if (total > 0) NotNull(s, "GetStringTensorContent", "s");
    size_t at = 0;
    for (size_t i = 0; i < n; ++i) {
      offsets[i] = at;
      if (!strings[i].empty()) std::memcpy(static_cast<char*>(s) + at, strings[i].data(), strings[i].size());
      at += strings[i].size();
    }
  });
}

OrtStatus* GetStringTensorElementLength(const OrtValue* value, size_t index, size_t* out) noexcept {
  return Guard([&] {
    const Tensor& t = StringTensorOf(value, "GetStringTensorElementLength");
    *NotNull(out, "GetStringTensorElementLength", "out") =
        t.data<std::string>()[CheckIndex(index, t, "GetStringTensorElementLength")].size();
  });
}

OrtStatus* GetStringTensorElement(const OrtValue* value, size_t s_len, size_t index, void* s) noexcept {
  return Guard([&] {
    const Tensor& t = StringTensorOf(value, "GetStringTensorElement");
    const std::string& element = t.data<std::string>()[CheckIndex(index, t, "GetStringTensorElement")];
    if (s_len < element.size())
      TS_THROW(kInvalidArgument, "GetStringTensorElement: the buffer holds ", s_len, " bytes, the string needs ",
               element.size());
    if (!element.empty()) std::memcpy(NotNull(s, "GetStringTensorElement", "s"), element.data(), element.size());
  });
}

// ----------------------------------------------------- outputs of a run

Value DetachOutput(Value v) {
  if (v.is_tensor()) {
    const Tensor& t = v.tensor();
    const auto& buffer = t.buffer();
    // Anything else holding the buffer (the feed it aliases, an
    // initializer, another output) or a borrowed buffer (the client's input
    // memory, an mmap'd weight) means the client must get its own copy.
    if (buffer && (buffer->borrowed() || buffer.use_count() > 1)) return Value(t.Clone());
    return v;
  }
  if (v.is_sequence()) {
    SequenceValue s{v.sequence().elem_type, {}};
    for (const Value& item : v.sequence().items)
      s.items.push_back(item.is_tensor() ? Value(item.tensor().Clone()) : DetachOutput(item));
    return Value::Sequence(std::move(s));
  }
  if (v.is_map()) {
    MapValue m = v.map();
    if (m.values) m.values = std::make_shared<Value>(m.values->is_tensor() ? Value(m.values->tensor().Clone())
                                                                          : DetachOutput(*m.values));
    return Value::Map(std::move(m));
  }
  return v;
}

void CopyIntoPreallocated(const Value& from, Value& into, const std::string& output_name) {
  if (!from.is_tensor() || !into.is_tensor())
    TS_THROW(kInvalidArgument, "output '", output_name, "' is ", from.Describe(),
             "; a preallocated output must be a tensor of the same type and shape (it is ", into.Describe(), ")");
  const Tensor& src = from.tensor();
  Tensor& dst = into.tensor();
  if (src.dtype() != dst.dtype() || src.shape() != dst.shape())
    TS_THROW(kInvalidArgument, "output '", output_name, "' is ", src.Describe(), " but the preallocated value is ",
             dst.Describe());
  if (src.dtype() == DataType::kString) {
    for (int64_t i = 0; i < src.numel(); ++i) dst.data<std::string>()[i] = src.data<std::string>()[i];
  } else if (src.nbytes() > 0 && src.raw_data() != dst.raw_data()) {  // written in place already
    std::memcpy(dst.raw_data(), src.raw_data(), src.nbytes());
  }
}

BoundOutputMap BoundTargets(const std::vector<std::string>& names, const std::vector<const Value*>& preallocated) {
  BoundOutputMap bound;
  for (size_t i = 0; i < names.size() && i < preallocated.size(); ++i)
    if (preallocated[i] && preallocated[i]->is_tensor() && preallocated[i]->tensor().on_host())
      bound[names[i]] = preallocated[i]->tensor();
  return bound;
}

}  // namespace tessera::capi
