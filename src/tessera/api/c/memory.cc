// OrtMemoryInfo and allocators. Tessera's C API keeps every tensor in host
// memory: the default allocator is the CPU heap (64-byte aligned), and a
// memory info naming a device ("Cuda", "WebGPU_Buf") can be created and
// compared, as clients do on every run, but tensors over it are refused.
#include <cstdlib>

#include "tessera/api/c/ort_objects.h"

namespace tessera::capi {

namespace {

bool IsHostMemoryName(const std::string& name) {
  return name == "Cpu" || name == "CudaPinned" || name == "HipPinned" || name == "CannPinned" ||
         name == "OpenVINO_CPU" || name == "WebGPU_Cpu";
}

void* DefaultAlloc(OrtAllocator*, size_t size) {
  size_t rounded = (size + 63) / 64 * 64;
  return std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
}
void DefaultFree(OrtAllocator*, void* p) { std::free(p); }
const OrtMemoryInfo* DefaultInfo(const OrtAllocator*) { return CpuMemoryInfo(); }
OrtStatus* DefaultStats(const OrtAllocator*, OrtKeyValuePairs** out) {
  return Guard([&] { *NotNull(out, "OrtAllocator::GetStats", "out") = new OrtKeyValuePairs; });
}
void* DefaultAllocOnStream(OrtAllocator* a, size_t size, OrtSyncStream*) { return DefaultAlloc(a, size); }
OrtStatus* DefaultShrink(OrtAllocator*) { return nullptr; }

// Allocators are plain OrtAllocator structs (clients may bring their own),
// so a session's allocator from CreateAllocator is tracked on the side.
struct SessionAllocator : Tracked<SessionAllocator, HandleKind::kAllocator> {
  OrtAllocator api;
};

OrtAllocator MakeDefaultAllocatorStruct() {
  OrtAllocator a{};
  a.version = 29;  // every member up to Shrink is filled in
  a.Alloc = &DefaultAlloc;
  a.Free = &DefaultFree;
  a.Info = &DefaultInfo;
  a.Reserve = &DefaultAlloc;
  a.GetStats = &DefaultStats;
  a.AllocOnStream = &DefaultAllocOnStream;
  a.Shrink = &DefaultShrink;
  return a;
}

}  // namespace

OrtMemoryInfo* CpuMemoryInfo() {
  static OrtMemoryInfo* info = [] {
    auto* i = new OrtMemoryInfo;
    i->is_static = true;
    return i;
  }();
  return info;
}

OrtAllocator* DefaultAllocator() {
  static OrtAllocator allocator = MakeDefaultAllocatorStruct();
  return &allocator;
}

OrtStatus* CreateMemoryInfo(const char* name, enum OrtAllocatorType type, int id, enum OrtMemType mem_type,
                            OrtMemoryInfo** out) noexcept {
  return Guard([&] {
    std::string n = NotNull(name, "CreateMemoryInfo", "name");
    NotNull(out, "CreateMemoryInfo", "out");
    if (type < OrtDeviceAllocator || type > OrtReadOnlyAllocator)
      TS_THROW(kInvalidArgument, "CreateMemoryInfo: ", static_cast<int>(type), " is not an OrtAllocatorType");
    if (mem_type < OrtMemTypeCPUInput || mem_type > OrtMemTypeDefault)
      TS_THROW(kInvalidArgument, "CreateMemoryInfo: ", static_cast<int>(mem_type), " is not an OrtMemType");
    auto info = std::make_unique<OrtMemoryInfo>();
    info->name = n;
    info->id = id;
    info->allocator_type = type;
    info->mem_type = mem_type;
    info->device_type = IsHostMemoryName(n) ? OrtMemoryInfoDeviceType_CPU : OrtMemoryInfoDeviceType_GPU;
    *out = info.release();
  });
}

OrtStatus* CreateCpuMemoryInfo(enum OrtAllocatorType type, enum OrtMemType mem_type, OrtMemoryInfo** out) noexcept {
  return CreateMemoryInfo("Cpu", type, 0, mem_type, out);
}

void ReleaseMemoryInfo(OrtMemoryInfo* input) noexcept {
  if (input && IsLiveHandle(input, HandleKind::kMemoryInfo) && input->is_static) return;
  ReleaseHandle(input, "ReleaseMemoryInfo");
}

OrtStatus* CompareMemoryInfo(const OrtMemoryInfo* info1, const OrtMemoryInfo* info2, int* out) noexcept {
  return Guard([&] {
    const auto* a = Live(info1, "CompareMemoryInfo", "info1");
    const auto* b = Live(info2, "CompareMemoryInfo", "info2");
    // ORT compares the device and memory kind, not the allocator type.
    bool same = a->name == b->name && a->id == b->id && a->mem_type == b->mem_type;
    *NotNull(out, "CompareMemoryInfo", "out") = same ? 0 : -1;
  });
}

OrtStatus* MemoryInfoGetName(const OrtMemoryInfo* ptr, const char** out) noexcept {
  return Guard([&] { *NotNull(out, "MemoryInfoGetName", "out") = Live(ptr, "MemoryInfoGetName", "ptr")->name.c_str(); });
}
OrtStatus* MemoryInfoGetId(const OrtMemoryInfo* ptr, int* out) noexcept {
  return Guard([&] { *NotNull(out, "MemoryInfoGetId", "out") = Live(ptr, "MemoryInfoGetId", "ptr")->id; });
}
OrtStatus* MemoryInfoGetMemType(const OrtMemoryInfo* ptr, OrtMemType* out) noexcept {
  return Guard([&] { *NotNull(out, "MemoryInfoGetMemType", "out") = Live(ptr, "MemoryInfoGetMemType", "ptr")->mem_type; });
}
OrtStatus* MemoryInfoGetType(const OrtMemoryInfo* ptr, OrtAllocatorType* out) noexcept {
  return Guard([&] { *NotNull(out, "MemoryInfoGetType", "out") = Live(ptr, "MemoryInfoGetType", "ptr")->allocator_type; });
}
// No status to return: a bad handle leaves *out untouched.
void MemoryInfoGetDeviceType(const OrtMemoryInfo* ptr, OrtMemoryInfoDeviceType* out) noexcept {
  if (out && ptr && IsLiveHandle(ptr, HandleKind::kMemoryInfo)) *out = ptr->device_type;
}
OrtDeviceMemoryType MemoryInfoGetDeviceMemType(const OrtMemoryInfo* ptr) noexcept {
  if (ptr && IsLiveHandle(ptr, HandleKind::kMemoryInfo) && ptr->device_type != OrtMemoryInfoDeviceType_CPU &&
      ptr->mem_type != OrtMemTypeDefault)
    return OrtDeviceMemoryType_HOST_ACCESSIBLE;
  return OrtDeviceMemoryType_DEFAULT;
}
uint32_t MemoryInfoGetVendorId(const OrtMemoryInfo*) noexcept { return 0; }

// --------------------------------------------------------------- allocators

OrtStatus* GetAllocatorWithDefaultOptions(OrtAllocator** out) noexcept {
  return Guard([&] { *NotNull(out, "GetAllocatorWithDefaultOptions", "out") = DefaultAllocator(); });
}

OrtStatus* AllocatorAlloc(OrtAllocator* ort_allocator, size_t size, void** out) noexcept {
  return Guard([&] {
    NotNull(ort_allocator, "AllocatorAlloc", "ort_allocator");
    void* p = ort_allocator->Alloc(ort_allocator, size);
    if (!p) TS_THROW(kResourceExhausted, "AllocatorAlloc: no memory for ", size, " bytes");
    *NotNull(out, "AllocatorAlloc", "out") = p;
  });
}

OrtStatus* AllocatorFree(OrtAllocator* ort_allocator, void* p) noexcept {
  return Guard([&] { NotNull(ort_allocator, "AllocatorFree", "ort_allocator")->Free(ort_allocator, p); });
}

OrtStatus* AllocatorGetInfo(const OrtAllocator* ort_allocator, const struct OrtMemoryInfo** out) noexcept {
  return Guard([&] {
    NotNull(ort_allocator, "AllocatorGetInfo", "ort_allocator");
    *NotNull(out, "AllocatorGetInfo", "out") = ort_allocator->Info(ort_allocator);
  });
}

// The allocator's own statistics when it keeps any (OrtAllocator version
// 23 on); none for this library's heap allocator.
OrtStatus* AllocatorGetStats(const OrtAllocator* ort_allocator, OrtKeyValuePairs** out) noexcept {
  if (!ort_allocator) return MakeStatus(ORT_INVALID_ARGUMENT, "AllocatorGetStats: 'ort_allocator' is NULL");
  if (!out) return MakeStatus(ORT_INVALID_ARGUMENT, "AllocatorGetStats: 'out' is NULL");
  if (ort_allocator->version >= 23 && ort_allocator->GetStats) return ort_allocator->GetStats(ort_allocator, out);
  return Guard([&] { *out = new OrtKeyValuePairs; });
}

OrtStatus* CreateAllocator(const OrtSession* session, const OrtMemoryInfo* mem_info, OrtAllocator** out) noexcept {
  return Guard([&] {
    Live(session, "CreateAllocator", "session");
    const auto* info = Live(mem_info, "CreateAllocator", "mem_info");
    if (info->device_type != OrtMemoryInfoDeviceType_CPU)
      TS_THROW(kInvalidArgument, "CreateAllocator: memory '", info->name,
               "' is a device's; Tessera's C API allocates host memory only");
    auto a = std::make_unique<SessionAllocator>();
    a->api = MakeDefaultAllocatorStruct();
    *NotNull(out, "CreateAllocator", "out") = &a.release()->api;
  });
}

void ReleaseAllocator(OrtAllocator* input) noexcept {
  if (!input || input == DefaultAllocator()) return;
  auto* owner = reinterpret_cast<SessionAllocator*>(reinterpret_cast<char*>(input) - offsetof(SessionAllocator, api));
  ReleaseHandle(owner, "ReleaseAllocator");
}

}  // namespace tessera::capi
