/* Hostile inputs through the C API (each must be a clear error status, not
 * a crash) and concurrent Run calls (8 threads, bit-identical to one). */
#include <pthread.h>
#include <stdint.h>

#include "model_writer.h"
#include "test_util.h"

static const char* kIn[] = {"image"};
static const char* kOut[] = {"probabilities"};
static float g_image[4 * 3 * 32 * 32];
static const int64_t kDims[4] = {4, 3, 32, 32};

static OrtValue* ImageTensor(OrtMemoryInfo* cpu) {
  OrtValue* x = NULL;
  ORT_OK_(g_ort->CreateTensorWithDataAsOrtValue(cpu, g_image, sizeof g_image, kDims, 4,
                                               ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &x));
  return x;
}

void RunErrorTests(OrtEnv* env, const char* default_model) {
  OrtSession* session = NULL;
  OrtValue* y = NULL;
  OrtMemoryInfo* cpu = NULL;
  ORT_OK_(g_ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu));

  /* NULL where the ABI forbids it. */
  EXPECT_ERROR(g_ort->CreateSession(env, NULL, NULL, &session), ORT_INVALID_ARGUMENT, "'model_path' is NULL");
  EXPECT_ERROR(g_ort->CreateSession(env, default_model, NULL, NULL), ORT_INVALID_ARGUMENT, "'out' is NULL");
  EXPECT_ERROR(g_ort->SessionGetInputCount(NULL, NULL), ORT_INVALID_ARGUMENT, "NULL");
  EXPECT_ERROR(g_ort->Run(NULL, NULL, kIn, NULL, 0, kOut, 1, &y), ORT_INVALID_ARGUMENT, "'session' is NULL");
  EXPECT_ERROR(g_ort->CreateTensorWithDataAsOrtValue(cpu, NULL, 16, kDims, 4, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &y),
               ORT_INVALID_ARGUMENT, "needs");
  /* Releases take NULL. */
  g_ort->ReleaseSession(NULL);
  g_ort->ReleaseValue(NULL);
  g_ort->ReleaseStatus(NULL);
  g_ort->ReleaseTypeInfo(NULL);
  g_ort->ReleaseIoBinding(NULL);

  /* Bad files and bytes. */
  EXPECT_ERROR(g_ort->CreateSession(env, "/nonexistent/model.onnx", NULL, &session), ORT_NO_SUCHFILE, "model.onnx");
  const char garbage[] = "this is not an onnx model";
  OrtStatus* st = g_ort->CreateSessionFromArray(env, garbage, sizeof garbage, NULL, &session);
  CHECK(st != NULL && g_ort->GetErrorCode(st) != ORT_OK && strlen(g_ort->GetErrorMessage(st)) > 0);
  g_ort->ReleaseStatus(st);

  /* Providers: ORT's names map to Tessera's; an unknown one names the available ones. */
  OrtSessionOptions* options = NULL;
  ORT_OK_(g_ort->CreateSessionOptions(&options));
  ORT_OK_(g_ort->SessionOptionsAppendExecutionProvider(options, "CPUExecutionProvider", NULL, NULL, 0));
  ORT_OK_(OrtSessionOptionsAppendExecutionProvider_CPU(options, 1)); /* the exported legacy entry */
  EXPECT_ERROR(g_ort->SessionOptionsAppendExecutionProvider(options, "XNNPACK", NULL, NULL, 0), ORT_INVALID_ARGUMENT,
               "available: ");
  OrtCUDAProviderOptionsV2* cuda = NULL;
  ORT_OK_(g_ort->CreateCUDAProviderOptions(&cuda));
  const char* cuda_keys[1] = {"device_id"};
  const char* bad_id[1] = {"gpu0"};
  EXPECT_ERROR(g_ort->UpdateCUDAProviderOptions(cuda, cuda_keys, bad_id, 1), ORT_INVALID_ARGUMENT, "device_id");
  EXPECT_ERROR(g_ort->SessionOptionsAppendExecutionProvider_CUDA_V2(options, cuda), ORT_INVALID_ARGUMENT, "CUDA");
  g_ort->ReleaseCUDAProviderOptions(cuda);
  EXPECT_ERROR(g_ort->SetSessionGraphOptimizationLevel(options, (GraphOptimizationLevel)5), ORT_INVALID_ARGUMENT,
               "GraphOptimizationLevel");
  /* EP devices: the host CPU, one EP device per CPU provider. */
  const OrtEpDevice* const* devices = NULL;
  size_t num_devices = 0;
  ORT_OK_(g_ort->GetEpDevices(env, &devices, &num_devices));
  CHECK(num_devices >= 1);
  const OrtEpDevice* cpu_device = NULL;
  for (size_t i = 0; i < num_devices; ++i)
    if (strcmp(g_ort->EpDevice_EpName(devices[i]), "CPUExecutionProvider") == 0) cpu_device = devices[i];
  CHECK(cpu_device != NULL && strcmp(g_ort->EpDevice_EpVendor(cpu_device), "Tessera") == 0);
  CHECK(g_ort->HardwareDevice_Type(g_ort->EpDevice_Device(cpu_device)) == OrtHardwareDeviceType_CPU);
  CHECK(g_ort->HardwareDevice_Vendor(g_ort->EpDevice_Device(cpu_device)) != NULL);
  CHECK(g_ort->EpDevice_EpName((const OrtEpDevice*)cpu) == NULL); /* not a device: NULL, no crash */
  ORT_OK_(g_ort->SessionOptionsAppendExecutionProvider_V2(options, env, &cpu_device, 1, NULL, NULL, 0));
  ORT_OK_(g_ort->SessionOptionsSetLoadCancellationFlag(options, true));
  EXPECT_ERROR(g_ort->CreateSession(env, default_model, options, &session), ORT_MODEL_LOAD_CANCELED, "cancellation");
  ORT_OK_(g_ort->SessionOptionsSetLoadCancellationFlag(options, false));
  ORT_OK_(g_ort->CreateSession(env, default_model, options, &session));
  g_ort->ReleaseSessionOptions(options);

  /* Feeds: wrong element type, wrong shape, unknown name, non-tensor. */
  int32_t ints[4 * 3 * 32 * 32];
  memset(ints, 0, sizeof ints);
  OrtValue* wrong_type = NULL;
  ORT_OK_(g_ort->CreateTensorWithDataAsOrtValue(cpu, ints, sizeof ints, kDims, 4, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32,
                                               &wrong_type));
  EXPECT_ERROR(g_ort->Run(session, NULL, kIn, (const OrtValue* const*)&wrong_type, 1, kOut, 1, &y),
               ORT_INVALID_ARGUMENT, "image");
  g_ort->ReleaseValue(wrong_type);
  const int64_t bad_dims[4] = {4, 3, 16, 64};
  OrtValue* wrong_shape = NULL;
  ORT_OK_(g_ort->CreateTensorWithDataAsOrtValue(cpu, g_image, sizeof g_image, bad_dims, 4,
                                               ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &wrong_shape));
  EXPECT_ERROR(g_ort->Run(session, NULL, kIn, (const OrtValue* const*)&wrong_shape, 1, kOut, 1, &y),
               ORT_INVALID_ARGUMENT, "image");
  g_ort->ReleaseValue(wrong_shape);
  OrtValue* x = ImageTensor(cpu);
  const char* bad_in[] = {"no_such_input"};
  EXPECT_ERROR(g_ort->Run(session, NULL, bad_in, (const OrtValue* const*)&x, 1, kOut, 1, &y), ORT_INVALID_ARGUMENT,
               "no_such_input");
  const char* bad_out[] = {"no_such_output"};
  EXPECT_ERROR(g_ort->Run(session, NULL, kIn, (const OrtValue* const*)&x, 1, bad_out, 1, &y), ORT_INVALID_ARGUMENT,
               "no_such_output");
  const int64_t neg[2] = {2, -3};
  OrtValue* negative = NULL;
  EXPECT_ERROR(g_ort->CreateTensorWithDataAsOrtValue(cpu, g_image, sizeof g_image, neg, 2,
                                                     ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &negative),
               ORT_INVALID_ARGUMENT, "negative");
  EXPECT_ERROR(g_ort->CreateTensorWithDataAsOrtValue(cpu, g_image, 8, kDims, 4, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                                     &negative),
               ORT_INVALID_ARGUMENT, "needs");
  EXPECT_ERROR(g_ort->CreateTensorWithDataAsOrtValue(cpu, g_image, sizeof g_image, kDims, 4,
                                                     (ONNXTensorElementDataType)99, &negative),
               ORT_INVALID_ARGUMENT, "ONNXTensorElementDataType");
  void* data = NULL;
  EXPECT_ERROR(g_ort->GetStringTensorDataLength(x, (size_t*)&data), ORT_INVALID_ARGUMENT, "not strings");

  /* Released objects used again: detected while the address is not reused. */
  g_ort->ReleaseValue(x);
  EXPECT_ERROR(g_ort->Run(session, NULL, kIn, (const OrtValue* const*)&x, 1, kOut, 1, &y), ORT_INVALID_ARGUMENT,
               "not a live OrtValue");
  EXPECT_ERROR(g_ort->GetTensorMutableData(x, &data), ORT_INVALID_ARGUMENT, "not a live OrtValue");
  g_ort->ReleaseValue(x); /* double release: reported, ignored */
  OrtSession* released = session;
  g_ort->ReleaseSession(session);
  size_t count = 0;
  EXPECT_ERROR(g_ort->SessionGetInputCount(released, &count), ORT_INVALID_ARGUMENT, "not a live OrtSession");
  g_ort->ReleaseSession(released);
  /* One kind of handle passed as another. */
  EXPECT_ERROR(g_ort->SessionGetInputCount((const OrtSession*)cpu, &count), ORT_INVALID_ARGUMENT, "not a live OrtSession");
  g_ort->ReleaseMemoryInfo(cpu);
}

