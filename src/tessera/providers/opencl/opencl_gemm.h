// The OpenCL EP's one matrix-multiply kernel, shared by MatMul, Gemm and
// Conv (as im2col + GEMM): Y[b] = alpha * A[b] x B[b] + beta * C, with
// arbitrary element strides for A and B (transposes) and per-batch offsets
// (broadcast batch dims, conv groups).
#pragma once

#include <cstdint>

#include "tessera/providers/opencl/opencl_kernel_util.h"

namespace tessera::opencl {

// Mirrors ts_gemm in the OpenCL program (same field order and types).
struct GemmParams {
  int32_t m = 0, n = 0, k = 0;
  int32_t sam = 0, sak = 0;  // element strides of A along m and k
  int32_t sbk = 0, sbn = 0;  // element strides of B along k and n
  int32_t scm = 0, scn = 0;  // strides of C along m and n (0 = broadcast)
  int32_t has_c = 0;
  int32_t c_mod = 1, c_batch = 0;  // C offset of batch b: (b % c_mod) * c_batch
  int32_t batches = 1;
  int32_t a_base = 0, b_base = 0;  // element offsets added to every batch's A and B
  int32_t y_base = 0;              // element offset of batch 0's Y
  float alpha = 1, beta = 0;
};

// Batch b reads A at a_base + offsets(b).x and B at b_base + offsets(b).y
// (ts_bcast_offsets over `batch`, which must describe params.batches items)
// and writes Y at y_base + b * m * n. `c` may be null when has_c is 0.
void LaunchGemm(Runtime& rt, cl_mem a, cl_mem b, cl_mem c, cl_mem y, const GemmParams& params,
                const BroadcastInfo& batch);

}  // namespace tessera::opencl
