// Kernels of simd_qlinear.h, compiled once per x86 target by Highway.
#include "tessera/providers/cpu/simd_qlinear.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tessera/providers/cpu/simd_qlinear.cc"
#include "hwy/foreach_target.h"  // re-includes this file once per target
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::qlinear_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// A lane-wide view of one operand: its values less the zero point as
// int32, loaded per vector or broadcast once.
template <typename T, class DI>
HWY_INLINE hn::Vec<DI> Centered(DI di, const T* x, bool scalar, int64_t i, hn::Vec<DI> zero) {
  const hn::Rebind<T, DI> dt;
  if (scalar) return hn::Set(di, static_cast<int32_t>(x[0])) - zero;
  return hn::PromoteTo(di, hn::LoadU(dt, x + i)) - zero;
}

// Both kernels: compute(centered a, centered b) -> float, then
// round half to even, add zc, saturate, store.
template <bool kMul, typename T>
void BinaryRow(const T* a, bool a_scalar, const T* b, bool b_scalar, int64_t n, const QLinearBinaryRow& p, T* c) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<T, decltype(df)> dt;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  const float lo = std::is_signed_v<T> ? -128.f : 0.f, hi = std::is_signed_v<T> ? 127.f : 255.f;
  const auto vza = hn::Set(di, p.za), vzb = hn::Set(di, p.zb);
  const auto vka = hn::Set(df, p.ka), vkb = hn::Set(df, p.kb), vzc = hn::Set(df, static_cast<float>(p.zc));
  const auto vlo = hn::Set(df, lo), vhi = hn::Set(df, hi);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto ca = Centered(di, a, a_scalar, i, vza), cb = Centered(di, b, b_scalar, i, vzb);
    hn::Vec<decltype(df)> v;
    if constexpr (kMul) {
      v = hn::ConvertTo(df, ca * cb) * vka;  // |product| <= 65025: exact in float
    } else {
      v = hn::ConvertTo(df, ca) * vka + hn::ConvertTo(df, cb) * vkb;
    }
    const auto r = hn::Min(hn::Max(hn::Round(v) + vzc, vlo), vhi);  // |v| stays far below 2^31 for 8-bit inputs
    hn::StoreU(hn::DemoteTo(dt, hn::ConvertTo(di, r)), dt, c + i);
  }
  for (; i < n; ++i) {
    const int32_t ca = static_cast<int32_t>(a[a_scalar ? 0 : i]) - p.za, cb = static_cast<int32_t>(b[b_scalar ? 0 : i]) - p.zb;
    float v;
    if constexpr (kMul) {
      v = static_cast<float>(ca * cb) * p.ka;
    } else {
      const float fa = static_cast<float>(ca) * p.ka, fb = static_cast<float>(cb) * p.kb;
      v = fa + fb;
    }
    c[i] = static_cast<T>(std::min(hi, std::max(lo, std::nearbyint(v) + static_cast<float>(p.zc))));
  }
}

void AddS8(const int8_t* a, bool as, const int8_t* b, bool bs, int64_t n, const QLinearBinaryRow& p, int8_t* c) {
  BinaryRow<false>(a, as, b, bs, n, p, c);
}
void AddU8(const uint8_t* a, bool as, const uint8_t* b, bool bs, int64_t n, const QLinearBinaryRow& p, uint8_t* c) {
  BinaryRow<false>(a, as, b, bs, n, p, c);
}
void MulS8(const int8_t* a, bool as, const int8_t* b, bool bs, int64_t n, const QLinearBinaryRow& p, int8_t* c) {
  BinaryRow<true>(a, as, b, bs, n, p, c);
}
void MulU8(const uint8_t* a, bool as, const uint8_t* b, bool bs, int64_t n, const QLinearBinaryRow& p, uint8_t* c) {
  BinaryRow<true>(a, as, b, bs, n, p, c);
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::cpu::qlinear_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::cpu {
namespace qlinear_detail {
HWY_EXPORT(AddS8);
HWY_EXPORT(AddU8);
HWY_EXPORT(MulS8);
HWY_EXPORT(MulU8);
}  // namespace qlinear_detail
using namespace qlinear_detail;  // NOLINT(google-build-using-namespace): see simd_elementwise.cc

void QLinearAddRow(const void* a, bool a_scalar, const void* b, bool b_scalar, int64_t n, const QLinearBinaryRow& p,
                   bool is_signed, void* c) {
  if (n <= 0) return;
  if (is_signed)
    HWY_DYNAMIC_DISPATCH(AddS8)(static_cast<const int8_t*>(a), a_scalar, static_cast<const int8_t*>(b), b_scalar, n, p,
                                static_cast<int8_t*>(c));
  else
    HWY_DYNAMIC_DISPATCH(AddU8)(static_cast<const uint8_t*>(a), a_scalar, static_cast<const uint8_t*>(b), b_scalar, n,
                                p, static_cast<uint8_t*>(c));
}

void QLinearMulRow(const void* a, bool a_scalar, const void* b, bool b_scalar, int64_t n, const QLinearBinaryRow& p,
                   bool is_signed, void* c) {
  if (n <= 0) return;
  if (is_signed)
    HWY_DYNAMIC_DISPATCH(MulS8)(static_cast<const int8_t*>(a), a_scalar, static_cast<const int8_t*>(b), b_scalar, n, p,
                                static_cast<int8_t*>(c));
  else
    HWY_DYNAMIC_DISPATCH(MulU8)(static_cast<const uint8_t*>(a), a_scalar, static_cast<const uint8_t*>(b), b_scalar, n,
                                p, static_cast<uint8_t*>(c));
}

}  // namespace tessera::cpu
#endif  // HWY_ONCE
