/* A C client of Tessera's libonnxruntime.so.1, built against our
 * onnxruntime_c_api.h and linked to the library only: loading, the table,
 * sessions from bytes and from a path, inspection, Run and IoBinding over
 * every element type, strings, sequences and maps, metadata, options,
 * profiling. c_client_sessions.c has inspection, options and initializers,
 * c_client_errors.c the hostile inputs and the concurrency checks. Usage: c_client <default model.onnx> <scratch dir> */
#include <stdint.h>

#include "model_writer.h"
#include "test_util.h"

const OrtApi* g_ort;

void ExpectError(OrtStatus* status, OrtErrorCode code, const char* needle, const char* what, int line) {
  if (!status) {
    fprintf(stderr, "line %d: %s succeeded; an error was expected\n", line, what);
    exit(1);
  }
  const char* msg = g_ort->GetErrorMessage(status);
  if (g_ort->GetErrorCode(status) != code || !strstr(msg, needle)) {
    fprintf(stderr, "line %d: %s: got code %d \"%s\"; expected code %d containing \"%s\"\n", line, what,
            (int)g_ort->GetErrorCode(status), msg, (int)code, needle);
    exit(1);
  }
  g_ort->ReleaseStatus(status);
}

void CountingLogger(void* param, OrtLoggingLevel severity, const char* category, const char* logid,
                           const char* code_location, const char* message) {
  (void)severity, (void)category, (void)logid, (void)code_location, (void)message;
  ++*(int*)param;
}

/* ------------------------------------------------------------ the table */

static void TestTable(void) {
  const OrtApiBase* base = OrtGetApiBase();
  CHECK(base && base->GetApi && base->GetVersionString);
  CHECK(strcmp(base->GetVersionString(), "1.30.0") == 0);
  CHECK(base->GetApi(1) != NULL && base->GetApi(30) != NULL);
  CHECK(base->GetApi(0) == NULL && base->GetApi(31) == NULL);
  CHECK(strstr(TesseraGetVersionString(), "tessera") != NULL);
  void* const* slots = (void* const*)g_ort;
  CHECK(sizeof(OrtApi) == 426 * sizeof(void*));
  for (size_t i = 0; i < sizeof(OrtApi) / sizeof(void*); ++i) CHECK(slots[i] != NULL);
  /* An entry Tessera does not serve says so and names itself. */
  OrtCustomOpDomain* domain = NULL;
  EXPECT_ERROR(g_ort->CreateCustomOpDomain("x", &domain), ORT_NOT_IMPLEMENTED, "CreateCustomOpDomain");
  CHECK(g_ort->GetTrainingApi(1) == NULL);
  CHECK(strstr(g_ort->GetBuildInfoString(), "Tessera") != NULL);
  char** providers = NULL;
  int count = 0;
  ORT_OK_(g_ort->GetAvailableProviders(&providers, &count));
  CHECK(count >= 1 && strcmp(providers[count - 1], "CPUExecutionProvider") == 0);
  ORT_OK_(g_ort->ReleaseAvailableProviders(providers, count));
}

/* ------------------------------------------------- every element type */

typedef struct {
  const char* name;
  int onnx_code;       /* TensorProto code, written into the model */
  ONNXTensorElementDataType ort_type;
  int bits;
} ElementType;

static const ElementType kTypes[] = {
    {"float", 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, 32},
    {"uint8", 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8, 8},
    {"int8", 3, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8, 8},
    {"uint16", 4, ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16, 16},
    {"int16", 5, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16, 16},
    {"int32", 6, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, 32},
    {"int64", 7, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, 64},
    {"bool", 9, ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL, 8},
    {"float16", 10, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16, 16},
    {"double", 11, ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE, 64},
    {"uint32", 12, ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32, 32},
    {"uint64", 13, ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64, 64},
    {"complex64", 14, ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64, 64},
    {"complex128", 15, ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX128, 128},
    {"bfloat16", 16, ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16, 16},
    {"float8e4m3fn", 17, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E4M3FN, 8},
    {"float8e4m3fnuz", 18, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E4M3FNUZ, 8},
    {"float8e5m2", 19, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E5M2, 8},
    {"float8e5m2fnuz", 20, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E5M2FNUZ, 8},
    {"uint4", 21, ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT4, 4},
    {"int4", 22, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT4, 4},
    {"float4e2m1", 23, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT4E2M1, 4},
    {"float8e8m0", 24, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E8M0, 8},
    {"uint2", 25, ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT2, 2},
    {"int2", 26, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT2, 2},
};

