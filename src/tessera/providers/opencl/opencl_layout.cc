// (being written) Layout family of the OpenCL EP.
#include "tessera/providers/opencl/opencl_families.h"
#include "tessera/providers/opencl/opencl_kernel_util.h"

namespace tessera::opencl {

const char* const kLayoutSource = "";

std::vector<OpenClRow> LayoutRows() { return {}; }

}  // namespace tessera::opencl
