// (being written) ConvPool family of the OpenCL EP.
#include "tessera/providers/opencl/opencl_families.h"
#include "tessera/providers/opencl/opencl_kernel_util.h"

namespace tessera::opencl {

const char* const kConvPoolSource = "";

std::vector<OpenClRow> ConvPoolRows() { return {}; }

}  // namespace tessera::opencl