/* ------------------------------------------------------------ concurrency */

typedef struct {
  OrtSession* session;
  OrtMemoryInfo* cpu;
  const float* expected;
  int runs;
  int mismatches;
  int failures;
} Worker;

static void* WorkerMain(void* arg) {
  Worker* w = (Worker*)arg;
  OrtValue* x = ImageTensor(w->cpu);
  for (int r = 0; r < w->runs; ++r) {
    OrtValue* y = NULL;
    OrtStatus* st = g_ort->Run(w->session, NULL, kIn, (const OrtValue* const*)&x, 1, kOut, 1, &y);
    if (st) {
      ++w->failures;
      g_ort->ReleaseStatus(st);
      continue;
    }
    const float* p = NULL;
    ORT_OK_(g_ort->GetTensorData(y, (const void**)&p));
    if (memcmp(p, w->expected, 4 * 10 * sizeof(float)) != 0) ++w->mismatches;
    g_ort->ReleaseValue(y);
  }
  g_ort->ReleaseValue(x);
  return NULL;
}

typedef struct {
  pthread_mutex_t mutex;
  pthread_cond_t done_cond;
  int done;
  int ok;
  float first;
} AsyncResult;

static void AsyncDone(void* user_data, OrtValue** outputs, size_t num_outputs, OrtStatusPtr status) {
  AsyncResult* r = (AsyncResult*)user_data;
  pthread_mutex_lock(&r->mutex);
  r->ok = status == NULL && num_outputs == 1 && outputs[0] != NULL;
  if (r->ok) {
    const float* p = NULL;
    r->ok = g_ort->GetTensorData(outputs[0], (const void**)&p) == NULL;
    if (r->ok) r->first = p[0];
  }
  g_ort->ReleaseStatus(status); /* the callback owns it */
  r->done = 1;
  pthread_cond_signal(&r->done_cond);
  pthread_mutex_unlock(&r->mutex);
}

