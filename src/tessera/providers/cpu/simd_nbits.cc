// Kernels of simd_nbits.h, compiled once per x86 target by Highway.
#include "tessera/providers/cpu/simd_nbits.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tessera/providers/cpu/simd_nbits.cc"
#include "hwy/foreach_target.h"  // re-includes this file once per target
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::nbits_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Lanes(d) divides the bytes of a slot (both are powers of two). Each
// vector of bytes is loaded once for all its slots; each slot's values
// dequantize with one FMA, q * s - zero * s, and meet A in a second. Blocks
// alternate between two pairs of accumulators, even and odd slots apart, so
// the FMAs do not wait on each other (one chain ran at its latency, 1.5x
// slower); the lanes are summed once, at the end of the row.
template <int kBits, class D>
float RowDotT(D d, const uint8_t* packed, const float* a_slots, int64_t blocks, int64_t block, const float* scale,
              const float* zero) {
  constexpr int kPer = 8 / kBits;
  const hn::Rebind<uint8_t, D> du8;
  const hn::Rebind<int32_t, D> di32;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t bytes = block * kBits / 8;
  const auto mask = hn::Set(du8, static_cast<uint8_t>((1 << kBits) - 1));
  auto step = [&](int64_t b, hn::Vec<D>& even, hn::Vec<D>& odd) {
    const uint8_t* q = packed + b * bytes;
    const float* a = a_slots + b * block;
    const auto vs = hn::Set(d, scale[b]);
    const auto vzs = hn::Set(d, -zero[b] * scale[b]);
    for (int64_t j = 0; j < bytes; j += lanes) {
      const auto raw = hn::LoadU(du8, q + j);
      for (int s = 0; s < kPer; ++s) {
        const auto v = kBits == 8 ? raw : hn::And(hn::ShiftRightSame(raw, s * kBits), mask);
        const auto w = hn::MulAdd(hn::ConvertTo(d, hn::PromoteTo(di32, v)), vs, vzs);
        hn::Vec<D>& into = (s & 1) ? odd : even;
        into = hn::MulAdd(w, hn::LoadU(d, a + s * bytes + j), into);
      }
    }
  };
  auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
  int64_t b = 0;
  for (; b + 1 < blocks; b += 2) {
    step(b, a0, a1);
    step(b + 1, a2, a3);
  }
  if (b < blocks) step(b, a0, a1);
  return hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3))));
}

template <int kBits>
float RowDotBits(const uint8_t* packed, const float* a_slots, int64_t blocks, int64_t block, const float* scale,
                 const float* zero) {
  const int64_t bytes = block * kBits / 8;
  const hn::ScalableTag<float> d;
  if (bytes >= static_cast<int64_t>(hn::Lanes(d))) return RowDotT<kBits>(d, packed, a_slots, blocks, block, scale, zero);
  if (bytes >= 8) return RowDotT<kBits>(hn::CappedTag<float, 8>(), packed, a_slots, blocks, block, scale, zero);
  return RowDotT<kBits>(hn::CappedTag<float, 4>(), packed, a_slots, blocks, block, scale, zero);
}

float RowDot(const uint8_t* packed, const float* a_slots, int64_t blocks, int64_t block, int bits, const float* scale,
             const float* zero) {
  if (bits == 4) return RowDotBits<4>(packed, a_slots, blocks, block, scale, zero);
  if (bits == 8) return RowDotBits<8>(packed, a_slots, blocks, block, scale, zero);
  return RowDotBits<2>(packed, a_slots, blocks, block, scale, zero);
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::cpu::nbits_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::cpu {
namespace nbits_detail {
HWY_EXPORT(RowDot);
}  // namespace nbits_detail

void SlotBlockNBits(const float* a, int64_t valid, int64_t block, int bits, float* a_slots) {
  const int per = 8 / bits;
  const int64_t bytes = block * bits / 8;
  for (int64_t j = 0; j < bytes; ++j)
    for (int s = 0; s < per; ++s) {
      const int64_t k = j * per + s;
      a_slots[s * bytes + j] = k < valid ? a[k] : 0.0f;
    }
}

float RowDotNBits(const uint8_t* packed, const float* a_slots, int64_t blocks, int64_t block, int bits,
                  const float* scale, const float* zero) {
  return HWY_DYNAMIC_DISPATCH(nbits_detail::RowDot)(packed, a_slots, blocks, block, bits, scale, zero);
}

}  // namespace tessera::cpu
#endif  // HWY_ONCE
