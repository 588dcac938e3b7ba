#include "tessera/providers/opencl/opencl_runtime.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "tessera/base/checked_math.h"
#include "tessera/base/status.h"
#include "tessera/providers/opencl/opencl_families.h"

namespace tessera::opencl {

void Check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) TS_THROW(kRuntimeError, "OpenCL: ", what, " failed with error ", err);
}

namespace {

std::string DeviceString(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string PlatformString(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  clGetPlatformInfo(p, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Where compiled program binaries are kept between processes.
std::string CacheDir() {
  if (const char* d = std::getenv("TESSERA_OPENCL_CACHE")) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/tessera/opencl";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/tessera/opencl";
  return "";
}

void MakeDirs(const std::string& path) {
  for (size_t i = 1; i <= path.size(); ++i)
    if (i == path.size() || path[i] == '/') ::mkdir(path.substr(0, i).c_str(), 0755);
}

}  // namespace

std::shared_ptr<Runtime> Runtime::Get(std::string* why) {
  static std::mutex mu;
  static std::shared_ptr<Runtime> runtime;
  static std::string failure;
  static bool tried = false;
  std::lock_guard<std::mutex> lock(mu);
  if (!tried) {
    tried = true;
    std::shared_ptr<Runtime> rt(new Runtime());
    try {
      failure = rt->Init();
    } catch (const Error& e) {
      failure = e.what();
    }
    if (failure.empty()) runtime = rt;
  }
  if (!runtime && why) *why = failure;
  return runtime;
}

std::string Runtime::Init() {
  cl_uint num_platforms = 0;
  if (clGetPlatformIDs(0, nullptr, &num_platforms) != CL_SUCCESS || num_platforms == 0)
    return "no OpenCL platform found (install an ICD, e.g. Debian's pocl-opencl-icd)";
  std::vector<cl_platform_id> platforms(num_platforms);
  Check(clGetPlatformIDs(num_platforms, platforms.data(), nullptr), "clGetPlatformIDs");
  // A GPU when there is one, else any device.
  for (cl_device_type want : {cl_device_type(CL_DEVICE_TYPE_GPU), cl_device_type(CL_DEVICE_TYPE_ALL)}) {
    for (cl_platform_id p : platforms) {
      cl_uint n = 0;
      if (clGetDeviceIDs(p, want, 1, &device_, &n) == CL_SUCCESS && n > 0) {
        platform_ = p;
        break;
      }
    }
    if (platform_) break;
  }
  if (!platform_) return "no OpenCL device found";
  description_ = DeviceString(device_, CL_DEVICE_NAME) + " (" + PlatformString(platform_, CL_PLATFORM_NAME) + ", " +
                 DeviceString(device_, CL_DEVICE_VERSION) + ")";
  size_t group = 0;
  if (clGetDeviceInfo(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(group), &group, nullptr) == CL_SUCCESS && group)
    max_group_ = std::min<size_t>(group, 64);
  cl_int err = CL_SUCCESS;
  context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
  Check(err, "clCreateContext");
  queue_ = clCreateCommandQueue(context_, device_, 0, &err);
  Check(err, "clCreateCommandQueue");

  const std::string source = ProgramSource();
  const char* options = "-cl-std=CL1.2";
  std::string key = source + '\n' + description_ + '\n' + DeviceString(device_, CL_DRIVER_VERSION) + '\n' + options;
  std::string dir = CacheDir();
  std::ostringstream file;
  file << dir << "/program-" << std::hex << Fnv1a(key) << ".bin";
  // A cached binary skips the OpenCL C compiler; any problem with it falls
  // back to building from source.
  if (!dir.empty()) {
    std::ifstream in(file.str(), std::ios::binary);
    std::string bin((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!bin.empty()) {
      const unsigned char* data = reinterpret_cast<const unsigned char*>(bin.data());
      size_t size = bin.size();
      cl_int status = CL_SUCCESS;
      cl_program prog = clCreateProgramWithBinary(context_, 1, &device_, &size, &data, &status, &err);
      if (err == CL_SUCCESS && status == CL_SUCCESS &&
          clBuildProgram(prog, 1, &device_, options, nullptr, nullptr) == CL_SUCCESS) {
        program_ = prog;
      } else if (prog) {
        clReleaseProgram(prog);
      }
    }
  }
  if (!program_) {
    const char* src = source.c_str();
    size_t len = source.size();
    program_ = clCreateProgramWithSource(context_, 1, &src, &len, &err);
    Check(err, "clCreateProgramWithSource");
    if (clBuildProgram(program_, 1, &device_, options, nullptr, nullptr) != CL_SUCCESS) {
      size_t n = 0;
      clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
      std::string log(n, '\0');
      clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
      return "the OpenCL kernels failed to build on " + description_ + ": " + log;
    }
    size_t bin_size = 0;
    if (!dir.empty() &&
        clGetProgramInfo(program_, CL_PROGRAM_BINARY_SIZES, sizeof(bin_size), &bin_size, nullptr) == CL_SUCCESS &&
        bin_size > 0) {
      std::string bin(bin_size, '\0');
      unsigned char* ptr = reinterpret_cast<unsigned char*>(bin.data());
      if (clGetProgramInfo(program_, CL_PROGRAM_BINARIES, sizeof(ptr), &ptr, nullptr) == CL_SUCCESS) {
        MakeDirs(dir);
        std::string tmp = file.str() + ".tmp" + std::to_string(::getpid());
        std::ofstream out(tmp, std::ios::binary);
        out.write(bin.data(), static_cast<std::streamsize>(bin.size()));
        out.close();
        if (out) std::rename(tmp.c_str(), file.str().c_str());  // atomic: concurrent processes never see half a file
        else std::remove(tmp.c_str());
      }
    }
  }
  return "";
}

Runtime::~Runtime() {
  for (auto& [name, k] : kernels_) clReleaseKernel(k);
  if (program_) clReleaseProgram(program_);
  if (queue_) clReleaseCommandQueue(queue_);
  if (context_) clReleaseContext(context_);
}

cl_mem Runtime::Allocate(size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(context_, CL_MEM_READ_WRITE, std::max<size_t>(bytes, 16), nullptr, &err);
  if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY ||
      err == CL_INVALID_BUFFER_SIZE)
    TS_THROW(kResourceExhausted, "OpenCL: cannot allocate ", bytes, " bytes on ", description_);
  Check(err, "clCreateBuffer");
  return m;
}

void Runtime::Write(cl_mem mem, size_t offset, size_t bytes, const void* src) {
  if (bytes == 0) return;
  Check(clEnqueueWriteBuffer(queue_, mem, CL_TRUE, offset, bytes, src, 0, nullptr, nullptr), "clEnqueueWriteBuffer");
}

void Runtime::Read(cl_mem mem, size_t offset, size_t bytes, void* dst) {
  if (bytes == 0) return;
  Check(clEnqueueReadBuffer(queue_, mem, CL_TRUE, offset, bytes, dst, 0, nullptr, nullptr), "clEnqueueReadBuffer");
}

void Runtime::CopyBuffer(cl_mem src, size_t src_offset, cl_mem dst, size_t dst_offset, size_t bytes) {
  if (bytes == 0) return;
  Check(clEnqueueCopyBuffer(queue_, src, dst, src_offset, dst_offset, bytes, 0, nullptr, nullptr),
        "clEnqueueCopyBuffer");
}

cl_kernel Runtime::KernelNamed(const char* name) {
  auto it = kernels_.find(name);
  if (it != kernels_.end()) return it->second;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program_, name, &err);
  if (err != CL_SUCCESS) TS_THROW(kInternal, "OpenCL: kernel '", name, "' is missing from the program (error ", err, ")");
  kernels_.emplace(name, k);
  return k;
}

void Runtime::Enqueue(const char* kernel, const std::vector<KernelArg>& args, cl_uint dims, const size_t* global,
                      const size_t* local) {
  std::lock_guard<std::mutex> lock(mu_);
  cl_kernel k = KernelNamed(kernel);
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArg& a = args[i];
    cl_int err = a.bytes.empty() ? clSetKernelArg(k, static_cast<cl_uint>(i), sizeof(cl_mem), &a.mem)
                                 : clSetKernelArg(k, static_cast<cl_uint>(i), a.bytes.size(), a.bytes.data());
    if (err != CL_SUCCESS) TS_THROW(kInternal, "OpenCL: argument ", i, " of kernel '", kernel, "' rejected (error ", err, ")");
  }
  cl_int err = clEnqueueNDRangeKernel(queue_, k, dims, nullptr, global, local, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) TS_THROW(kRuntimeError, "OpenCL: launching kernel '", kernel, "' failed with error ", err);
}

void Runtime::Launch1D(const char* kernel, const std::vector<KernelArg>& args, size_t n) {
  if (n == 0) return;
  size_t local = max_group_;
  size_t global = (n + local - 1) / local * local;
  Enqueue(kernel, args, 1, &global, &local);
}

void Runtime::LaunchND(const char* kernel, const std::vector<KernelArg>& args, const std::vector<size_t>& global) {
  for (size_t g : global)
    if (g == 0) return;
  Enqueue(kernel, args, static_cast<cl_uint>(global.size()), global.data(), nullptr);
}

void Runtime::Finish() { Check(clFinish(queue_), "clFinish"); }

Tensor NewDeviceTensor(const std::shared_ptr<Runtime>& rt, DataType dtype, Shape shape) {
  int64_t numel = CheckedElementCount(shape);
  size_t bytes = static_cast<size_t>(StorageBytes(dtype, numel));
  cl_mem mem = rt->Allocate(bytes);
  std::shared_ptr<const void> release(mem, [rt](const void* m) { clReleaseMemObject(static_cast<cl_mem>(const_cast<void*>(m))); });
  auto buffer = TensorBuffer::OnDevice(kMemorySpace, mem, bytes, std::move(release));
  return Tensor(dtype, std::move(shape), std::move(buffer));
}

cl_mem MemOf(const Tensor& t) {
  if (t.on_host() || t.buffer()->memory_space() != kMemorySpace)
    TS_THROW(kInternal, "OpenCL kernel given ", t.Describe(), " outside OpenCL memory");
  if (t.byte_offset() != 0) TS_THROW(kInternal, "OpenCL kernel given a view at byte offset ", t.byte_offset());
  return static_cast<cl_mem>(t.buffer()->device_handle());
}

Tensor Upload(const std::shared_ptr<Runtime>& rt, const Tensor& host) {
  if (host.dtype() == DataType::kString) TS_THROW(kNotImplemented, "OpenCL cannot hold string tensors");
  Tensor d = NewDeviceTensor(rt, host.dtype(), host.shape());
  rt->Write(MemOf(d), 0, host.nbytes(), host.raw_data());
  return d;
}

Tensor Download(const std::shared_ptr<Runtime>& rt, const Tensor& device) {
  Tensor h(device.dtype(), device.shape());
  rt->Read(MemOf(device), 0, device.nbytes(), h.raw_data());
  return h;
}

}  // namespace tessera::opencl
