// Calls every one of the 426 OrtApi entries with all-zero arguments (NULL
// pointers, zero sizes, the first enum value): none may crash, and each
// entry that returns a status must return an error status, except the few
// for which zero arguments are a valid request. Built as C++ against our
// onnxruntime_c_api.h (so the header compiles as C++ too), linked to the
// library alone.
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <type_traits>

#include "onnxruntime_c_api.h"

namespace {

const OrtApi* g_api = nullptr;
int g_failures = 0;
int g_calls = 0;

// Zero arguments are a valid request for these: NULL is "nothing to
// release", or a NULL message / code 0 makes an OK-coded status.
const std::set<std::string> kZeroArgumentsAreValid = {"ReleaseAvailableProviders", "CreateStatus"};

template <typename R, typename... Args>
void CallWithZeros(int index, const char* name, R (*entry)(Args...) noexcept) {
  ++g_calls;
  if (!entry) {
    std::fprintf(stderr, "entry %d (%s) is NULL\n", index, name);
    ++g_failures;
    return;
  }
  if constexpr (std::is_same_v<R, OrtStatus*>) {
    OrtStatus* status = entry(Args{}...);
    if (!status && !kZeroArgumentsAreValid.count(name)) {
      std::fprintf(stderr, "entry %d (%s) accepted all-zero arguments\n", index, name);
      ++g_failures;
    }
    if (status && std::strlen(g_api->GetErrorMessage(status)) == 0 && std::string(name) != "CreateStatus") {
      std::fprintf(stderr, "entry %d (%s) failed without a message\n", index, name);
      ++g_failures;
    }
    g_api->ReleaseStatus(status);
  } else if constexpr (std::is_void_v<R>) {
    entry(Args{}...);
  } else {
    (void)entry(Args{}...);
  }
}

}  // namespace

int main() {
  g_api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  if (!g_api) {
    std::fprintf(stderr, "GetApi(%d) returned NULL\n", ORT_API_VERSION);
    return 1;
  }
#define TS_ORT_API(index, implemented, return_type, name, parameters) CallWithZeros(index, #name, g_api->name);
#include "ort_api_entries.inc"
#undef TS_ORT_API
  std::printf("null_arguments: %d entries called with all-zero arguments, %d problems\n", g_calls, g_failures);
  return g_failures == 0 ? 0 : 1;
}
