// Kernels that never touch element data: Reshape, Flatten, Squeeze,
// Unsqueeze and Identity (views sharing the input's buffer), Shape and Size
// (they read the shape alone). The CPU EP runs them, and the OpenCL EP runs
// the same kernels on device tensors: no device work, no copies.
#pragma once

#include <vector>

#include "tessera/ops/kernel_table.h"

namespace tessera::cpu {

std::vector<KernelRow> ViewKernels();

}  // namespace tessera::cpu
