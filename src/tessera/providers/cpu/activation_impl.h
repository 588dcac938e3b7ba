// Scalar activation formulas shared by the activation kernels and the fused
// kernels (FusedConv, FusedGemm, FusedMatMul), so a fused node computes each
// element exactly as the unfused activation node would.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace tessera::cpu {

// e^x for float without branches or library calls, so loops over it
// vectorize: x = n ln2 + f with |f| <= ln2/2, e^f by its degree-6 Taylor
// polynomial (relative error < 2e-7, about one float ulp), 2^n built in the
// exponent bits. x is clamped to [-87, 88], where 2^n stays a normal float;
// NaN passes through as NaN.
inline float ExpFloat(float x) {
  x = x < -87.0f ? -87.0f : x;
  x = x > 88.0f ? 88.0f : x;
  const float kShift = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer in the low mantissa bits
  float r = x * 1.44269504088896341f + kShift;
  int32_t n = std::bit_cast<int32_t>(r) - std::bit_cast<int32_t>(kShift);
  float kn = r - kShift;
  float f = x - kn * 0.693145751953125f - kn * 1.428606765330187e-06f;  // ln2 split in two: f is exact
  float p = 1.0f / 720;
  p = p * f + 1.0f / 120;
  p = p * f + 1.0f / 24;
  p = p * f + 1.0f / 6;
  p = p * f + 0.5f;
  p = p * f + 1.0f;
  p = p * f + 1.0f;
  return p * std::bit_cast<float>((n + 127) << 23);
}

// Numerically stable logistic function.
template <typename C>
inline C Logistic(C x) {
  if (x >= C(0)) return C(1) / (C(1) + std::exp(-x));
  C e = std::exp(x);
  return e / (C(1) + e);
}

// Gelu, exact form: 0.5 x (1 + erf(x / sqrt 2)).
template <typename C>
inline C GeluErf(C x) {
  constexpr C kInvSqrt2 = static_cast<C>(0.70710678118654752440084436210485);
  return C(0.5) * x * (C(1) + std::erf(x * kInvSqrt2));
}

// Gelu, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
template <typename C>
inline C GeluTanh(C x) {
  constexpr C kSqrt2OverPi = static_cast<C>(0.79788456080286535587989211986876);
  return C(0.5) * x * (C(1) + std::tanh(kSqrt2OverPi * (x + static_cast<C>(0.044715) * x * x * x)));
}

}  // namespace tessera::cpu
