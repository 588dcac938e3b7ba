#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/kernel_util.h"

namespace tessera::cpu {

std::vector<KernelRow> ImageKernels() { return {}; }

}  // namespace tessera::cpu
