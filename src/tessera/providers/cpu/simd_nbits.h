// The inner products of MatMulNBits (matmul_nbits.cc), per SIMD target:
// rows of weights in blocks of `block` values packed `bits` (2, 4 or 8) a
// value, least significant first, against A laid out by slot. The decode
// pass reads the packed bytes once per row of A (RowDotNBits); the prefill
// pass dequantizes a few weight rows into slot order in L1
// (DequantSlotsNBits) and multiplies every row of A with them (DotTileF32).
#pragma once

#include <cstdint>

namespace tessera::cpu {

// Lays out one block of A (block values) for RowDotNBits: the values a byte
// packs become `8 / bits` slots, a_slots[s * (block * bits / 8) + j] =
// a[j * (8 / bits) + s]. The values past `valid` (a last, partial block)
// are zero, so the padding in the packed weights adds nothing.
void SlotBlockNBits(const float* a, int64_t valid, int64_t block, int bits, float* a_slots);

// sum over blocks b and their values of (q - zero[b]) * scale[b] * a, with q
// the unsigned values in `packed` (blocks * block * bits / 8 bytes, block a
// power of two >= 16) and a laid out block by block by SlotBlockNBits.
float RowDotNBits(const uint8_t* packed, const float* a_slots, int64_t blocks, int64_t block, int bits,
                  const float* scale, const float* zero);

// Blocks [b0, b0 + nb) of one packed weight row, (q - zero[b]) * scale[b],
// written in the slot order SlotBlockNBits gives A: w[(b - b0) * block + s *
// (block * bits / 8) + j] is the value byte j of block b holds in slot s.
// scale and zero point at the row's block 0.
void DequantSlotsNBits(const uint8_t* packed_row, int64_t b0, int64_t nb, int64_t block, int bits,
                       const float* scale, const float* zero, float* w);

// The largest tile DotTileF32 computes in one pass on the target in use,
// and the lanes of its vectors.
struct DotTile {
  int64_t rows, cols, lanes;
};
DotTile DotTileInUse();

// The inner products of `rows` rows of A with `cols` rows of w (at most
// DotTileInUse()) over len values (a multiple of 16), added to `partial`:
// rows * cols vectors of DotTile::lanes floats, row-major, the lanes of each
// one product's partial sums (zero them to start). DotTileSum writes the
// products, y[r * ldy + c] = the sum of vector r * cols + c.
void DotTileF32(const float* a, int64_t lda, int64_t rows, const float* w, int64_t ldw, int64_t cols, int64_t len,
                float* partial);
void DotTileSum(const float* partial, int64_t rows, int64_t cols, float* y, int64_t ldy);

}  // namespace tessera::cpu
