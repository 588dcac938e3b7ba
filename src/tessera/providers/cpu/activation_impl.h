// Scalar activation formulas shared by the activation kernels and the fused
// kernels (FusedConv, FusedGemm, FusedMatMul), so a fused node computes each
// element exactly as the unfused activation node would.
#pragma once

#include <cmath>

namespace tessera::cpu {

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
