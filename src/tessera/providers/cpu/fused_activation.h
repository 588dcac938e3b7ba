// The activation of a fused node (ai.tessera:FusedConv / FusedGemm /
// FusedMatMul): attribute `activation` names it, `activation_params` holds
// its parameters. Elements are computed with the same formulas as the
// standalone activation kernels, except float Sigmoid and SiLU, which use
// the vectorizable ExpFloat (within about one ulp of std::exp): they follow
// convolutions over whole feature maps, where a library exp per element
// cost more than the convolution itself.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/ops/kernel.h"
#include "tessera/providers/cpu/activation_impl.h"
#include "tessera/providers/cpu/epilogue.h"
#include "tessera/providers/cpu/vector_math.h"

namespace tessera::cpu {

class FusedActivation final : public Epilogue {
 public:
  enum class Kind { kNone, kRelu, kClip, kLeakyRelu, kSigmoid, kHardSigmoid, kSilu, kGelu, kGeluTanh, kTanh };

  // Reads `activation` (default: none) and `activation_params`; fails naming
  // the node on an unknown activation or a wrong parameter count.
  explicit FusedActivation(const KernelInfo& info);

  Kind kind() const { return kind_; }
  bool active() const { return kind_ != Kind::kNone; }

  template <typename C>
  C operator()(C x) const {
    switch (kind_) {
      case Kind::kNone: return x;
      case Kind::kRelu: return x < C(0) ? C(0) : x;  // NaN stays NaN, as in Relu
      case Kind::kClip: {
        C lo = static_cast<C>(p0_), hi = static_cast<C>(p1_);
        x = x < lo ? lo : x;
        return hi < x ? hi : x;
      }
      case Kind::kLeakyRelu: return x < C(0) ? static_cast<C>(p0_) * x : x;
      case Kind::kSigmoid: return Logistic(x);
      case Kind::kHardSigmoid: {
        C v = static_cast<C>(p0_) * x + static_cast<C>(p1_);
        return v < C(0) ? C(0) : (v > C(1) ? C(1) : v);
      }
      case Kind::kSilu: return x * Logistic(x);
      case Kind::kGelu: return GeluErf(x);
      case Kind::kGeluTanh: return GeluTanh(x);
      case Kind::kTanh: return std::tanh(x);
    }
    return x;
  }

  void Apply(float* y, int64_t n) const override { Run(y, n); }
  void Apply(double* y, int64_t n) const override { Run(y, n); }

 private:
  template <typename C>
  void Run(C* y, int64_t n) const {
    if constexpr (std::is_same_v<C, float>)
      if (InPlaceFn simd = InPlaceF32()) return simd(y, n);
    switch (kind_) {  // the common cases get their own tight loops
      case Kind::kNone: return;
      case Kind::kRelu:
        for (int64_t i = 0; i < n; ++i) y[i] = y[i] < C(0) ? C(0) : y[i];
        return;
      case Kind::kClip: {
        C lo = static_cast<C>(p0_), hi = static_cast<C>(p1_);
        for (int64_t i = 0; i < n; ++i) {
          C v = y[i] < lo ? lo : y[i];
          y[i] = hi < v ? hi : v;
        }
        return;
      }
      default:
        break;
    }
    for (int64_t i = 0; i < n; ++i) y[i] = (*this)(y[i]);
  }

  // The SIMD whole-array form of a float activation, or null where it has none.
  using InPlaceFn = void (*)(float*, int64_t);
  InPlaceFn InPlaceF32() const {
    switch (kind_) {
      case Kind::kSigmoid: return SigmoidInPlace;
      case Kind::kSilu: return SiluInPlace;
      case Kind::kGelu: return GeluErfInPlace;
      case Kind::kGeluTanh: return GeluTanhInPlace;
      case Kind::kTanh: return TanhInPlace;
      default: return nullptr;
    }
  }

  Kind kind_ = Kind::kNone;
  float p0_ = 0, p1_ = 0;
};

}  // namespace tessera::cpu
