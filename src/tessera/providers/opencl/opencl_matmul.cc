// (being written) MatMul family of the OpenCL EP.
#include "tessera/providers/opencl/opencl_families.h"
#include "tessera/providers/opencl/opencl_kernel_util.h"

namespace tessera::opencl {

const char* const kMatMulSource = "";

std::vector<OpenClRow> MatMulRows() { return {}; }

}  // namespace tessera::opencl
