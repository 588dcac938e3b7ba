// Moved to providers/common/simd_elementwise.h (issue 23: what more than one provider
// uses lives there). Kept for the files still including this path
// (the int8 / quantized kernels, bench/micro); include the common header.
#pragma once

#include "tessera/providers/common/simd_elementwise.h"