OrtSession* SessionFromBytes(OrtEnv* env, ModelBytes* model, OrtSessionOptions* options) {
  OrtSession* session = NULL;
  ORT_OK_(g_ort->CreateSessionFromArray(env, model->data, model->size, options, &session));
  return session;
}

static void CheckTensorInfo(const OrtTensorTypeAndShapeInfo* info, ONNXTensorElementDataType type, const int64_t* dims,
                            size_t rank) {
  ONNXTensorElementDataType got;
  size_t got_rank = 0;
  int64_t got_dims[8];
  ORT_OK_(g_ort->GetTensorElementType(info, &got));
  CHECK(got == type);
  ORT_OK_(g_ort->GetDimensionsCount(info, &got_rank));
  CHECK(got_rank == rank);
  ORT_OK_(g_ort->GetDimensions(info, got_dims, rank));
  for (size_t i = 0; i < rank; ++i) CHECK(got_dims[i] == dims[i]);
}

static void TestElementType(OrtEnv* env, const ElementType* t, OrtMemoryInfo* cpu) {
  const int64_t dims[2] = {2, 3};
  ModelBytes model = OneNodeModel("Identity", t->onnx_code, dims, 2, 25);
  OrtSession* session = SessionFromBytes(env, &model, NULL);
  FreeModel(&model);

  OrtTypeInfo* type_info = NULL;
  const OrtTensorTypeAndShapeInfo* tensor_info = NULL;
  enum ONNXType onnx_type;
  ORT_OK_(g_ort->SessionGetInputTypeInfo(session, 0, &type_info));
  ORT_OK_(g_ort->GetOnnxTypeFromTypeInfo(type_info, &onnx_type));
  CHECK(onnx_type == ONNX_TYPE_TENSOR);
  ORT_OK_(g_ort->CastTypeInfoToTensorInfo(type_info, &tensor_info));
  CheckTensorInfo(tensor_info, t->ort_type, dims, 2);
  g_ort->ReleaseTypeInfo(type_info);

  size_t bytes = (6 * (size_t)t->bits + 7) / 8;
  uint8_t input[96], output_copy[96];
  for (size_t i = 0; i < bytes; ++i) input[i] = (uint8_t)(t->bits == 8 && t->onnx_code == 9 ? i % 2 : i * 37 + 11);
  if (t->bits == 2) input[bytes - 1] &= 0x0f; /* 12 bits used of 16 */
  OrtValue* x = NULL;
  ORT_OK_(g_ort->CreateTensorWithDataAsOrtValue(cpu, input, bytes, dims, 2, t->ort_type, &x));
  const char* in_names[] = {"x"};
  const char* out_names[] = {"y"};
  OrtValue* y = NULL;
  ORT_OK_(g_ort->Run(session, NULL, in_names, (const OrtValue* const*)&x, 1, out_names, 1, &y));
  OrtTensorTypeAndShapeInfo* y_info = NULL;
  ORT_OK_(g_ort->GetTensorTypeAndShape(y, &y_info));
  CheckTensorInfo(y_info, t->ort_type, dims, 2);
  g_ort->ReleaseTensorTypeAndShapeInfo(y_info);
  const void* y_data = NULL;
  ORT_OK_(g_ort->GetTensorData(y, &y_data));
  /* Identity's output is the client's to keep: never the input memory. */
  CHECK(y_data != input);
  if (memcmp(y_data, input, bytes) != 0) {
    fprintf(stderr, "Identity changed %s data\n", t->name);
    exit(1);
  }
  memcpy(output_copy, y_data, bytes);
  size_t size_in_bytes = 0;
  ORT_OK_(g_ort->GetTensorSizeInBytes(y, &size_in_bytes));
  CHECK(size_in_bytes == bytes);
  const OrtMemoryInfo* y_memory = NULL;
  OrtMemoryInfoDeviceType device = OrtMemoryInfoDeviceType_GPU;
  ORT_OK_(g_ort->GetTensorMemoryInfo(y, &y_memory));
  g_ort->MemoryInfoGetDeviceType(y_memory, &device);
  CHECK(device == OrtMemoryInfoDeviceType_CPU);

  /* The same through IoBinding, into a preallocated output. */
  OrtIoBinding* binding = NULL;
  OrtValue* preallocated = NULL;
  OrtAllocator* allocator = NULL;
  ORT_OK_(g_ort->GetAllocatorWithDefaultOptions(&allocator));
  ORT_OK_(g_ort->CreateTensorAsOrtValue(allocator, dims, 2, t->ort_type, &preallocated));
  ORT_OK_(g_ort->CreateIoBinding(session, &binding));
  ORT_OK_(g_ort->BindInput(binding, "x", x));
  ORT_OK_(g_ort->BindOutput(binding, "y", preallocated));
  ORT_OK_(g_ort->RunWithBinding(session, NULL, binding));
  void* pre_data = NULL;
  ORT_OK_(g_ort->GetTensorMutableData(preallocated, &pre_data));
  CHECK(memcmp(pre_data, input, bytes) == 0);
  OrtValue** bound = NULL;
  size_t bound_count = 0;
  ORT_OK_(g_ort->GetBoundOutputValues(binding, allocator, &bound, &bound_count));
  CHECK(bound_count == 1);
  const void* bound_data = NULL;
  ORT_OK_(g_ort->GetTensorData(bound[0], &bound_data));
  CHECK(bound_data == pre_data); /* the bound value is the client's own */
  g_ort->ReleaseValue(bound[0]);
  allocator->Free(allocator, bound);
  g_ort->ReleaseIoBinding(binding);
  /* CopyTensors back into a fresh tensor of the same type and shape. */
  OrtValue* copy = NULL;
  void* copy_data = NULL;
  ORT_OK_(g_ort->CreateTensorAsOrtValue(allocator, dims, 2, t->ort_type, &copy));
  ORT_OK_(g_ort->CopyTensors(env, (const OrtValue* const*)&y, &copy, NULL, 1));
  ORT_OK_(g_ort->GetTensorMutableData(copy, &copy_data));
  CHECK(memcmp(copy_data, input, bytes) == 0);
  g_ort->ReleaseValue(copy);
  g_ort->ReleaseValue(preallocated);

  g_ort->ReleaseValue(x);
  g_ort->ReleaseValue(y);
  g_ort->ReleaseSession(session);
  CHECK(memcmp(output_copy, input, bytes) == 0);
}

