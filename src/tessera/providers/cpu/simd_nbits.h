// The inner products of MatMulNBits's decode pass (matmul_nbits.cc), per
// SIMD target: one row of weights, blocks of `block` values packed `bits`
// (2, 4 or 8) a value, least significant first, against A laid out by slot.
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

}  // namespace tessera::cpu
