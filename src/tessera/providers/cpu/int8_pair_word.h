// The word layout of the int8 GEMM's pair form (int8_gemm.h), shared by its
// kernels (int8_gemm.cc) and B's packing (int8_packed_b.cc).
#pragma once

#include <cstdint>

namespace tessera::cpu::int8_gemm_detail {

// Two centered values as the int16 pair of one 32-bit word, the first in
// the low half (the lane order of the pairwise multiply-add).
inline int32_t PairWord(int32_t lo, int32_t hi) {
  return static_cast<int32_t>((static_cast<uint32_t>(static_cast<uint16_t>(lo))) |
                              (static_cast<uint32_t>(static_cast<uint16_t>(hi)) << 16));
}

}  // namespace tessera::cpu::int8_gemm_detail
