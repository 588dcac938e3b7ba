#include "tessera/providers/cpu/requantize.h"

#include <algorithm>
#include <cmath>

namespace tessera::cpu {

namespace {

// round-half-even(v) + zero, saturated to [lo, hi]. Adding and taking away
// 1.5 * 2^52 rounds a double to an integer in the default rounding mode
// without a libm call, exactly for |v| below 2^51; larger values saturate
// anyway, so v is clamped first. Branch-free, so the loops vectorize.
template <typename T>
inline T Saturate(double v, double zero, double lo, double hi) {
  constexpr double kRound = 6755399441055744.0;
  v = v == v ? std::clamp(v, -1e15, 1e15) : 0.0;  // NaN (0 * an infinite scale) gives the zero point
  const double q = (v + kRound) - kRound + zero;
  return static_cast<T>(std::clamp(q, lo, hi));
}

template <typename T, typename Scale>
void Run(const int32_t* acc, int64_t n, int32_t add, Scale scale, int32_t zero, T* out) {
  const double lo = std::is_signed_v<T> ? -128.0 : 0.0, hi = std::is_signed_v<T> ? 127.0 : 255.0;
  const double z = zero;
  for (int64_t i = 0; i < n; ++i) out[i] = Saturate<T>((static_cast<double>(acc[i]) + add) * scale(i), z, lo, hi);
}

}  // namespace

void RequantizeRun(const int32_t* acc, int64_t n, int32_t add, double scale, int32_t zero, DataType type, void* out) {
  if (std::isnan(scale)) {
    scale = 0.0;  // every value quantizes to the zero point
    add = 0;
  }
  auto s = [scale](int64_t) { return scale; };
  if (type == DataType::kInt8) Run(acc, n, add, s, zero, static_cast<int8_t*>(out));
  else Run(acc, n, add, s, zero, static_cast<uint8_t*>(out));
}

void RequantizeRunPerColumn(const int32_t* acc, int64_t n, const double* scale, int32_t zero, DataType type, void* out) {
  // A NaN scale quantizes to the zero point.
  auto s = [scale](int64_t j) { return std::isnan(scale[j]) ? 0.0 : scale[j]; };
  if (type == DataType::kInt8) Run(acc, n, 0, s, zero, static_cast<int8_t*>(out));
  else Run(acc, n, 0, s, zero, static_cast<uint8_t*>(out));
}

}  // namespace tessera::cpu
