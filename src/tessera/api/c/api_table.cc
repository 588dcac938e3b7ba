// The OrtApi table and the library's exported entry points. The table is
// built from ort_api_entries.inc: implemented entries point at their
// definitions in this folder, every other slot at a generated function
// that answers ORT_NOT_IMPLEMENTED naming the entry (never a null slot:
// clients call any slot their header knows of).
#include <string>
#include <type_traits>

#include "tessera/api/c/ort_objects.h"
#include "tessera/api/c/ort_support.h"

#ifndef TESSERA_VERSION_STRING
#define TESSERA_VERSION_STRING "0.0.0"
#endif

namespace tessera::capi {
namespace {

constexpr const char* kEntryNames[] = {
#define TS_ORT_API(index, implemented, return_type, name, parameters) #name,
#include "tessera/api/c/include/ort_api_entries.inc"
#undef TS_ORT_API
};
constexpr size_t kEntryCount = sizeof(kEntryNames) / sizeof(kEntryNames[0]);
static_assert(kEntryCount == 426, "OrtApi version 30 has 426 entries");
static_assert(sizeof(OrtApi) == kEntryCount * sizeof(void*), "one pointer per entry, no padding");

// An entry Tessera does not serve. Entries returning a status say so; the
// few returning something else give the "none" value ORT documents for an
// absent feature (NULL sub-API, false, 0), and void ones do nothing.
template <size_t Index, typename Signature>
struct NotImplemented;
template <size_t Index, typename R, typename... Args>
struct NotImplemented<Index, R(Args...) noexcept> {
  static R Entry(Args...) noexcept {
    if constexpr (std::is_same_v<R, OrtStatus*>) {
      return MakeStatus(ORT_NOT_IMPLEMENTED, std::string("OrtApi::") + kEntryNames[Index] + " (entry " +
                                                 std::to_string(Index) + ") is not implemented by Tessera");
    } else if constexpr (std::is_void_v<R>) {
      return;
    } else {
      return R{};
    }
  }
};

#define TS_ENTRY_1(index, name) &::tessera::capi::name
#define TS_ENTRY_0(index, name) &NotImplemented<index, decltype(::tessera::capi::name)>::Entry
#define TS_ORT_API(index, implemented, return_type, name, parameters) TS_ENTRY_##implemented(index, name),
const OrtApi kApi = {
#include "tessera/api/c/include/ort_api_entries.inc"
};
#undef TS_ORT_API
#undef TS_ENTRY_0
#undef TS_ENTRY_1

const OrtApi* GetApi(uint32_t version) noexcept {
  if (version >= 1 && version <= ORT_API_VERSION) return &kApi;
  return nullptr;
}

const char* GetVersionString() noexcept { return "1.30.0"; }

const OrtApiBase kApiBase = {&GetApi, &GetVersionString};

}  // namespace

const char* GetBuildInfoString() noexcept {
  return "Tessera " TESSERA_VERSION_STRING ", serving the ONNX Runtime 1.30 C API (OrtApi version 30)";
}

}  // namespace tessera::capi

extern "C" {

const OrtApiBase* OrtGetApiBase(void) noexcept { return &tessera::capi::kApiBase; }

const char* TesseraGetVersionString(void) noexcept {
  return "tessera " TESSERA_VERSION_STRING " (ONNX Runtime C API 1.30.0)";
}

OrtStatus* OrtSessionOptionsAppendExecutionProvider_CPU(OrtSessionOptions* options, int use_arena) noexcept {
  return tessera::capi::Guard([&] {
    tessera::capi::Live(options, "OrtSessionOptionsAppendExecutionProvider_CPU", "options");
    options->cpu_arena = use_arena != 0;
    options->UpdateMemoryArena();
    options->providers.push_back("cpu");
  });
}

OrtStatus* OrtSessionOptionsAppendExecutionProvider_CUDA(OrtSessionOptions* options, int device_id) noexcept {
  return tessera::capi::SessionOptionsAppendExecutionProvider_CUDA(options, nullptr);
}

OrtStatus* OrtSessionOptionsAppendExecutionProvider_Tensorrt(OrtSessionOptions* options, int device_id) noexcept {
  return tessera::capi::SessionOptionsAppendExecutionProvider_TensorRT(options, nullptr);
}

}  // extern "C"
