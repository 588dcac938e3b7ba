// What every file of the C API shares: statuses, the guard that turns
// exceptions into them, argument checks, the registry of live handles, and
// element-type mapping between ORT's enum and Tessera's DataType.
#pragma once

#include <cstring>
#include <string>
#include <utility>

#include "tessera/api/c/include/onnxruntime_c_api.h"
#include "tessera/base/status.h"
#include "tessera/ir/data_type.h"

struct OrtStatus {
  OrtErrorCode code;
  std::string message;
};

namespace tessera::capi {

// Every entry of the table, declared from the table itself so a definition
// whose signature drifts from ORT's fails to compile.
#define TS_ORT_API(index, implemented, return_type, name, parameters) return_type name parameters noexcept;
#include "tessera/api/c/include/ort_api_entries.inc"
#undef TS_ORT_API

OrtStatus* MakeStatus(OrtErrorCode code, std::string message);
OrtStatus* OutOfMemoryStatus();  // allocated once, never freed
OrtErrorCode ToOrtErrorCode(StatusCode code);

// Runs fn, returning null on success and an OrtStatus for any exception:
// Tessera's errors keep their message and map to ORT's codes.
template <typename Fn>
OrtStatus* Guard(Fn&& fn) noexcept {
  try {
    fn();
    return nullptr;
  } catch (const Error& e) {
    return MakeStatus(ToOrtErrorCode(e.code()), e.what());
  } catch (const std::bad_alloc&) {
    return MakeStatus(ORT_RUNTIME_EXCEPTION, "out of memory");
  } catch (const std::exception& e) {
    return MakeStatus(ORT_FAIL, e.what());
  } catch (...) {
    return MakeStatus(ORT_FAIL, "unknown error");
  }
}

// ------------------------------------------------------ live handle registry

// Objects the library hands out register while alive, so a released or
// foreign pointer passed back gets an error status instead of a crash (as far
// as detectable: a new object may reuse a released one's address).
enum class HandleKind {
  kEnv, kSessionOptions, kSession, kValue, kRunOptions, kTypeInfo, kTensorInfo, kMapInfo, kSequenceInfo,
  kOptionalInfo, kMemoryInfo, kIoBinding, kModelMetadata, kThreadingOptions, kKeyValuePairs, kProviderOptions,
  kAllocator, kHardwareDevice, kEpDevice,
};
const char* HandleKindName(HandleKind kind);
void RegisterHandle(const void* p, HandleKind kind);
void UnregisterHandle(const void* p);
bool IsLiveHandle(const void* p, HandleKind kind);

// Base of every handle type: registers the object for its lifetime.
template <typename Derived, HandleKind K>
struct Tracked {
  static constexpr HandleKind kKind = K;
  Tracked() { RegisterHandle(static_cast<const Derived*>(this), K); }
  Tracked(const Tracked&) { RegisterHandle(static_cast<const Derived*>(this), K); }
  Tracked& operator=(const Tracked&) { return *this; }
  ~Tracked() { UnregisterHandle(static_cast<const Derived*>(this)); }
};

[[noreturn]] void ThrowNull(const char* entry, const char* argument);

// Checks an output pointer (or any plain pointer) the ABI says is non-null.
template <typename T>
T* NotNull(T* p, const char* entry, const char* argument) {
  if (!p) ThrowNull(entry, argument);
  return p;
}

// Checks a handle argument: non-null and a live object of its kind.
template <typename T>
T* Live(T* p, const char* entry, const char* argument) {
  if (!p) ThrowNull(entry, argument);
  if (!IsLiveHandle(p, std::remove_const_t<T>::kKind))
    TS_THROW(kInvalidArgument, entry, ": '", argument, "' is not a live ", HandleKindName(std::remove_const_t<T>::kKind),
             " (released already, or another kind of object)");
  return p;
}

// Deletes a handle; NULL is a no-op (clients release NULL routinely). A
// pointer that is no live object of the kind is reported and left alone.
void ReportBadRelease(const char* entry, const void* p, HandleKind kind);
template <typename T>
void ReleaseHandle(T* p, const char* entry) {
  if (!p) return;
  if (!IsLiveHandle(p, T::kKind)) return ReportBadRelease(entry, p, T::kKind);
  delete p;
}

// ------------------------------------------------------------- conversions

// ORT's element-type enum <-> Tessera's (ONNX's) codes: they agree up to 23.
DataType FromOrtElementType(int ort_type, const char* entry);  // throws on an unknown value
ONNXTensorElementDataType ToOrtElementType(DataType t);

// A copy of s in memory from `allocator` (null-terminated), as ORT returns names.
char* AllocString(OrtAllocator* allocator, const std::string& s, const char* entry);
// Writes s into a caller buffer of *size bytes; with out == null, or a
// buffer too small, reports the size needed (ORT's two-call pattern).
void CopyToCallerBuffer(const std::string& s, char* out, size_t* size, bool null_terminate, const char* entry);

}  // namespace tessera::capi