/* RunAsync reports through its callback, from another thread. */
static void RunAsyncTest(OrtSession* session, OrtMemoryInfo* cpu, const float* expected) {
  AsyncResult r = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0.0f};
  OrtValue* x = ImageTensor(cpu);
  OrtValue* y = NULL;
  ORT_OK_(g_ort->RunAsync(session, NULL, kIn, (const OrtValue* const*)&x, 1, kOut, 1, &y, AsyncDone, &r));
  pthread_mutex_lock(&r.mutex);
  while (!r.done) pthread_cond_wait(&r.done_cond, &r.mutex);
  pthread_mutex_unlock(&r.mutex);
  CHECK(r.ok && r.first == expected[0]);
  g_ort->ReleaseValue(y);
  g_ort->ReleaseValue(x);
}

void RunConcurrencyTest(OrtEnv* env, const char* default_model) {
  for (size_t i = 0; i < sizeof g_image / sizeof g_image[0]; ++i) g_image[i] = (float)((i * 7919) % 1000) / 1000.0f;
  OrtSession* session = NULL;
  ORT_OK_(g_ort->CreateSession(env, default_model, NULL, &session));
  OrtMemoryInfo* cpu = NULL;
  ORT_OK_(g_ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu));
  OrtValue* x = ImageTensor(cpu);
  OrtValue* y = NULL;
  ORT_OK_(g_ort->Run(session, NULL, kIn, (const OrtValue* const*)&x, 1, kOut, 1, &y));
  float expected[40];
  const float* p = NULL;
  ORT_OK_(g_ort->GetTensorData(y, (const void**)&p));
  memcpy(expected, p, sizeof expected);
  g_ort->ReleaseValue(y);
  g_ort->ReleaseValue(x);

  enum { kThreads = 8 };
  pthread_t threads[kThreads];
  Worker workers[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    Worker w = {session, cpu, expected, 25, 0, 0};
    workers[t] = w;
    CHECK(pthread_create(&threads[t], NULL, WorkerMain, &workers[t]) == 0);
  }
  int mismatches = 0, failures = 0;
  for (int t = 0; t < kThreads; ++t) {
    pthread_join(threads[t], NULL);
    mismatches += workers[t].mismatches;
    failures += workers[t].failures;
  }
  if (mismatches || failures) {
    fprintf(stderr, "concurrent runs: %d failed, %d differ from the sequential result\n", failures, mismatches);
    exit(1);
  }
  printf("c_client: %d concurrent runs on %d threads bit-identical to the sequential run\n", kThreads * 25, kThreads);
  RunAsyncTest(session, cpu, expected);
  g_ort->ReleaseMemoryInfo(cpu);
  g_ort->ReleaseSession(session);
}
