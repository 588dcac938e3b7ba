// The OpenCL device behind the OpenCL execution provider: one context and
// in-order queue per process, the program built from every kernel family's
// source (with an on-disk binary cache, since compiling OpenCL C is slow on
// some drivers), buffers and launches.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/ir/tensor.h"

namespace tessera::opencl {

inline constexpr const char* kMemorySpace = "opencl";

// Throws kRuntimeError naming the call and the OpenCL error code.
void Check(cl_int err, const char* what);

// One kernel argument: a buffer or a value passed by copy (scalars and small
// structs).
struct KernelArg {
  cl_mem mem = nullptr;
  std::vector<unsigned char> bytes;

  KernelArg(cl_mem m) : mem(m) {}  // NOLINT(google-explicit-constructor)
  template <typename T>
  static KernelArg Value(const T& v) {
    KernelArg a(nullptr);
    a.bytes.resize(sizeof(T));
    std::memcpy(a.bytes.data(), &v, sizeof(T));
    return a;
  }
};

class Runtime {
 public:
  // The process-wide runtime, created on first use. Returns null and sets
  // *why when there is no usable OpenCL device or the program fails to build.
  static std::shared_ptr<Runtime> Get(std::string* why);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // "pthread-skylake-avx512 (Portable Computing Language, OpenCL 3.0 PoCL ...)"
  const std::string& description() const { return description_; }

  // A fresh device buffer of at least `bytes` bytes (never zero-sized).
  cl_mem Allocate(size_t bytes);
  // Blocking transfers.
  void Write(cl_mem mem, size_t offset, size_t bytes, const void* src);
  void Read(cl_mem mem, size_t offset, size_t bytes, void* dst);
  // Device-side copy.
  void CopyBuffer(cl_mem src, size_t src_offset, cl_mem dst, size_t dst_offset, size_t bytes);
  // Enqueues `kernel` over a 1-D range of `n` work items (rounded up to the
  // work-group size; kernels guard their index against n).
  void Launch1D(const char* kernel, const std::vector<KernelArg>& args, size_t n);
  // Enqueues over a 2-D or 3-D range (global sizes, no rounding).
  void LaunchND(const char* kernel, const std::vector<KernelArg>& args, const std::vector<size_t>& global);
  void Finish();

 private:
  Runtime() = default;
  std::string Init();  // returns "" on success, else why not
  cl_kernel KernelNamed(const char* name);  // requires mu_
  void Enqueue(const char* kernel, const std::vector<KernelArg>& args, cl_uint dims, const size_t* global,
               const size_t* local);

  cl_platform_id platform_ = nullptr;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  std::string description_;
  size_t max_group_ = 64;
  std::mutex mu_;  // kernel objects carry their arguments: set-and-enqueue is one critical section
  std::unordered_map<std::string, cl_kernel> kernels_;
};

// Device tensors: a Tensor whose buffer lives in the runtime's memory.
Tensor NewDeviceTensor(const std::shared_ptr<Runtime>& rt, DataType dtype, Shape shape);
// The buffer behind a device tensor; fails clearly for a host tensor.
cl_mem MemOf(const Tensor& t);
Tensor Upload(const std::shared_ptr<Runtime>& rt, const Tensor& host);
Tensor Download(const std::shared_ptr<Runtime>& rt, const Tensor& device);

}  // namespace tessera::opencl
