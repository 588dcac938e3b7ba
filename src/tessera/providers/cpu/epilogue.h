// An in-place elementwise function applied to a kernel's output while it is
// still in the compute type and hot in cache: how Conv, ConvTranspose and Gemm
// run a fused activation without a second kernel or an extra tensor.
#pragma once

#include <cstdint>

namespace tessera::cpu {

class Epilogue {
 public:
  virtual ~Epilogue() = default;
  virtual void Apply(float* y, int64_t n) const = 0;
  virtual void Apply(double* y, int64_t n) const = 0;
};

}  // namespace tessera::cpu
