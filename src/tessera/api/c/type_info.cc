// OrtTypeInfo and its tensor / sequence / map / optional parts, built from
// Tessera's TypeInfo (session inputs and outputs) or from a value.
#include "tessera/api/c/ort_objects.h"

void OrtTensorTypeAndShapeInfo::SetRank(size_t rank) {
  dims.assign(rank, -1);
  symbols.assign(rank, "");
  symbol_ptrs.assign(rank, "");
}

namespace tessera::capi {

namespace {

ONNXType OnnxTypeOf(TypeInfo::Kind kind) {
  switch (kind) {
    case TypeInfo::Kind::kTensor: return ONNX_TYPE_TENSOR;
    case TypeInfo::Kind::kSparseTensor: return ONNX_TYPE_SPARSETENSOR;
    case TypeInfo::Kind::kSequence: return ONNX_TYPE_SEQUENCE;
    case TypeInfo::Kind::kOptional: return ONNX_TYPE_OPTIONAL;
    case TypeInfo::Kind::kMap: return ONNX_TYPE_MAP;
    case TypeInfo::Kind::kOpaque: return ONNX_TYPE_OPAQUE;
    case TypeInfo::Kind::kUnknown: break;
  }
  return ONNX_TYPE_UNKNOWN;
}

}  // namespace

std::unique_ptr<OrtTensorTypeAndShapeInfo> MakeTensorInfo(const TypeInfo& type) {
  auto info = std::make_unique<OrtTensorTypeAndShapeInfo>();
  info->elem_type = ToOrtElementType(type.elem_type);
  info->has_shape = type.shape.has_value();
  if (type.shape) {
    info->SetRank(type.shape->size());
    for (size_t i = 0; i < type.shape->size(); ++i) {
      const Dim& d = (*type.shape)[i];
      info->dims[i] = d.known() ? d.value : -1;
      info->symbols[i] = d.known() ? "" : d.param;
    }
    for (size_t i = 0; i < info->symbols.size(); ++i) info->symbol_ptrs[i] = info->symbols[i].c_str();
  }
  return info;
}

std::unique_ptr<OrtTensorTypeAndShapeInfo> MakeTensorInfo(const Tensor& tensor) {
  auto info = std::make_unique<OrtTensorTypeAndShapeInfo>();
  info->elem_type = ToOrtElementType(tensor.dtype());
  info->SetRank(tensor.shape().size());
  info->dims = tensor.shape();
  return info;
}

std::unique_ptr<OrtTypeInfo> MakeTypeInfo(const TypeInfo& type) {
  auto info = std::make_unique<OrtTypeInfo>();
  info->onnx_type = OnnxTypeOf(type.kind);
  TypeInfo inner = type.inner ? *type.inner : TypeInfo{};
  switch (type.kind) {
    case TypeInfo::Kind::kTensor:
    case TypeInfo::Kind::kSparseTensor: info->tensor = MakeTensorInfo(type); break;
    case TypeInfo::Kind::kSequence:
      info->sequence = std::make_unique<OrtSequenceTypeInfo>();
      info->sequence->element = inner;
      break;
    case TypeInfo::Kind::kMap:
      info->map = std::make_unique<OrtMapTypeInfo>();
      info->map->key_type = ToOrtElementType(type.elem_type);
      info->map->value = inner;
      break;
    case TypeInfo::Kind::kOptional:
      info->optional = std::make_unique<OrtOptionalTypeInfo>();
      info->optional->contained = inner;
      break;
    default: break;
  }
  return info;
}

std::unique_ptr<OrtTypeInfo> MakeTypeInfo(const Value& value) {
  if (value.is_tensor()) {
    auto info = std::make_unique<OrtTypeInfo>();
    info->onnx_type = ONNX_TYPE_TENSOR;
    info->tensor = MakeTensorInfo(value.tensor());
    return info;
  }
  return MakeTypeInfo(TypeOfValue(value));
}

// ------------------------------------------------------------- OrtTypeInfo

void ReleaseTypeInfo(OrtTypeInfo* input) noexcept { ReleaseHandle(input, "ReleaseTypeInfo"); }
void ReleaseTensorTypeAndShapeInfo(OrtTensorTypeAndShapeInfo* input) noexcept {
  ReleaseHandle(input, "ReleaseTensorTypeAndShapeInfo");
}
void ReleaseMapTypeInfo(OrtMapTypeInfo* input) noexcept { ReleaseHandle(input, "ReleaseMapTypeInfo"); }
void ReleaseSequenceTypeInfo(OrtSequenceTypeInfo* input) noexcept { ReleaseHandle(input, "ReleaseSequenceTypeInfo"); }

OrtStatus* GetOnnxTypeFromTypeInfo(const OrtTypeInfo* type_info, enum ONNXType* out) noexcept {
  return Guard([&] {
    *NotNull(out, "GetOnnxTypeFromTypeInfo", "out") = Live(type_info, "GetOnnxTypeFromTypeInfo", "type_info")->onnx_type;
  });
}

// The Cast* entries lend a part of the type info (NULL when it is another
// kind), valid while the type info lives.
OrtStatus* CastTypeInfoToTensorInfo(const OrtTypeInfo* type_info, const OrtTensorTypeAndShapeInfo** out) noexcept {
  return Guard([&] {
    *NotNull(out, "CastTypeInfoToTensorInfo", "out") = Live(type_info, "CastTypeInfoToTensorInfo", "type_info")->tensor.get();
  });
}
OrtStatus* CastTypeInfoToMapTypeInfo(const OrtTypeInfo* type_info, const OrtMapTypeInfo** out) noexcept {
  return Guard([&] {
    *NotNull(out, "CastTypeInfoToMapTypeInfo", "out") = Live(type_info, "CastTypeInfoToMapTypeInfo", "type_info")->map.get();
  });
}
OrtStatus* CastTypeInfoToSequenceTypeInfo(const OrtTypeInfo* type_info, const OrtSequenceTypeInfo** out) noexcept {
  return Guard([&] {
    *NotNull(out, "CastTypeInfoToSequenceTypeInfo", "out") =
        Live(type_info, "CastTypeInfoToSequenceTypeInfo", "type_info")->sequence.get();
  });
}
OrtStatus* CastTypeInfoToOptionalTypeInfo(const OrtTypeInfo* type_info, const OrtOptionalTypeInfo** out) noexcept {
  return Guard([&] {
    *NotNull(out, "CastTypeInfoToOptionalTypeInfo", "out") =
        Live(type_info, "CastTypeInfoToOptionalTypeInfo", "type_info")->optional.get();
  });
}

OrtStatus* GetDenotationFromTypeInfo(const OrtTypeInfo* type_info, const char** const denotation,
                                     size_t* len) noexcept {
  return Guard([&] {
    const auto* t = Live(type_info, "GetDenotationFromTypeInfo", "type_info");
    *NotNull(denotation, "GetDenotationFromTypeInfo", "denotation") = t->denotation.c_str();
    *NotNull(len, "GetDenotationFromTypeInfo", "len") = t->denotation.size();
  });
}

OrtStatus* GetMapKeyType(const OrtMapTypeInfo* map_type_info, enum ONNXTensorElementDataType* out) noexcept {
  return Guard([&] { *NotNull(out, "GetMapKeyType", "out") = Live(map_type_info, "GetMapKeyType", "map_type_info")->key_type; });
}

// These three hand out a new OrtTypeInfo the caller releases.
OrtStatus* GetMapValueType(const OrtMapTypeInfo* map_type_info, OrtTypeInfo** type_info) noexcept {
  return Guard([&] {
    const auto* m = Live(map_type_info, "GetMapValueType", "map_type_info");
    *NotNull(type_info, "GetMapValueType", "type_info") = MakeTypeInfo(m->value).release();
  });
}
OrtStatus* GetSequenceElementType(const OrtSequenceTypeInfo* sequence_type_info, OrtTypeInfo** type_info) noexcept {
  return Guard([&] {
    const auto* s = Live(sequence_type_info, "GetSequenceElementType", "sequence_type_info");
    *NotNull(type_info, "GetSequenceElementType", "type_info") = MakeTypeInfo(s->element).release();
  });
}
OrtStatus* GetOptionalContainedTypeInfo(const OrtOptionalTypeInfo* optional_type_info, OrtTypeInfo** out) noexcept {
  return Guard([&] {
    const auto* o = Live(optional_type_info, "GetOptionalContainedTypeInfo", "optional_type_info");
    *NotNull(out, "GetOptionalContainedTypeInfo", "out") = MakeTypeInfo(o->contained).release();
  });
}

// ------------------------------------------------ OrtTensorTypeAndShapeInfo

OrtStatus* CreateTensorTypeAndShapeInfo(OrtTensorTypeAndShapeInfo** out) noexcept {
  return Guard([&] { *NotNull(out, "CreateTensorTypeAndShapeInfo", "out") = new OrtTensorTypeAndShapeInfo; });
}

OrtStatus* SetTensorElementType(OrtTensorTypeAndShapeInfo* info, enum ONNXTensorElementDataType type) noexcept {
  return Guard([&] {
    Live(info, "SetTensorElementType", "info");
    FromOrtElementType(type, "SetTensorElementType");  // checks the value
    info->elem_type = type;
  });
}

OrtStatus* SetDimensions(OrtTensorTypeAndShapeInfo* info, const int64_t* dim_values, size_t dim_count) noexcept {
  return Guard([&] {
    Live(info, "SetDimensions", "info");
    if (dim_count > 0) NotNull(dim_values, "SetDimensions", "dim_values");
    info->SetRank(dim_count);
    for (size_t i = 0; i < dim_count; ++i) info->dims[i] = dim_values[i];
    info->has_shape = true;
  });
}

OrtStatus* SetSymbolicDimensions(OrtTensorTypeAndShapeInfo* info, const char* dim_params[],
                                 size_t dim_params_length) noexcept {
  return Guard([&] {
    Live(info, "SetSymbolicDimensions", "info");
    if (dim_params_length != info->dims.size())
      TS_THROW(kInvalidArgument, "SetSymbolicDimensions: ", dim_params_length, " names for ", info->dims.size(),
               " dimensions");
    if (dim_params_length > 0) NotNull(dim_params, "SetSymbolicDimensions", "dim_params");
    for (size_t i = 0; i < dim_params_length; ++i) info->symbols[i] = dim_params[i] ? dim_params[i] : "";
    for (size_t i = 0; i < dim_params_length; ++i) info->symbol_ptrs[i] = info->symbols[i].c_str();
  });
}

OrtStatus* GetTensorElementType(const OrtTensorTypeAndShapeInfo* info, enum ONNXTensorElementDataType* out) noexcept {
  return Guard([&] { *NotNull(out, "GetTensorElementType", "out") = Live(info, "GetTensorElementType", "info")->elem_type; });
}

OrtStatus* GetDimensionsCount(const OrtTensorTypeAndShapeInfo* info, size_t* out) noexcept {
  return Guard([&] { *NotNull(out, "GetDimensionsCount", "out") = Live(info, "GetDimensionsCount", "info")->dims.size(); });
}

// ORT copies min(count, rank) dimensions; so does Tessera.
OrtStatus* GetDimensions(const OrtTensorTypeAndShapeInfo* info, int64_t* dim_values,
                         size_t dim_values_length) noexcept {
  return Guard([&] {
    Live(info, "GetDimensions", "info");
    size_t n = std::min(dim_values_length, info->dims.size());
    if (n > 0) NotNull(dim_values, "GetDimensions", "dim_values");
    for (size_t i = 0; i < n; ++i) dim_values[i] = info->dims[i];
  });
}

OrtStatus* GetSymbolicDimensions(const OrtTensorTypeAndShapeInfo* info, const char* dim_params[],
                                 size_t dim_params_length) noexcept {
  return Guard([&] {
    Live(info, "GetSymbolicDimensions", "info");
    size_t n = std::min(dim_params_length, info->symbol_ptrs.size());
    if (n > 0) NotNull(dim_params, "GetSymbolicDimensions", "dim_params");
    for (size_t i = 0; i < n; ++i) dim_params[i] = info->symbol_ptrs[i];
  });
}

// (size_t)-1 when a dimension is unknown, as ORT documents.
OrtStatus* GetTensorShapeElementCount(const OrtTensorTypeAndShapeInfo* info, size_t* out) noexcept {
  return Guard([&] {
    Live(info, "GetTensorShapeElementCount", "info");
    NotNull(out, "GetTensorShapeElementCount", "out");
    size_t count = 1;
    for (int64_t d : info->dims) {
      if (d < 0) {
        *out = static_cast<size_t>(-1);
        return;
      }
      count *= static_cast<size_t>(d);
    }
    *out = count;
  });
}

bool TensorTypeAndShape_HasShape(const OrtTensorTypeAndShapeInfo* info) noexcept {
  return info && IsLiveHandle(info, HandleKind::kTensorInfo) && info->has_shape;
}

}  // namespace tessera::capi