static void TestStrings(OrtEnv* env) {
  const int64_t dims[1] = {3};
  ModelBytes model = OneNodeModel("Identity", 8, dims, 1, 25);
  OrtSession* session = SessionFromBytes(env, &model, NULL);
  FreeModel(&model);
  OrtAllocator* allocator = NULL;
  ORT_OK_(g_ort->GetAllocatorWithDefaultOptions(&allocator));
  OrtValue* x = NULL;
  ORT_OK_(g_ort->CreateTensorAsOrtValue(allocator, dims, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, &x));
  const char* strings[] = {"alpha", "", "gamma delta"};
  ORT_OK_(g_ort->FillStringTensor(x, strings, 3));
  ORT_OK_(g_ort->FillStringTensorElement(x, "beta", 1));
  const char* in_names[] = {"x"};
  const char* out_names[] = {"y"};
  OrtValue* y = NULL;
  ORT_OK_(g_ort->Run(session, NULL, in_names, (const OrtValue* const*)&x, 1, out_names, 1, &y));
  size_t total = 0, offsets[3], length = 0;
  char buffer[64];
  ORT_OK_(g_ort->GetStringTensorDataLength(y, &total));
  CHECK(total == strlen("alphabetagamma delta"));
  ORT_OK_(g_ort->GetStringTensorContent(y, buffer, sizeof buffer, offsets, 3));
  CHECK(offsets[0] == 0 && offsets[1] == 5 && offsets[2] == 9);
  CHECK(memcmp(buffer, "alphabetagamma delta", total) == 0);
  ORT_OK_(g_ort->GetStringTensorElementLength(y, 2, &length));
  CHECK(length == 11);
  ORT_OK_(g_ort->GetStringTensorElement(y, sizeof buffer, 1, buffer));
  CHECK(memcmp(buffer, "beta", 4) == 0);
  EXPECT_ERROR(g_ort->GetStringTensorContent(y, buffer, 3, offsets, 3), ORT_INVALID_ARGUMENT, "need 20");
  g_ort->ReleaseValue(x);
  g_ort->ReleaseValue(y);
  g_ort->ReleaseSession(session);
}

