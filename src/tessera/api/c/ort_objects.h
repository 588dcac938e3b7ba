// The objects behind the C API's opaque handles. Each wraps Tessera's own
// type (Session, SessionOptions, Value, TypeInfo) with what ORT's API adds.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tessera/api/c/ort_support.h"
#include "tessera/ir/type_info.h"
#include "tessera/ir/value.h"
#include "tessera/ops/bound_outputs.h"
#include "tessera/runtime/session.h"
#include "tessera/runtime/session_options.h"

using tessera::capi::HandleKind;
using tessera::capi::Tracked;

struct OrtEnv : Tracked<OrtEnv, HandleKind::kEnv> {
  OrtLoggingLevel severity = ORT_LOGGING_LEVEL_WARNING;
  // CreateEnv*WithGlobalThreadPools: sessions whose options call
  // DisablePerSessionThreads take these thread counts (Tessera gives each
  // session its own pool of that size; pools are not shared).
  bool has_global_threads = false;
  int global_intra_op_threads = 0;
  int global_inter_op_threads = 0;
  std::string log_id;
  OrtLoggingFunction log_fn = nullptr;
  void* log_param = nullptr;
};

struct OrtThreadingOptions : Tracked<OrtThreadingOptions, HandleKind::kThreadingOptions> {
  int intra_op_threads = 0;
  int inter_op_threads = 0;
  bool allow_spinning = true;
  bool denormal_as_zero = false;
};

struct OrtKeyValuePairs : Tracked<OrtKeyValuePairs, HandleKind::kKeyValuePairs> {
  // Insertion order kept; the pointer arrays GetKeyValuePairs lends out are
  // rebuilt on every change.
  std::vector<std::pair<std::string, std::string>> entries;
  std::vector<const char*> key_ptrs;
  std::vector<const char*> value_ptrs;
  void Set(const std::string& key, const std::string& value);
  void Remove(const std::string& key);
  const std::string* Find(const std::string& key) const;
  void RebuildPointers();
};

struct OrtSessionOptions : Tracked<OrtSessionOptions, HandleKind::kSessionOptions> {
  tessera::SessionOptions options;
  std::vector<std::string> providers;  // Tessera names, in the order appended
  ExecutionMode execution_mode = ORT_SEQUENTIAL;
  bool mem_pattern = true;
  bool cpu_arena = true;
  bool deterministic = false;
  int log_verbosity = 0;
  bool log_severity_set = false;  // else the session logs at the environment's severity
  bool use_env_threads = false;   // DisablePerSessionThreads
  bool cancel_load = false;       // SessionOptionsSetLoadCancellationFlag
  std::vector<std::pair<std::string, std::string>> config;  // AddSessionConfigEntry, in order
  // AddExternalInitializersFromFilesInMemory: copies, since the caller's
  // buffers need only outlive that call, and tensors may borrow from these.
  tessera::InMemoryFiles files_in_memory;
  OrtLoggingFunction log_fn = nullptr;
  void* log_param = nullptr;
  const std::string* FindConfig(const std::string& key) const;
  // The memory planner runs only while both mem_pattern and cpu_arena are on
  // (see EnableMemPattern); call after changing either.
  void UpdateMemoryArena() { options.enable_memory_arena = mem_pattern && cpu_arena; }
};

struct OrtMemoryInfo : Tracked<OrtMemoryInfo, HandleKind::kMemoryInfo> {
  std::string name = "Cpu";
  int id = 0;
  OrtAllocatorType allocator_type = OrtDeviceAllocator;
  OrtMemType mem_type = OrtMemTypeDefault;
  OrtMemoryInfoDeviceType device_type = OrtMemoryInfoDeviceType_CPU;
  bool is_static = false;  // the library's own; ReleaseMemoryInfo leaves it
};

struct OrtTensorTypeAndShapeInfo : Tracked<OrtTensorTypeAndShapeInfo, HandleKind::kTensorInfo> {
  ONNXTensorElementDataType elem_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  bool has_shape = true;
  std::vector<int64_t> dims;          // -1 for a dimension not known statically
  std::vector<std::string> symbols;   // dim_param per dimension, "" when none
  std::vector<const char*> symbol_ptrs;
  void SetRank(size_t rank);
};

struct OrtTypeInfo;
struct OrtSequenceTypeInfo : Tracked<OrtSequenceTypeInfo, HandleKind::kSequenceInfo> {
  tessera::TypeInfo element;
};
struct OrtMapTypeInfo : Tracked<OrtMapTypeInfo, HandleKind::kMapInfo> {
  ONNXTensorElementDataType key_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  tessera::TypeInfo value;
};
struct OrtOptionalTypeInfo : Tracked<OrtOptionalTypeInfo, HandleKind::kOptionalInfo> {
  tessera::TypeInfo contained;
};

