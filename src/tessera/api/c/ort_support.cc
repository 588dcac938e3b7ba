#include "tessera/api/c/ort_support.h"

#include <mutex>
#include <unordered_map>

#include "tessera/base/logging.h"

namespace tessera::capi {

OrtStatus* OutOfMemoryStatus() {
  static OrtStatus out_of_memory{ORT_RUNTIME_EXCEPTION, "out of memory"};  // fits std::string's inline buffer
  return &out_of_memory;
}

OrtStatus* MakeStatus(OrtErrorCode code, std::string message) {
  try {
    return new OrtStatus{code, std::move(message)};
  } catch (...) {
    return OutOfMemoryStatus();  // no memory for a status either: a static one still says what happened
  }
}

OrtErrorCode ToOrtErrorCode(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return ORT_OK;
    case StatusCode::kInvalidArgument: return ORT_INVALID_ARGUMENT;
    case StatusCode::kInvalidModel: return ORT_INVALID_GRAPH;
    case StatusCode::kNotImplemented: return ORT_NOT_IMPLEMENTED;
    case StatusCode::kOpsetMismatch: return ORT_INVALID_GRAPH;
    case StatusCode::kIoError: return ORT_NO_SUCHFILE;
    case StatusCode::kResourceExhausted: return ORT_RUNTIME_EXCEPTION;
    case StatusCode::kRuntimeError: return ORT_RUNTIME_EXCEPTION;
    case StatusCode::kInternal: return ORT_FAIL;
  }
  return ORT_FAIL;
}

// ------------------------------------------------------------------ registry

namespace {

struct Registry {
  std::mutex mutex;
  std::unordered_map<const void*, HandleKind> live;
};

Registry& TheRegistry() {
  static Registry* registry = new Registry;  // never destroyed: handles may outlive static destruction
  return *registry;
}

}  // namespace

const char* HandleKindName(HandleKind kind) {
  switch (kind) {
    case HandleKind::kEnv: return "OrtEnv";
    case HandleKind::kSessionOptions: return "OrtSessionOptions";
    case HandleKind::kSession: return "OrtSession";
    case HandleKind::kValue: return "OrtValue";
    case HandleKind::kRunOptions: return "OrtRunOptions";
    case HandleKind::kTypeInfo: return "OrtTypeInfo";
    case HandleKind::kTensorInfo: return "OrtTensorTypeAndShapeInfo";
    case HandleKind::kMapInfo: return "OrtMapTypeInfo";
    case HandleKind::kSequenceInfo: return "OrtSequenceTypeInfo";
    case HandleKind::kOptionalInfo: return "OrtOptionalTypeInfo";
    case HandleKind::kMemoryInfo: return "OrtMemoryInfo";
    case HandleKind::kIoBinding: return "OrtIoBinding";
    case HandleKind::kModelMetadata: return "OrtModelMetadata";
    case HandleKind::kThreadingOptions: return "OrtThreadingOptions";
    case HandleKind::kKeyValuePairs: return "OrtKeyValuePairs";
    case HandleKind::kProviderOptions: return "provider options";
    case HandleKind::kAllocator: return "OrtAllocator";
    case HandleKind::kHardwareDevice: return "OrtHardwareDevice";
    case HandleKind::kEpDevice: return "OrtEpDevice";
  }
  return "object";
}

void RegisterHandle(const void* p, HandleKind kind) {
  auto& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.live[p] = kind;
}

void UnregisterHandle(const void* p) {
  auto& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.live.erase(p);
}

bool IsLiveHandle(const void* p, HandleKind kind) {
  auto& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.live.find(p);
  return it != r.live.end() && it->second == kind;
}

void ThrowNull(const char* entry, const char* argument) {
  TS_THROW(kInvalidArgument, entry, ": '", argument, "' is NULL");
}

void ReportBadRelease(const char* entry, const void* p, HandleKind kind) {
  Logger logger("onnxruntime-c-api", Severity::kError);
  TS_LOG(logger, kError,
         entry << ": " << p << " is not a live " << HandleKindName(kind)
               << " (released twice, or another kind of object); ignored");
}

// --------------------------------------------------------------- conversions

DataType FromOrtElementType(int ort_type, const char* entry) {
  switch (ort_type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT2: return DataType::kUInt2;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT2: return DataType::kInt2;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E8M0: return DataType::kFloat8E8M0;
    default: break;
  }
  if (ort_type <= 0 || ort_type > ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT4E2M1)
    TS_THROW(kInvalidArgument, entry, ": ", ort_type, " is not an ONNXTensorElementDataType");
  return static_cast<DataType>(ort_type);
}

ONNXTensorElementDataType ToOrtElementType(DataType t) {
  switch (t) {
    case DataType::kUInt2: return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT2;
    case DataType::kInt2: return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT2;
    case DataType::kFloat8E8M0: return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E8M0;
    default: return static_cast<ONNXTensorElementDataType>(static_cast<int>(t));
  }
}

char* AllocString(OrtAllocator* allocator, const std::string& s, const char* entry) {
  NotNull(allocator, entry, "allocator");
  auto* out = static_cast<char*>(allocator->Alloc(allocator, s.size() + 1));
  if (!out) TS_THROW(kResourceExhausted, entry, ": the allocator returned no memory for ", s.size() + 1, " bytes");
  std::memcpy(out, s.data(), s.size());
  out[s.size()] = '\0';
  return out;
}

void CopyToCallerBuffer(const std::string& s, char* out, size_t* size, bool null_terminate, const char* entry) {
  NotNull(size, entry, "size");
  size_t needed = s.size() + (null_terminate ? 1 : 0);
  if (!out) {
    *size = needed;
    return;
  }
  if (*size < needed) {
    size_t given = *size;
    *size = needed;
    TS_THROW(kInvalidArgument, entry, ": the buffer holds ", given, " bytes, ", needed, " are needed");
  }
  std::memcpy(out, s.data(), s.size());
  if (null_terminate) out[s.size()] = '\0';
  *size = needed;
}

}  // namespace tessera::capi