/* ------------------------------------------------- sequences and maps */

static void TestSequencesAndMaps(void) {
  OrtAllocator* allocator = NULL;
  ORT_OK_(g_ort->GetAllocatorWithDefaultOptions(&allocator));
  const int64_t dims[1] = {2};
  OrtValue *a = NULL, *b = NULL, *seq = NULL, *item = NULL;
  ORT_OK_(g_ort->CreateTensorAsOrtValue(allocator, dims, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, &a));
  ORT_OK_(g_ort->CreateTensorAsOrtValue(allocator, dims, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &b));
  int64_t* keys = NULL;
  float* values = NULL;
  ORT_OK_(g_ort->GetTensorMutableData(a, (void**)&keys));
  ORT_OK_(g_ort->GetTensorMutableData(b, (void**)&values));
  keys[0] = 10, keys[1] = 20, values[0] = 1.5f, values[1] = 2.5f;

  const OrtValue* pair[2] = {a, b};
  EXPECT_ERROR(g_ort->CreateValue(pair, 2, ONNX_TYPE_SEQUENCE, &seq), ORT_INVALID_ARGUMENT, "share one type");
  const OrtValue* same[2] = {a, a};
  size_t n = 0;
  ORT_OK_(g_ort->CreateValue(same, 2, ONNX_TYPE_SEQUENCE, &seq));
  ORT_OK_(g_ort->GetValueCount(seq, &n));
  CHECK(n == 2);
  ORT_OK_(g_ort->GetValue(seq, 1, allocator, &item));
  const int64_t* item_data = NULL;
  ORT_OK_(g_ort->GetTensorData(item, (const void**)&item_data));
  CHECK(item_data[1] == 20);
  g_ort->ReleaseValue(item);
  EXPECT_ERROR(g_ort->GetValue(seq, 2, allocator, &item), ORT_INVALID_ARGUMENT, "out of range");
  OrtTypeInfo* type_info = NULL;
  enum ONNXType onnx_type;
  ORT_OK_(g_ort->GetTypeInfo(seq, &type_info));
  ORT_OK_(g_ort->GetOnnxTypeFromTypeInfo(type_info, &onnx_type));
  CHECK(onnx_type == ONNX_TYPE_SEQUENCE);
  g_ort->ReleaseTypeInfo(type_info);
  g_ort->ReleaseValue(seq);

  OrtValue* map = NULL;
  ORT_OK_(g_ort->CreateValue(pair, 2, ONNX_TYPE_MAP, &map));
  ORT_OK_(g_ort->GetValueType(map, &onnx_type));
  CHECK(onnx_type == ONNX_TYPE_MAP);
  ORT_OK_(g_ort->GetTypeInfo(map, &type_info));
  const OrtMapTypeInfo* map_info = NULL;
  ONNXTensorElementDataType key_type;
  ORT_OK_(g_ort->CastTypeInfoToMapTypeInfo(type_info, &map_info));
  CHECK(map_info != NULL);
  ORT_OK_(g_ort->GetMapKeyType(map_info, &key_type));
  CHECK(key_type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64);
  g_ort->ReleaseTypeInfo(type_info);
  ORT_OK_(g_ort->GetValue(map, 1, allocator, &item));
  const float* map_values = NULL;
  ORT_OK_(g_ort->GetTensorData(item, (const void**)&map_values));
  CHECK(map_values[0] == 1.5f && map_values[1] == 2.5f);
  g_ort->ReleaseValue(item);
  g_ort->ReleaseValue(map);
  g_ort->ReleaseValue(a);
  g_ort->ReleaseValue(b);
}

