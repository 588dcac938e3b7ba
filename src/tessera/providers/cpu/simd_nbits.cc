// Kernels of simd_nbits.h, compiled once per x86 target by Highway.
#include "tessera/providers/cpu/simd_nbits.h"

#include <array>
#include <utility>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tessera/providers/cpu/simd_nbits.cc"
#include "hwy/foreach_target.h"  // re-includes this file once per target
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::nbits_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Each vector of packed bytes is loaded once for all its slots, and each
// slot's values dequantize with one FMA, q * s - zero * s.
//
// 4-bit values dequantized by table: on AVX-512 one permute of a 16-entry
// table, (0..15 - zero) * scale made once per block, replaces a widening
// to float and an FMA per vector (the decode loop was bound by those, not
// by memory). vpermps reads only the index's low four bits, so the low
// nibble needs no mask. The table entries are the FMA the other path does,
// bit for bit.
#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
constexpr bool kNibbleTable = true;
template <class D>
HWY_INLINE hn::Vec<D> Lookup16(D, hn::Vec<hn::RebindToSigned<D>> index, hn::Vec<D> table) {
  return hn::Vec<D>{_mm512_permutexvar_ps(index.raw, table.raw)};
}
#else
constexpr bool kNibbleTable = false;
template <class D>
HWY_INLINE hn::Vec<D> Lookup16(D d, hn::Vec<hn::RebindToSigned<D>>, hn::Vec<D>) {
  return hn::Zero(d);  // never called: kNibbleTable is false
}
#endif

// Whether the table path serves `d`: 16 float lanes.
template <int kBits, class D>
constexpr bool UseNibbleTable(D) {
  return kNibbleTable && kBits == 4 && hn::MaxLanes(D()) == 16;
}

// Calls fn(s, j, w) with every vector w of one block's values dequantized,
// (q - zero) * scale: slot s, bytes [j, j + Lanes(d)) of the block.
template <int kBits, class D, class Fn>
HWY_INLINE void DequantizeBlock(D d, const uint8_t* q, int64_t bytes, float scale, float zero, Fn&& fn) {
  const hn::Rebind<uint8_t, D> du8;
  const hn::Rebind<int32_t, D> di32;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vs = hn::Set(d, scale);
  const auto vzs = hn::Set(d, -zero * scale);
  if constexpr (UseNibbleTable<kBits>(D())) {
    const auto table = hn::MulAdd(hn::Iota(d, 0), vs, vzs);
    for (int64_t j = 0; j < bytes; j += lanes) {
      const auto idx = hn::PromoteTo(di32, hn::LoadU(du8, q + j));
      fn(0, j, Lookup16(d, idx, table));
      fn(1, j, Lookup16(d, hn::ShiftRight<4>(idx), table));
    }
    return;
  }
  constexpr int kPer = 8 / kBits;
  const auto mask = hn::Set(du8, static_cast<uint8_t>((1 << kBits) - 1));
  for (int64_t j = 0; j < bytes; j += lanes) {
    const auto raw = hn::LoadU(du8, q + j);
    for (int s = 0; s < kPer; ++s) {
      const auto v = kBits == 8 ? raw : hn::And(hn::ShiftRightSame(raw, s * kBits), mask);
      fn(s, j, hn::MulAdd(hn::ConvertTo(d, hn::PromoteTo(di32, v)), vs, vzs));
    }
  }
}

// fn(d) with the widest float tag whose lanes divide a slot of `bytes`
// bytes (both are powers of two; a block has at least 4 bytes a slot).
template <class Fn>
HWY_INLINE auto WithSlotTag(int64_t bytes, Fn&& fn) {
  const hn::ScalableTag<float> d;
  if (bytes >= static_cast<int64_t>(hn::Lanes(d))) return fn(d);
  if (bytes >= 8) return fn(hn::CappedTag<float, 8>());
  return fn(hn::CappedTag<float, 4>());
}

