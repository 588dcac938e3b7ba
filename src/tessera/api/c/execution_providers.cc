// Execution providers through ORT's entries. Tessera's providers are "cpu",
// "dnnl" (oneDNN) and "opencl"; ORT's spellings of them ("DNNL",
// "DnnlExecutionProvider", "CPUExecutionProvider", "OpenCL") map as the
// Python module maps them (api/providers.h). Any other provider (CUDA,
// TensorRT, XNNPACK, ...) is an error naming the providers this build has.
#include <cstdlib>

#include "tessera/api/c/ort_objects.h"
#include "tessera/api/providers.h"
#include "tessera/base/logging.h"

namespace tessera::capi {

namespace {

// Appends a provider after checking that this build and machine have it
// (MakeProviders throws a kInvalidArgument naming the available ones).
void AppendProvider(OrtSessionOptions& o, const std::string& name, const OrtKeyValuePairs* options,
                    const char* entry) {
  std::string canonical = CanonicalProviderName(name);
  MakeProviders({name});  // its error names the provider as the client spelled it
  if (options && !options->entries.empty()) {
    Logger logger(o.options.log_id, o.options.log_severity_level);
    for (const auto& [k, v] : options->entries)
      TS_LOG(logger, kWarning, entry << ": provider option " << k << "=" << v << " has no effect on Tessera's '"
                                     << canonical << "' provider");
  }
  o.providers.push_back(canonical);
}

void ReadPairs(OrtKeyValuePairs& into, const char* const* keys, const char* const* values, size_t n,
               const char* entry) {
  if (n == 0) return;
  NotNull(keys, entry, "provider_options_keys");
  NotNull(values, entry, "provider_options_values");
  for (size_t i = 0; i < n; ++i) into.Set(NotNull(keys[i], entry, "key"), NotNull(values[i], entry, "value"));
}

OrtStatus* AppendNamed(OrtSessionOptions* options, const char* name, const char* entry) {
  return Guard([&] { AppendProvider(*Live(options, entry, "options"), name, nullptr, entry); });
}

std::string PairsAsString(const OrtKeyValuePairs& kvp) {
  std::string s;
  for (const auto& [k, v] : kvp.entries) s += (s.empty() ? "" : ";") + k + "=" + v;
  return s;
}

template <typename T>
OrtStatus* CreateOptions(T** out, const char* provider, const char* entry) {
  return Guard([&] {
    auto o = std::make_unique<T>();
    o->provider = provider;
    *NotNull(out, entry, "out") = o.release();
  });
}

template <typename T>
OrtStatus* UpdateOptions(T* o, const char* const* keys, const char* const* values, size_t n, const char* entry) {
  return Guard([&] {
    Live(o, entry, "provider options");
    ReadPairs(o->values, keys, values, n, entry);
    if (const std::string* id = o->values.Find("device_id")) {
      char* end = nullptr;
      long v = std::strtol(id->c_str(), &end, 10);
      if (id->empty() || *end != '\0' || v < 0 || v > 1 << 20)
        TS_THROW(kInvalidArgument, entry, ": device_id '", *id, "' is not a device number");
      o->device_id = static_cast<int>(v);
    }
  });
}

template <typename T>
OrtStatus* OptionsAsString(const T* o, OrtAllocator* allocator, char** ptr, const char* entry) {
  return Guard([&] {
    Live(o, entry, "provider options");
    *NotNull(ptr, entry, "ptr") = AllocString(allocator, PairsAsString(o->values), entry);
  });
}

template <typename T>
OrtStatus* AppendWithOptions(OrtSessionOptions* options, const T* provider_options, const char* name,
                             const char* entry) {
  return Guard([&] {
    Live(options, entry, "options");
    if (provider_options) Live(provider_options, entry, "provider options");
    AppendProvider(*options, name, provider_options ? &provider_options->values : nullptr, entry);
  });
}

}  // namespace

OrtStatus* SessionOptionsAppendExecutionProvider(OrtSessionOptions* options, const char* provider_name,
                                                 const char* const* provider_options_keys,
                                                 const char* const* provider_options_values,
                                                 size_t num_keys) noexcept {
  const char* entry = "SessionOptionsAppendExecutionProvider";
  return Guard([&] {
    Live(options, entry, "options");
    OrtKeyValuePairs values;
    ReadPairs(values, provider_options_keys, provider_options_values, num_keys, entry);
    AppendProvider(*options, NotNull(provider_name, entry, "provider_name"), &values, entry);
  });
}

// The legacy per-provider entries: each names its provider.
OrtStatus* SessionOptionsAppendExecutionProvider_CUDA(OrtSessionOptions* options,
                                                      const OrtCUDAProviderOptions*) noexcept {
  return AppendNamed(options, "CUDAExecutionProvider", "SessionOptionsAppendExecutionProvider_CUDA");
}
OrtStatus* SessionOptionsAppendExecutionProvider_ROCM(OrtSessionOptions* options,
                                                      const OrtROCMProviderOptions*) noexcept {
  return AppendNamed(options, "ROCMExecutionProvider", "SessionOptionsAppendExecutionProvider_ROCM");
}
OrtStatus* SessionOptionsAppendExecutionProvider_OpenVINO(OrtSessionOptions* options,
                                                          const OrtOpenVINOProviderOptions*) noexcept {
  return AppendNamed(options, "OpenVINOExecutionProvider", "SessionOptionsAppendExecutionProvider_OpenVINO");
}
OrtStatus* SessionOptionsAppendExecutionProvider_TensorRT(OrtSessionOptions* options,
                                                          const OrtTensorRTProviderOptions*) noexcept {
  return AppendNamed(options, "TensorrtExecutionProvider", "SessionOptionsAppendExecutionProvider_TensorRT");
}
OrtStatus* SessionOptionsAppendExecutionProvider_MIGraphX(OrtSessionOptions* options,
                                                          const OrtMIGraphXProviderOptions*) noexcept {
  return AppendNamed(options, "MIGraphXExecutionProvider", "SessionOptionsAppendExecutionProvider_MIGraphX");
}
OrtStatus* SessionOptionsAppendExecutionProvider_CANN(OrtSessionOptions* options,
                                                      const OrtCANNProviderOptions*) noexcept {
  return AppendNamed(options, "CANNExecutionProvider", "SessionOptionsAppendExecutionProvider_CANN");
}
OrtStatus* SessionOptionsAppendExecutionProvider_OpenVINO_V2(OrtSessionOptions* options, const char* const*,
                                                             const char* const*, size_t) noexcept {
  return AppendNamed(options, "OpenVINOExecutionProvider", "SessionOptionsAppendExecutionProvider_OpenVINO_V2");
}
OrtStatus* SessionOptionsAppendExecutionProvider_VitisAI(OrtSessionOptions* options, const char* const*,
                                                         const char* const*, size_t) noexcept {
  return AppendNamed(options, "VitisAIExecutionProvider", "SessionOptionsAppendExecutionProvider_VitisAI");
}

OrtStatus* SessionOptionsAppendExecutionProvider_TensorRT_V2(OrtSessionOptions* options,
                                                             const OrtTensorRTProviderOptionsV2* tensorrt_options) noexcept {
  return AppendWithOptions(options, tensorrt_options, "TensorrtExecutionProvider",
                           "SessionOptionsAppendExecutionProvider_TensorRT_V2");
}
OrtStatus* SessionOptionsAppendExecutionProvider_CUDA_V2(OrtSessionOptions* options,
                                                         const OrtCUDAProviderOptionsV2* cuda_options) noexcept {
  return AppendWithOptions(options, cuda_options, "CUDAExecutionProvider",
                           "SessionOptionsAppendExecutionProvider_CUDA_V2");
}
OrtStatus* SessionOptionsAppendExecutionProvider_Dnnl(OrtSessionOptions* options,
                                                      const OrtDnnlProviderOptions* dnnl_options) noexcept {
  return AppendWithOptions(options, dnnl_options, "dnnl", "SessionOptionsAppendExecutionProvider_Dnnl");
}

// Provider-option objects exist for every kind so clients that fill them
// before appending get the append's clear error, not a failure earlier.
OrtStatus* CreateCUDAProviderOptions(OrtCUDAProviderOptionsV2** out) noexcept {
  return CreateOptions(out, "cuda", "CreateCUDAProviderOptions");
}
OrtStatus* UpdateCUDAProviderOptions(OrtCUDAProviderOptionsV2* cuda_options, const char* const* keys,
                                     const char* const* values, size_t num_keys) noexcept {
  return UpdateOptions(cuda_options, keys, values, num_keys, "UpdateCUDAProviderOptions");
}
OrtStatus* GetCUDAProviderOptionsAsString(const OrtCUDAProviderOptionsV2* cuda_options, OrtAllocator* allocator,
                                          char** ptr) noexcept {
  return OptionsAsString(cuda_options, allocator, ptr, "GetCUDAProviderOptionsAsString");
}
void ReleaseCUDAProviderOptions(OrtCUDAProviderOptionsV2* input) noexcept {
  ReleaseHandle(input, "ReleaseCUDAProviderOptions");
}

OrtStatus* CreateTensorRTProviderOptions(OrtTensorRTProviderOptionsV2** out) noexcept {
  return CreateOptions(out, "tensorrt", "CreateTensorRTProviderOptions");
}
OrtStatus* UpdateTensorRTProviderOptions(OrtTensorRTProviderOptionsV2* tensorrt_options, const char* const* keys,
                                         const char* const* values, size_t num_keys) noexcept {
  return UpdateOptions(tensorrt_options, keys, values, num_keys, "UpdateTensorRTProviderOptions");
}
OrtStatus* GetTensorRTProviderOptionsAsString(const OrtTensorRTProviderOptionsV2* tensorrt_options,
                                              OrtAllocator* allocator, char** ptr) noexcept {
  return OptionsAsString(tensorrt_options, allocator, ptr, "GetTensorRTProviderOptionsAsString");
}
void ReleaseTensorRTProviderOptions(OrtTensorRTProviderOptionsV2* input) noexcept {
  ReleaseHandle(input, "ReleaseTensorRTProviderOptions");
}

OrtStatus* CreateDnnlProviderOptions(OrtDnnlProviderOptions** out) noexcept {
  return CreateOptions(out, "dnnl", "CreateDnnlProviderOptions");
}
OrtStatus* UpdateDnnlProviderOptions(OrtDnnlProviderOptions* dnnl_options, const char* const* keys,
                                     const char* const* values, size_t num_keys) noexcept {
  return UpdateOptions(dnnl_options, keys, values, num_keys, "UpdateDnnlProviderOptions");
}
OrtStatus* GetDnnlProviderOptionsAsString(const OrtDnnlProviderOptions* dnnl_options, OrtAllocator* allocator,
                                          char** ptr) noexcept {
  return OptionsAsString(dnnl_options, allocator, ptr, "GetDnnlProviderOptionsAsString");
}
void ReleaseDnnlProviderOptions(OrtDnnlProviderOptions* input) noexcept {
  ReleaseHandle(input, "ReleaseDnnlProviderOptions");
}

// ORT's spelling of each provider this build has and this machine can run.
OrtStatus* GetAvailableProviders(char*** out_ptr, int* provider_length) noexcept {
  return Guard([&] {
    NotNull(out_ptr, "GetAvailableProviders", "out_ptr");
    NotNull(provider_length, "GetAvailableProviders", "provider_length");
    std::vector<std::string> names;
    for (const auto& p : AvailableProviders()) {
      if (p == "cpu") names.push_back("CPUExecutionProvider");
      else if (p == "dnnl") names.push_back("DnnlExecutionProvider");
      else if (p == "opencl") names.push_back("OpenCLExecutionProvider");
      else names.push_back(p);
    }
    auto** list = new char*[names.size()];
    for (size_t i = 0; i < names.size(); ++i) {
      list[i] = new char[names[i].size() + 1];
      std::memcpy(list[i], names[i].c_str(), names[i].size() + 1);
    }
    *out_ptr = list;
    *provider_length = static_cast<int>(names.size());
  });
}

OrtStatus* ReleaseAvailableProviders(char** ptr, int providers_length) noexcept {
  if (!ptr) return nullptr;
  for (int i = 0; i < providers_length; ++i) delete[] ptr[i];
  delete[] ptr;
  return nullptr;
}

}  // namespace tessera::capi
