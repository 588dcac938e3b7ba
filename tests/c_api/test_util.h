/* Checks shared by the C API client tests: each failure prints where and
 * why and exits non-zero. */
#ifndef TESSERA_TESTS_C_API_TEST_UTIL_H_
#define TESSERA_TESTS_C_API_TEST_UTIL_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_writer.h"
#include "onnxruntime_c_api.h"

extern const OrtApi* g_ort;

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

/* The call must succeed. */
#define ORT_OK_(expr)                                                                          \
  do {                                                                                         \
    OrtStatus* st_ = (expr);                                                                   \
    if (st_) {                                                                                 \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr, g_ort->GetErrorMessage(st_)); \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

/* The call must fail with `code` and a message containing `needle`. */
void ExpectError(OrtStatus* status, OrtErrorCode code, const char* needle, const char* what, int line);
#define EXPECT_ERROR(expr, code, needle) ExpectError((expr), (code), (needle), #expr, __LINE__)

/* c_client.c */
OrtSession* SessionFromBytes(OrtEnv* env, ModelBytes* model, OrtSessionOptions* options);
void CountingLogger(void* param, OrtLoggingLevel severity, const char* category, const char* logid,
                    const char* code_location, const char* message);
/* c_client_sessions.c */
void TestInspectAndOptions(OrtEnv* env, const char* scratch);
void TestInitializers(OrtEnv* env);
/* c_client_errors.c */
void RunErrorTests(OrtEnv* env, const char* default_model);
void RunConcurrencyTest(OrtEnv* env, const char* default_model);

#endif