// Each block's values meet A in a second FMA. Blocks alternate between two
// pairs of accumulators, even and odd slots apart, so the FMAs do not wait
// on each other (one chain ran at its latency, 1.5x slower); the lanes are
// summed once, at the end of the row.
template <int kBits, class D>
float RowDotT(D d, const uint8_t* packed, const float* a_slots, int64_t blocks, int64_t block, const float* scale,
              const float* zero) {
  const int64_t bytes = block * kBits / 8;
  auto step = [&](int64_t b, hn::Vec<D>& even, hn::Vec<D>& odd) {
    const float* a = a_slots + b * block;
    DequantizeBlock<kBits>(d, packed + b * bytes, bytes, scale[b], zero[b], [&](int s, int64_t j, hn::Vec<D> w) {
      hn::Vec<D>& into = (s & 1) ? odd : even;
      into = hn::MulAdd(w, hn::LoadU(d, a + s * bytes + j), into);
    });
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

float RowDot(const uint8_t* packed, const float* a_slots, int64_t blocks, int64_t block, int bits, const float* scale,
             const float* zero) {
  auto run = [&]<int kBits>() {
    return WithSlotTag(block * kBits / 8,
                       [&](auto d) { return RowDotT<kBits>(d, packed, a_slots, blocks, block, scale, zero); });
  };
  if (bits == 4) return run.template operator()<4>();
  if (bits == 8) return run.template operator()<8>();
  return run.template operator()<2>();
}

void DequantSlots(const uint8_t* packed_row, int64_t b0, int64_t nb, int64_t block, int bits, const float* scale,
                  const float* zero, float* w) {
  auto run = [&]<int kBits>() {
    const int64_t bytes = block * kBits / 8;
    WithSlotTag(bytes, [&](auto d) {
      for (int64_t b = b0; b < b0 + nb; ++b) {
        float* out = w + (b - b0) * block;
        DequantizeBlock<kBits>(d, packed_row + b * bytes, bytes, scale[b], zero[b],
                               [&](int s, int64_t j, auto v) { hn::StoreU(v, d, out + s * bytes + j); });
      }
    });
  };
  if (bits == 4) run.template operator()<4>();
  else if (bits == 8) run.template operator()<8>();
  else run.template operator()<2>();
}

// A tile of kRows x kCols inner products: each step loads kCols weight
// vectors and kRows vectors of A, then kRows * kCols FMAs, one accumulator a
// pair. The accumulators go back to `partial` as vectors: summing their
// lanes after every K chunk cost a fifth of the FMAs' time. Sizes fill the
// register file: AVX-512 holds 6 x 4 accumulators and the 4 + 1 loaded
// vectors in its 32, AVX2 and SSE4 4 x 3 and 3 + 1 in their 16.
#if HWY_TARGET <= HWY_AVX3 || HWY_ARCH_ARM
constexpr int64_t kTileRows = 6, kTileCols = 4;
#else
constexpr int64_t kTileRows = 4, kTileCols = 3;
#endif

template <int64_t kRows, int64_t kCols>
HWY_NOINLINE void TileT(const float* HWY_RESTRICT a, int64_t lda, const float* HWY_RESTRICT w, int64_t ldw,
                        int64_t len, float* HWY_RESTRICT partial) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  hn::Vec<decltype(d)> acc[kRows][kCols];
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < kCols; ++c) acc[r][c] = hn::LoadU(d, partial + (r * kCols + c) * lanes);
  for (int64_t k = 0; k < len; k += lanes) {
    hn::Vec<decltype(d)> wv[kCols];
    for (int64_t c = 0; c < kCols; ++c) wv[c] = hn::LoadU(d, w + c * ldw + k);
    for (int64_t r = 0; r < kRows; ++r) {
      const auto av = hn::LoadU(d, a + r * lda + k);
      for (int64_t c = 0; c < kCols; ++c) acc[r][c] = hn::MulAdd(av, wv[c], acc[r][c]);
    }
  }
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < kCols; ++c) hn::StoreU(acc[r][c], d, partial + (r * kCols + c) * lanes);
}

using TileFn = void (*)(const float*, int64_t, const float*, int64_t, int64_t, float*);

template <size_t... kIs>
constexpr std::array<TileFn, sizeof...(kIs)> TileTable(std::index_sequence<kIs...>) {
  return {&TileT<static_cast<int64_t>(kIs) / kTileCols + 1, static_cast<int64_t>(kIs) % kTileCols + 1>...};
}

void Tile(const float* a, int64_t lda, int64_t rows, const float* w, int64_t ldw, int64_t cols, int64_t len,
          float* partial) {
  static constexpr std::array<TileFn, kTileRows * kTileCols> kBySize =
      TileTable(std::make_index_sequence<kTileRows * kTileCols>());
  kBySize[static_cast<size_t>((rows - 1) * kTileCols + cols - 1)](a, lda, w, ldw, len, partial);
}

void TileSum(const float* partial, int64_t rows, int64_t cols, float* y, int64_t ldy) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      y[r * ldy + c] = hn::GetLane(hn::SumOfLanes(d, hn::LoadU(d, partial + (r * cols + c) * lanes)));
}

void TileSize(int64_t* out) {
  out[0] = kTileRows;
  out[1] = kTileCols;
  out[2] = static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>()));
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::cpu::nbits_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::cpu {
namespace nbits_detail {
HWY_EXPORT(RowDot);
HWY_EXPORT(DequantSlots);
HWY_EXPORT(Tile);
HWY_EXPORT(TileSize);
HWY_EXPORT(TileSum);
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

void DequantSlotsNBits(const uint8_t* packed_row, int64_t b0, int64_t nb, int64_t block, int bits,
                       const float* scale, const float* zero, float* w) {
  HWY_DYNAMIC_DISPATCH(nbits_detail::DequantSlots)(packed_row, b0, nb, block, bits, scale, zero, w);
}

DotTile DotTileInUse() {
  int64_t v[3];
  HWY_DYNAMIC_DISPATCH(nbits_detail::TileSize)(v);
  return {v[0], v[1], v[2]};
}

void DotTileF32(const float* a, int64_t lda, int64_t rows, const float* w, int64_t ldw, int64_t cols, int64_t len,
                float* partial) {
  if (rows <= 0 || cols <= 0) return;
  HWY_DYNAMIC_DISPATCH(nbits_detail::Tile)(a, lda, rows, w, ldw, cols, len, partial);
}

void DotTileSum(const float* partial, int64_t rows, int64_t cols, float* y, int64_t ldy) {
  HWY_DYNAMIC_DISPATCH(nbits_detail::TileSum)(partial, rows, cols, y, ldy);
}

}  // namespace tessera::cpu
#endif  // HWY_ONCE
