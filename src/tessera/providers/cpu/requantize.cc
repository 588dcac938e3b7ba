#include "tessera/providers/cpu/requantize.h"

#include <cmath>
#include <vector>

#include "tessera/providers/cpu/simd_int32.h"

namespace tessera::cpu {

void RequantizeRun(const int32_t* acc, int64_t n, int32_t add, double scale, int32_t zero, DataType type, void* out) {
  if (std::isnan(scale)) {
    scale = 0.0;  // every value quantizes to the zero point
    add = 0;
  }
  RequantizeI32(acc, n, add, scale, nullptr, zero, type == DataType::kInt8, out);
}

void RequantizeRunPerColumn(const int32_t* acc, int64_t n, const double* scale, int32_t zero, DataType type, void* out) {
  const double* s = scale;
  std::vector<double> finite;
  for (int64_t j = 0; j < n; ++j)
    if (std::isnan(scale[j])) {
      // A NaN scale quantizes to the zero point.
      finite.assign(scale, scale + n);
      for (double& v : finite) v = std::isnan(v) ? 0.0 : v;
      s = finite.data();
      break;
    }
  RequantizeI32(acc, n, 0, 0.0, s, zero, type == DataType::kInt8, out);
}

}  // namespace tessera::cpu
