// (being written) Reduce family of the OpenCL EP.
#include "tessera/providers/opencl/opencl_families.h"
#include "tessera/providers/opencl/opencl_kernel_util.h"

namespace tessera::opencl {

const char* const kReduceSource = "";

std::vector<OpenClRow> ReduceRows() { return {}; }

}  // namespace tessera::opencl
