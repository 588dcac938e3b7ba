/* Session inspection (names, types, symbolic dimensions, metadata), session
 * and run options (free-dimension overrides, config entries, profiling, a
 * user logging function, terminate), and initializers supplied by the
 * client (AddInitializer, AddExternalInitializers, external data files in
 * memory). */
#include <unistd.h>

#include "model_writer.h"
#include "test_util.h"

/* --------------------------------------------- inspection and options */

void TestInspectAndOptions(OrtEnv* env, const char* scratch) {
  const int64_t dims[2] = {-1, 4}; /* ["batch", 4] */
  ModelBytes model = OneNodeModel("Relu", 1, dims, 2, 25);
  OrtSession* session = SessionFromBytes(env, &model, NULL);
  OrtAllocator* allocator = NULL;
  ORT_OK_(g_ort->GetAllocatorWithDefaultOptions(&allocator));

  size_t count = 0;
  ORT_OK_(g_ort->SessionGetInputCount(session, &count));
  CHECK(count == 1);
  ORT_OK_(g_ort->SessionGetOutputCount(session, &count));
  CHECK(count == 1);
  char* name = NULL;
  ORT_OK_(g_ort->SessionGetOutputName(session, 0, allocator, &name));
  CHECK(strcmp(name, "y") == 0);
  allocator->Free(allocator, name);
  OrtTypeInfo* type_info = NULL;
  const OrtTensorTypeAndShapeInfo* info = NULL;
  const char* symbols[2] = {NULL, NULL};
  int64_t got[2];
  ORT_OK_(g_ort->SessionGetInputTypeInfo(session, 0, &type_info));
  ORT_OK_(g_ort->CastTypeInfoToTensorInfo(type_info, &info));
  ORT_OK_(g_ort->GetSymbolicDimensions(info, symbols, 2));
  CHECK(strcmp(symbols[0], "batch") == 0 && strcmp(symbols[1], "") == 0);
  ORT_OK_(g_ort->GetDimensions(info, got, 2));
  CHECK(got[0] == -1 && got[1] == 4);
  g_ort->ReleaseTypeInfo(type_info);

  OrtModelMetadata* metadata = NULL;
  char* value = NULL;
  int64_t version = 0;
  ORT_OK_(g_ort->SessionGetModelMetadata(session, &metadata));
  ORT_OK_(g_ort->ModelMetadataGetProducerName(metadata, allocator, &value));
  CHECK(strcmp(value, "c_api_test") == 0);
  allocator->Free(allocator, value);
  ORT_OK_(g_ort->ModelMetadataGetGraphName(metadata, allocator, &value));
  CHECK(strcmp(value, "g") == 0);
  allocator->Free(allocator, value);
  ORT_OK_(g_ort->ModelMetadataLookupCustomMetadataMap(metadata, allocator, "author", &value));
  CHECK(value && strcmp(value, "tessera") == 0);
  allocator->Free(allocator, value);
  ORT_OK_(g_ort->ModelMetadataLookupCustomMetadataMap(metadata, allocator, "missing", &value));
  CHECK(value == NULL);
  ORT_OK_(g_ort->ModelMetadataGetVersion(metadata, &version));
  CHECK(version == 7);
  g_ort->ReleaseModelMetadata(metadata);
  g_ort->ReleaseSession(session);

  /* Options: free-dimension override, config entries, profiling, logging. */
  OrtSessionOptions* options = NULL;
  OrtSessionOptions* clone = NULL;
  char prefix[512], entry[16];
  size_t entry_size = sizeof entry;
  int has = 0;
  snprintf(prefix, sizeof prefix, "%s/c_api_profile", scratch);
  ORT_OK_(g_ort->CreateSessionOptions(&options));
  ORT_OK_(g_ort->AddFreeDimensionOverrideByName(options, "batch", 3));
  ORT_OK_(g_ort->SetIntraOpNumThreads(options, 1));
  ORT_OK_(g_ort->SetSessionGraphOptimizationLevel(options, ORT_ENABLE_BASIC));
  ORT_OK_(g_ort->AddSessionConfigEntry(options, "some.key", "v1"));
  ORT_OK_(g_ort->HasSessionConfigEntry(options, "some.key", &has));
  CHECK(has == 1);
  ORT_OK_(g_ort->GetSessionConfigEntry(options, "some.key", entry, &entry_size));
  CHECK(strcmp(entry, "v1") == 0 && entry_size == 3);
  ORT_OK_(g_ort->EnableProfiling(options, prefix));
  int log_lines = 0;
  ORT_OK_(g_ort->SetUserLoggingFunction(options, CountingLogger, &log_lines));
  ORT_OK_(g_ort->SetSessionLogSeverityLevel(options, ORT_LOGGING_LEVEL_VERBOSE));
  ORT_OK_(g_ort->CloneSessionOptions(options, &clone));
  g_ort->ReleaseSessionOptions(options);
  session = SessionFromBytes(env, &model, clone);
  g_ort->ReleaseSessionOptions(clone);
  FreeModel(&model);
  CHECK(log_lines > 0); /* verbose session lines reached the session's function */
  ORT_OK_(g_ort->SessionGetInputTypeInfo(session, 0, &type_info));
  ORT_OK_(g_ort->CastTypeInfoToTensorInfo(type_info, &info));
  ORT_OK_(g_ort->GetDimensions(info, got, 2));
  CHECK(got[0] == 3 && got[1] == 4);
  g_ort->ReleaseTypeInfo(type_info);

  float input[12], output[12];
  for (int i = 0; i < 12; ++i) input[i] = (float)(i - 6);
  const int64_t run_dims[2] = {3, 4};
  OrtMemoryInfo* cpu = NULL;
  ORT_OK_(g_ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu));
  OrtValue *x = NULL, *y = NULL;
  ORT_OK_(g_ort->CreateTensorWithDataAsOrtValue(cpu, input, sizeof input, run_dims, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &x));
  ORT_OK_(g_ort->CreateTensorWithDataAsOrtValue(cpu, output, sizeof output, run_dims, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &y));
  OrtRunOptions* run_options = NULL;
  const char* tag = NULL;
  ORT_OK_(g_ort->CreateRunOptions(&run_options));
  ORT_OK_(g_ort->RunOptionsSetRunTag(run_options, "run-1"));
  ORT_OK_(g_ort->RunOptionsGetRunTag(run_options, &tag));
  CHECK(strcmp(tag, "run-1") == 0);
  const char* in_names[] = {"x"};
  const char* out_names[] = {"y"};
  ORT_OK_(g_ort->Run(session, run_options, in_names, (const OrtValue* const*)&x, 1, out_names, 1, &y));
  for (int i = 0; i < 12; ++i) CHECK(output[i] == (input[i] > 0 ? input[i] : 0.0f)); /* written in place */
  ORT_OK_(g_ort->RunOptionsSetTerminate(run_options));
  EXPECT_ERROR(g_ort->Run(session, run_options, in_names, (const OrtValue* const*)&x, 1, out_names, 1, &y), ORT_FAIL,
               "terminate");
  g_ort->ReleaseRunOptions(run_options);
  char* profile = NULL;
  ORT_OK_(g_ort->SessionEndProfiling(session, allocator, &profile));
  CHECK(strstr(profile, "c_api_profile") != NULL && access(profile, R_OK) == 0);
  unlink(profile);
  allocator->Free(allocator, profile);
  g_ort->ReleaseValue(x);
  g_ort->ReleaseValue(y);
  g_ort->ReleaseMemoryInfo(cpu);
  g_ort->ReleaseSession(session);
}

