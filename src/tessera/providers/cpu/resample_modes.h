// The interpolation modes and the cubic kernel that Resize/Upsample
// (resize.cc) and GridSample (grid_sample.cc) share.
#pragma once

#include <cmath>

namespace tessera::cpu {

enum class InterpMode { kNearest, kLinear, kCubic };

// Keys' cubic convolution kernel with coefficient a (-0.75 in ONNX's Resize
// default and GridSample, -0.5 in some exporters).
inline double CubicWeight(double x, double a) {
  x = std::abs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

}  // namespace tessera::cpu