struct OrtTypeInfo : Tracked<OrtTypeInfo, HandleKind::kTypeInfo> {
  ONNXType onnx_type = ONNX_TYPE_UNKNOWN;
  std::string denotation;
  // The Cast* entries lend these out; they live as long as this object.
  std::unique_ptr<OrtTensorTypeAndShapeInfo> tensor;
  std::unique_ptr<OrtSequenceTypeInfo> sequence;
  std::unique_ptr<OrtMapTypeInfo> map;
  std::unique_ptr<OrtOptionalTypeInfo> optional;
};

struct OrtValue : Tracked<OrtValue, HandleKind::kValue> {
  tessera::Value value;
  OrtValue() = default;
  explicit OrtValue(tessera::Value v) : value(std::move(v)) {}
};

struct OrtRunOptions : Tracked<OrtRunOptions, HandleKind::kRunOptions> {
  std::string tag;
  int log_severity = ORT_LOGGING_LEVEL_WARNING;
  int log_verbosity = 0;
  std::atomic<bool> terminate{false};
  OrtKeyValuePairs config;
};

struct OrtModelMetadata : Tracked<OrtModelMetadata, HandleKind::kModelMetadata> {
  std::string producer_name, graph_name, domain, description, graph_description;
  int64_t version = 0;
  std::map<std::string, std::string> custom;
};

struct OrtSession : Tracked<OrtSession, HandleKind::kSession> {
  std::unique_ptr<tessera::Session> session;
  // Initializers the model also lists as graph inputs: a feed may replace them.
  std::vector<tessera::ValueInfo> overridable;
  uint64_t profiling_start_ns = 0;
  std::string log_id;
  bool routes_logs = false;  // a user logging function is registered for log_id
};

struct OrtIoBinding : Tracked<OrtIoBinding, HandleKind::kIoBinding> {
  OrtSession* session = nullptr;
  struct BoundOutput {
    std::string name;
    std::optional<tessera::Value> preallocated;  // BindOutput; none = BindOutputToDevice
  };
  std::vector<std::pair<std::string, tessera::Value>> inputs;
  std::vector<BoundOutput> outputs;
  std::vector<tessera::Value> results;  // the last RunWithBinding's, in bound order
  std::mutex mutex;
};

// Provider options of the CUDA / TensorRT / oneDNN kinds. onnxruntime-node
// writes a device id as an int at offset 0 of CUDA's and TensorRT's, so that
// field comes first.
struct ProviderOptionsBlock : Tracked<ProviderOptionsBlock, HandleKind::kProviderOptions> {
  int device_id = 0;
  std::string provider;  // "cuda", "tensorrt", "dnnl"
  OrtKeyValuePairs values;
};
struct OrtCUDAProviderOptionsV2 : ProviderOptionsBlock {};
struct OrtTensorRTProviderOptionsV2 : ProviderOptionsBlock {};
struct OrtDnnlProviderOptions : ProviderOptionsBlock {};

namespace tessera::capi {

// TypeInfo (session inputs, outputs) and tensors -> ORT's type objects.
std::unique_ptr<OrtTypeInfo> MakeTypeInfo(const TypeInfo& type);
std::unique_ptr<OrtTypeInfo> MakeTypeInfo(const Value& value);
std::unique_ptr<OrtTensorTypeAndShapeInfo> MakeTensorInfo(const TypeInfo& type);
std::unique_ptr<OrtTensorTypeAndShapeInfo> MakeTensorInfo(const Tensor& tensor);
// The CPU memory info every tensor of this library reports (never freed).
OrtMemoryInfo* CpuMemoryInfo();
OrtAllocator* DefaultAllocator();

// A tensor value from the client's OrtValue, checked.
const Tensor& TensorOf(const OrtValue* value, const char* entry, const char* argument);
// A run output the client may keep and write: copied when it shares memory
// with an input, an initializer or anything the session holds.
Value DetachOutput(Value v);
// Copies `from` into a client's preallocated output (same type and shape).
void CopyIntoPreallocated(const Value& from, Value& into, const std::string& output_name);
// Preallocated host tensors by output name, for ScopedBoundOutputs: kernels
// that produce such an output write it in that memory, as ORT's do (a
// GroupQueryAttention present bound to its past's memory then writes only
// the new rows); CopyIntoPreallocated copies the rest in.
BoundOutputMap BoundTargets(const std::vector<std::string>& names, const std::vector<const Value*>& preallocated);

// Routes Tessera's log lines to ORT logging functions (env-wide or per session).
void SetEnvLogger(OrtLoggingFunction fn, void* param);
void SetSessionLogger(const std::string& log_id, OrtLoggingFunction fn, void* param);
void RemoveSessionLogger(const std::string& log_id);

}  // namespace tessera::capi