/* ------------------------------------------------ the default model file */

static void TestDefaultModel(OrtEnv* env, const char* path) {
  OrtSession* session = NULL;
  ORT_OK_(g_ort->CreateSession(env, path, NULL, &session));
  OrtAllocator* allocator = NULL;
  ORT_OK_(g_ort->GetAllocatorWithDefaultOptions(&allocator));
  char* name = NULL;
  ORT_OK_(g_ort->SessionGetInputName(session, 0, allocator, &name));
  CHECK(strcmp(name, "image") == 0);
  allocator->Free(allocator, name);
  static float image[2 * 3 * 32 * 32];
  for (size_t i = 0; i < sizeof image / sizeof image[0]; ++i) image[i] = (float)(i % 13) / 13.0f;
  const int64_t dims[4] = {2, 3, 32, 32};
  OrtMemoryInfo* cpu = NULL;
  ORT_OK_(g_ort->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu));
  OrtValue *x = NULL, *y = NULL;
  ORT_OK_(g_ort->CreateTensorWithDataAsOrtValue(cpu, image, sizeof image, dims, 4, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &x));
  const char* in_names[] = {"image"};
  const char* out_names[] = {"probabilities"};
  ORT_OK_(g_ort->Run(session, NULL, in_names, (const OrtValue* const*)&x, 1, out_names, 1, &y));
  const float* p = NULL;
  ORT_OK_(g_ort->GetTensorData(y, (const void**)&p));
  for (int row = 0; row < 2; ++row) { /* softmax rows sum to 1 */
    float sum = 0;
    for (int k = 0; k < 10; ++k) sum += p[row * 10 + k];
    CHECK(sum > 0.999f && sum < 1.001f);
  }
  g_ort->ReleaseValue(x);
  g_ort->ReleaseValue(y);
  g_ort->ReleaseMemoryInfo(cpu);
  g_ort->ReleaseSession(session);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <default model.onnx> <scratch dir>\n", argv[0]);
    return 2;
  }
  g_ort = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  CHECK(g_ort != NULL);
  TestTable();
  /* CreateEnvWithOptions: an environment from the options struct. */
  OrtEnv* options_env = NULL;
  OrtEnvCreationOptions env_options;
  memset(&env_options, 0, sizeof env_options);
  env_options.version = 23;
  env_options.logging_severity_level = ORT_LOGGING_LEVEL_ERROR;
  env_options.log_id = "options_env";
  EXPECT_ERROR(g_ort->CreateEnvWithOptions(&env_options, &options_env), ORT_INVALID_ARGUMENT, "version 23");
  env_options.version = ORT_API_VERSION;
  ORT_OK_(g_ort->CreateEnvWithOptions(&env_options, &options_env));
  g_ort->ReleaseEnv(options_env);

  OrtEnv* env = NULL;
  int env_log_lines = 0;
  ORT_OK_(g_ort->CreateEnvWithCustomLogger(CountingLogger, &env_log_lines, ORT_LOGGING_LEVEL_WARNING, "c_client", &env));
  OrtMemoryInfo* cpu = NULL;
  ORT_OK_(g_ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu));
  for (size_t i = 0; i < sizeof kTypes / sizeof kTypes[0]; ++i) TestElementType(env, &kTypes[i], cpu);
  g_ort->ReleaseMemoryInfo(cpu);
  TestStrings(env);
  TestInspectAndOptions(env, argv[2]);
  TestSequencesAndMaps();
  TestInitializers(env);
  TestDefaultModel(env, argv[1]);
  RunErrorTests(env, argv[1]);
  /* The double releases there were reported through the env's logger. */
  CHECK(env_log_lines > 0);
  RunConcurrencyTest(env, argv[1]);
  g_ort->ReleaseEnv(env);
  printf("c_client: all checks passed (%zu element types + string)\n", sizeof kTypes / sizeof kTypes[0]);
  return 0;
}