/* ------------------------------------------- initializers from the client */

static void RunAdd(OrtSession* session, const float* expected) {
  float x[4] = {10, 20, 30, 40};
  const int64_t dims[1] = {4};
  OrtMemoryInfo* cpu = NULL;
  ORT_OK_(g_ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu));
  OrtValue *in = NULL, *out = NULL;
  ORT_OK_(g_ort->CreateTensorWithDataAsOrtValue(cpu, x, sizeof x, dims, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &in));
  const char* in_names[] = {"x"};
  const char* out_names[] = {"y"};
  ORT_OK_(g_ort->Run(session, NULL, in_names, (const OrtValue* const*)&in, 1, out_names, 1, &out));
  const float* y = NULL;
  ORT_OK_(g_ort->GetTensorData(out, (const void**)&y));
  for (int i = 0; i < 4; ++i) CHECK(y[i] == expected[i]);
  g_ort->ReleaseValue(in);
  g_ort->ReleaseValue(out);
  g_ort->ReleaseMemoryInfo(cpu);
}

void TestInitializers(OrtEnv* env) {
  OrtMemoryInfo* cpu = NULL;
  ORT_OK_(g_ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu));
  const int64_t dims[1] = {4};

  ModelBytes inline_model = AddModel(0, 0);
  OrtSession* session = SessionFromBytes(env, &inline_model, NULL);
  const float plain[4] = {11, 22, 33, 44};
  RunAdd(session, plain);
  g_ort->ReleaseSession(session);

  /* AddInitializer / AddExternalInitializers replace w. */
  float w2[4] = {100, 200, 300, 400};
  OrtValue* w2_value = NULL;
  ORT_OK_(g_ort->CreateTensorWithDataAsOrtValue(cpu, w2, sizeof w2, dims, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &w2_value));
  OrtSessionOptions* options = NULL;
  ORT_OK_(g_ort->CreateSessionOptions(&options));
  const char* names[1] = {"w"};
  ORT_OK_(g_ort->AddExternalInitializers(options, names, (const OrtValue* const*)&w2_value, 1));
  session = SessionFromBytes(env, &inline_model, options);
  const float replaced[4] = {110, 220, 330, 440};
  RunAdd(session, replaced);
  g_ort->ReleaseSession(session);
  g_ort->ReleaseSessionOptions(options);
  ORT_OK_(g_ort->CreateSessionOptions(&options));
  ORT_OK_(g_ort->AddInitializer(options, "no_such_initializer", w2_value));
  OrtSession* refused = NULL;
  EXPECT_ERROR(g_ort->CreateSessionFromArray(env, inline_model.data, inline_model.size, options, &refused),
               ORT_INVALID_ARGUMENT, "no_such_initializer");
  g_ort->ReleaseSessionOptions(options);
  g_ort->ReleaseValue(w2_value);
  FreeModel(&inline_model);

  /* External data from a file in memory. */
  ModelBytes external_model = AddModel(1, 0);
  EXPECT_ERROR(g_ort->CreateSessionFromArray(env, external_model.data, external_model.size, NULL, &refused),
               ORT_INVALID_GRAPH, "weights.bin");
  float file[4] = {1, 2, 3, 4};
  char* buffers[1] = {(char*)file};
  const size_t lengths[1] = {sizeof file};
  const char* file_names[1] = {"weights.bin"};
  ORT_OK_(g_ort->CreateSessionOptions(&options));
  ORT_OK_(g_ort->AddExternalInitializersFromFilesInMemory(options, file_names, buffers, lengths, 1));
  session = SessionFromBytes(env, &external_model, options);
  RunAdd(session, plain);
  g_ort->ReleaseSession(session);
  g_ort->ReleaseSessionOptions(options);
  FreeModel(&external_model);

  /* An initializer listed among the graph inputs: overridable by a feed. */
  ModelBytes overridable_model = AddModel(0, 1);
  session = SessionFromBytes(env, &overridable_model, NULL);
  FreeModel(&overridable_model);
  size_t count = 0;
  OrtAllocator* allocator = NULL;
  char* name = NULL;
  ORT_OK_(g_ort->GetAllocatorWithDefaultOptions(&allocator));
  ORT_OK_(g_ort->SessionGetInputCount(session, &count));
  CHECK(count == 1);
  ORT_OK_(g_ort->SessionGetOverridableInitializerCount(session, &count));
  CHECK(count == 1);
  ORT_OK_(g_ort->SessionGetOverridableInitializerName(session, 0, allocator, &name));
  CHECK(strcmp(name, "w") == 0);
  allocator->Free(allocator, name);
  RunAdd(session, plain);
  float x[4] = {10, 20, 30, 40}, w3[4] = {5, 5, 5, 5};
  OrtValue* feeds[2] = {NULL, NULL};
  OrtValue* y = NULL;
  ORT_OK_(g_ort->CreateTensorWithDataAsOrtValue(cpu, x, sizeof x, dims, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &feeds[0]));
  ORT_OK_(g_ort->CreateTensorWithDataAsOrtValue(cpu, w3, sizeof w3, dims, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &feeds[1]));
  const char* feed_names[2] = {"x", "w"};
  const char* out_names[1] = {"y"};
  ORT_OK_(g_ort->Run(session, NULL, feed_names, (const OrtValue* const*)feeds, 2, out_names, 1, &y));
  const float* sum = NULL;
  ORT_OK_(g_ort->GetTensorData(y, (const void**)&sum));
  CHECK(sum[0] == 15 && sum[3] == 45);
  g_ort->ReleaseValue(y);
  g_ort->ReleaseValue(feeds[0]);
  g_ort->ReleaseValue(feeds[1]);
  g_ort->ReleaseSession(session);
  g_ort->ReleaseMemoryInfo(cpu);
}

