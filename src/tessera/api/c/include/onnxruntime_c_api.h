/* Tessera's declaration of ONNX Runtime's C API (OrtApi version 30).
 *
 * libonnxruntime.so.1 built from src/tessera/api/c serves this table, so a
 * program built against ONNX Runtime's own header, or this one, runs on
 * Tessera by loading our library instead of ORT's (docs/c-api.md). Type
 * layouts, enum values and the order of the table are ORT's ABI; this file
 * states them and nothing else of ORT's.
 *
 * Objects a client never looks inside are opaque here. Of ORT's structs only
 * OrtAllocator and OrtApiBase have a layout clients rely on. */
#ifndef TESSERA_ONNXRUNTIME_C_API_H_
#define TESSERA_ONNXRUNTIME_C_API_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ORT_API_VERSION 30

#ifdef __cplusplus
extern "C" {
#define TS_ORT_NOEXCEPT noexcept
#else
#define TS_ORT_NOEXCEPT
#endif

#define ORT_API_CALL
#define ORTCHAR_T char
#define ORT_TSTR(X) X

#if defined(__GNUC__)
#define TS_ORT_EXPORT __attribute__((visibility("default")))
#else
#define TS_ORT_EXPORT
#endif

/* ---------------------------------------------------------------- enums */

typedef enum ONNXTensorElementDataType {
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED = 0,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT = 1,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 = 2,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8 = 3,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16 = 4,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16 = 5,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32 = 6,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 = 7,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING = 8,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL = 9,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 = 10,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE = 11,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32 = 12,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64 = 13,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64 = 14,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX128 = 15,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16 = 16,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E4M3FN = 17,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E4M3FNUZ = 18,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E5M2 = 19,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E5M2FNUZ = 20,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT4 = 21,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT4 = 22,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT4E2M1 = 23,
  /* ORT's order from here on differs from ONNX's TensorProto codes. */
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT2 = 24,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT2 = 25,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E8M0 = 26
} ONNXTensorElementDataType;

typedef enum ONNXType {
  ONNX_TYPE_UNKNOWN = 0,
  ONNX_TYPE_TENSOR = 1,
  ONNX_TYPE_SEQUENCE = 2,
  ONNX_TYPE_MAP = 3,
  ONNX_TYPE_OPAQUE = 4,
  ONNX_TYPE_SPARSETENSOR = 5,
  ONNX_TYPE_OPTIONAL = 6
} ONNXType;

typedef enum OrtSparseFormat {
  ORT_SPARSE_UNDEFINED = 0,
  ORT_SPARSE_COO = 0x1,
  ORT_SPARSE_CSRC = 0x2,
  ORT_SPARSE_BLOCK_SPARSE = 0x4
} OrtSparseFormat;

typedef enum OrtSparseIndicesFormat {
  ORT_SPARSE_COO_INDICES = 0,
  ORT_SPARSE_CSR_INNER_INDICES = 1,
  ORT_SPARSE_CSR_OUTER_INDICES = 2,
  ORT_SPARSE_BLOCK_SPARSE_INDICES = 3
} OrtSparseIndicesFormat;

typedef enum OrtLoggingLevel {
  ORT_LOGGING_LEVEL_VERBOSE = 0,
  ORT_LOGGING_LEVEL_INFO = 1,
  ORT_LOGGING_LEVEL_WARNING = 2,
  ORT_LOGGING_LEVEL_ERROR = 3,
  ORT_LOGGING_LEVEL_FATAL = 4
} OrtLoggingLevel;

typedef enum OrtErrorCode {
  ORT_OK = 0,
  ORT_FAIL = 1,
  ORT_INVALID_ARGUMENT = 2,
  ORT_NO_SUCHFILE = 3,
  ORT_NO_MODEL = 4,
  ORT_ENGINE_ERROR = 5,
  ORT_RUNTIME_EXCEPTION = 6,
  ORT_INVALID_PROTOBUF = 7,
  ORT_MODEL_LOADED = 8,
  ORT_NOT_IMPLEMENTED = 9,
  ORT_INVALID_GRAPH = 10,
  ORT_EP_FAIL = 11,
  ORT_MODEL_LOAD_CANCELED = 12,
  ORT_MODEL_REQUIRES_COMPILATION = 13,
  ORT_NOT_FOUND = 14,
  ORT_DEVICE_RESET = 15
} OrtErrorCode;

typedef enum OrtOpAttrType {
  ORT_OP_ATTR_UNDEFINED = 0,
  ORT_OP_ATTR_INT = 1,
  ORT_OP_ATTR_INTS = 2,
  ORT_OP_ATTR_FLOAT = 3,
  ORT_OP_ATTR_FLOATS = 4,
  ORT_OP_ATTR_STRING = 5,
  ORT_OP_ATTR_STRINGS = 6,
  ORT_OP_ATTR_GRAPH = 7,
  ORT_OP_ATTR_TENSOR = 8
} OrtOpAttrType;

typedef enum GraphOptimizationLevel {
  ORT_DISABLE_ALL = 0,
  ORT_ENABLE_BASIC = 1,
  ORT_ENABLE_EXTENDED = 2,
  ORT_ENABLE_LAYOUT = 3,
  ORT_ENABLE_ALL = 99
} GraphOptimizationLevel;

typedef enum ExecutionMode { ORT_SEQUENTIAL = 0, ORT_PARALLEL = 1 } ExecutionMode;

typedef enum OrtLanguageProjection {
  ORT_PROJECTION_C = 0,
  ORT_PROJECTION_CPLUSPLUS = 1,
  ORT_PROJECTION_CSHARP = 2,
  ORT_PROJECTION_PYTHON = 3,
  ORT_PROJECTION_JAVA = 4,
  ORT_PROJECTION_WINML = 5,
  ORT_PROJECTION_NODEJS = 6
} OrtLanguageProjection;

typedef enum OrtAllocatorType {
  OrtInvalidAllocator = -1,
  OrtDeviceAllocator = 0,
  OrtArenaAllocator = 1,
  OrtReadOnlyAllocator = 2
} OrtAllocatorType;

typedef enum OrtMemType {
  OrtMemTypeCPUInput = -2,
  OrtMemTypeCPUOutput = -1,
  OrtMemTypeCPU = OrtMemTypeCPUOutput,
  OrtMemTypeDefault = 0
} OrtMemType;

typedef enum OrtDeviceMemoryType {
  OrtDeviceMemoryType_DEFAULT = 0,
  OrtDeviceMemoryType_HOST_ACCESSIBLE = 5
} OrtDeviceMemoryType;

typedef enum OrtMemoryInfoDeviceType {
  OrtMemoryInfoDeviceType_CPU = 0,
  OrtMemoryInfoDeviceType_GPU = 1,
  OrtMemoryInfoDeviceType_FPGA = 2,
  OrtMemoryInfoDeviceType_NPU = 3
} OrtMemoryInfoDeviceType;

typedef enum OrtHardwareDeviceType {
  OrtHardwareDeviceType_CPU = 0,
  OrtHardwareDeviceType_GPU = 1,
  OrtHardwareDeviceType_NPU = 2
} OrtHardwareDeviceType;

typedef enum OrtExecutionProviderDevicePolicy {
  OrtExecutionProviderDevicePolicy_DEFAULT = 0,
  OrtExecutionProviderDevicePolicy_PREFER_CPU = 1,
  OrtExecutionProviderDevicePolicy_PREFER_NPU = 2,
  OrtExecutionProviderDevicePolicy_PREFER_GPU = 3,
  OrtExecutionProviderDevicePolicy_MAX_PERFORMANCE = 4,
  OrtExecutionProviderDevicePolicy_MAX_EFFICIENCY = 5,
  OrtExecutionProviderDevicePolicy_MIN_OVERALL_POWER = 6
} OrtExecutionProviderDevicePolicy;

typedef enum OrtCompiledModelCompatibility {
  OrtCompiledModelCompatibility_EP_NOT_APPLICABLE = 0,
  OrtCompiledModelCompatibility_EP_SUPPORTED_OPTIMAL = 1,
  OrtCompiledModelCompatibility_EP_SUPPORTED_PREFER_RECOMPILATION = 2,
  OrtCompiledModelCompatibility_EP_UNSUPPORTED = 3
} OrtCompiledModelCompatibility;

/* -------------------------------------------------------- opaque objects */

#define TS_ORT_OPAQUE(X) \
  struct X;              \
  typedef struct X X;
TS_ORT_OPAQUE(OrtStatus)
TS_ORT_OPAQUE(OrtEnv)
TS_ORT_OPAQUE(OrtMemoryInfo)
TS_ORT_OPAQUE(OrtIoBinding)
TS_ORT_OPAQUE(OrtSession)
TS_ORT_OPAQUE(OrtValue)
TS_ORT_OPAQUE(OrtRunOptions)
TS_ORT_OPAQUE(OrtTypeInfo)
TS_ORT_OPAQUE(OrtTensorTypeAndShapeInfo)
TS_ORT_OPAQUE(OrtMapTypeInfo)
TS_ORT_OPAQUE(OrtSequenceTypeInfo)
TS_ORT_OPAQUE(OrtOptionalTypeInfo)
TS_ORT_OPAQUE(OrtSessionOptions)
TS_ORT_OPAQUE(OrtCustomOpDomain)
TS_ORT_OPAQUE(OrtModelMetadata)
TS_ORT_OPAQUE(OrtThreadPoolParams)
TS_ORT_OPAQUE(OrtThreadingOptions)
TS_ORT_OPAQUE(OrtArenaCfg)
TS_ORT_OPAQUE(OrtPrepackedWeightsContainer)
TS_ORT_OPAQUE(OrtTensorRTProviderOptionsV2)
TS_ORT_OPAQUE(OrtNvTensorRtRtxProviderOptions)
TS_ORT_OPAQUE(OrtCUDAProviderOptionsV2)
TS_ORT_OPAQUE(OrtCANNProviderOptions)
TS_ORT_OPAQUE(OrtDnnlProviderOptions)
TS_ORT_OPAQUE(OrtOp)
TS_ORT_OPAQUE(OrtOpAttr)
TS_ORT_OPAQUE(OrtLogger)
TS_ORT_OPAQUE(OrtShapeInferContext)
TS_ORT_OPAQUE(OrtLoraAdapter)
TS_ORT_OPAQUE(OrtValueInfo)
TS_ORT_OPAQUE(OrtNode)
TS_ORT_OPAQUE(OrtGraph)
TS_ORT_OPAQUE(OrtModel)
TS_ORT_OPAQUE(OrtModelCompilationOptions)
TS_ORT_OPAQUE(OrtHardwareDevice)
TS_ORT_OPAQUE(OrtEpDevice)
TS_ORT_OPAQUE(OrtKeyValuePairs)
TS_ORT_OPAQUE(OrtSyncStream)
TS_ORT_OPAQUE(OrtExternalInitializerInfo)
TS_ORT_OPAQUE(OrtDeviceEpIncompatibilityDetails)
TS_ORT_OPAQUE(OrtEpAssignedSubgraph)
TS_ORT_OPAQUE(OrtEpAssignedNode)
TS_ORT_OPAQUE(OrtThreadPoolCallbacksConfig)
TS_ORT_OPAQUE(OrtKernelInfo)
TS_ORT_OPAQUE(OrtKernelContext)
TS_ORT_OPAQUE(OrtCustomOp)
/* Legacy provider-option structs: Tessera reads none of their fields. */
TS_ORT_OPAQUE(OrtCUDAProviderOptions)
TS_ORT_OPAQUE(OrtROCMProviderOptions)
TS_ORT_OPAQUE(OrtTensorRTProviderOptions)
TS_ORT_OPAQUE(OrtMIGraphXProviderOptions)
TS_ORT_OPAQUE(OrtOpenVINOProviderOptions)
/* Sub-APIs Tessera does not provide (their getters return NULL). */
TS_ORT_OPAQUE(OrtTrainingApi)
TS_ORT_OPAQUE(OrtModelEditorApi)
TS_ORT_OPAQUE(OrtCompileApi)
TS_ORT_OPAQUE(OrtInteropApi)
TS_ORT_OPAQUE(OrtEpApi)
#undef TS_ORT_OPAQUE

typedef OrtStatus* OrtStatusPtr;

/* ------------------------------------------------------------- callbacks */

typedef void(ORT_API_CALL* OrtLoggingFunction)(void* param, OrtLoggingLevel severity, const char* category,
                                               const char* logid, const char* code_location, const char* message);
typedef void(ORT_API_CALL* OrtExperimentalFnPtr)(void);
typedef void (*OrtThreadWorkerFn)(void* ort_worker_fn_param);
typedef const struct OrtCustomHandleType {
  char place_holder;
}* OrtCustomThreadHandle;
typedef OrtCustomThreadHandle (*OrtCustomCreateThreadFn)(void* ort_custom_thread_creation_options,
                                                         OrtThreadWorkerFn ort_thread_worker_fn,
                                                         void* ort_worker_fn_param);
typedef void (*OrtCustomJoinThreadFn)(OrtCustomThreadHandle ort_custom_thread_handle);
typedef void (*RunAsyncCallbackFn)(void* user_data, OrtValue** outputs, size_t num_outputs, OrtStatusPtr status);
typedef OrtStatus*(ORT_API_CALL* EpSelectionDelegate)(const OrtEpDevice** ep_devices, size_t num_devices,
                                                      const OrtKeyValuePairs* model_metadata,
                                                      const OrtKeyValuePairs* runtime_metadata,
                                                      const OrtEpDevice** selected, size_t max_selected,
                                                      size_t* num_selected, void* state);

/* CreateEnvWithOptions' argument (API version 24 on). */
typedef struct OrtEnvCreationOptions {
  uint32_t version; /* ORT_API_VERSION the caller was built with */
  int32_t logging_severity_level;
  const char* log_id;
  OrtLoggingFunction custom_logging_function;
  void* custom_logging_param;
  const struct OrtThreadingOptions* threading_options;
  const OrtKeyValuePairs* config_entries;
} OrtEnvCreationOptions;

/* ------------------------------------------------------------ allocators */

/* Clients call these members directly (onnxruntime-node frees the names it
 * gets through Free). version tells which members exist. */
typedef struct OrtAllocator {
  uint32_t version;
  void*(ORT_API_CALL* Alloc)(struct OrtAllocator* this_, size_t size);
  void(ORT_API_CALL* Free)(struct OrtAllocator* this_, void* p);
  const struct OrtMemoryInfo*(ORT_API_CALL* Info)(const struct OrtAllocator* this_);
  void*(ORT_API_CALL* Reserve)(struct OrtAllocator* this_, size_t size);                           /* version >= 18 */
  OrtStatus*(ORT_API_CALL* GetStats)(const struct OrtAllocator* this_, OrtKeyValuePairs** out);     /* version >= 23 */
  void*(ORT_API_CALL* AllocOnStream)(struct OrtAllocator* this_, size_t size, OrtSyncStream* stream); /* >= 23 */
  OrtStatus*(ORT_API_CALL* Shrink)(struct OrtAllocator* this_);                                    /* >= 29 */
} OrtAllocator;

/* ------------------------------------------------------------- the table */

struct OrtApi {
#define TS_ORT_API(index, implemented, return_type, name, parameters) \
  return_type(ORT_API_CALL* name) parameters TS_ORT_NOEXCEPT;
#include "ort_api_entries.inc"
#undef TS_ORT_API
};
typedef struct OrtApi OrtApi;

struct OrtApiBase {
  /* The table for API versions 1..ORT_API_VERSION; NULL for any other. */
  const OrtApi*(ORT_API_CALL* GetApi)(uint32_t version)TS_ORT_NOEXCEPT;
  /* The ONNX Runtime release this library stands in for: "1.30.0". */
  const char*(ORT_API_CALL* GetVersionString)(void)TS_ORT_NOEXCEPT;
};
typedef struct OrtApiBase OrtApiBase;

/* Exported as OrtGetApiBase@@VERS_1.30.0, as ORT's library exports it. */
TS_ORT_EXPORT const OrtApiBase* ORT_API_CALL OrtGetApiBase(void) TS_ORT_NOEXCEPT;

/* ORT's library exports these too; a few clients call them by name. */
TS_ORT_EXPORT OrtStatus* ORT_API_CALL OrtSessionOptionsAppendExecutionProvider_CPU(OrtSessionOptions* options,
                                                                                    int use_arena) TS_ORT_NOEXCEPT;
TS_ORT_EXPORT OrtStatus* ORT_API_CALL OrtSessionOptionsAppendExecutionProvider_CUDA(OrtSessionOptions* options,
                                                                                     int device_id) TS_ORT_NOEXCEPT;
TS_ORT_EXPORT OrtStatus* ORT_API_CALL
OrtSessionOptionsAppendExecutionProvider_Tensorrt(OrtSessionOptions* options, int device_id) TS_ORT_NOEXCEPT;

/* Tessera's own entry point (version node TESSERA_0): Tessera's version,
 * e.g. "tessera 0.1.0 (ONNX Runtime C API 1.30.0)". */
TS_ORT_EXPORT const char* TesseraGetVersionString(void) TS_ORT_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_ONNXRUNTIME_C_API_H_ */
