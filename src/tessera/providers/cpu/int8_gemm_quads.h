// The quad form of the int8 GEMM (int8_gemm.h): B as int8, four k-values a
// word, multiplied by A as uint8 with AVX512_VNNI's vpdpbusd, the zero
// points applied afterwards from row and column sums. Internal to
// int8_gemm.cc.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/providers/cpu/int8_gemm.h"

namespace tessera::cpu::int8_quads {

// B [k, n] (row kk at rows[kk]) as panels of 16 columns x 4 k-values
// (bytes): as int8 (uint8 less 128), or with `as_unsigned` as uint8 (int8
// plus 128, the byte-quad form of int8_gemm_maddubs.h); colsum[j] the sum
// of column j's stored values, zeros[j] its zero point in their terms.
// PrepareB sizes the storage and sets the zero points (and clears the
// sums); PackPanels then packs panels [p0, p1), on any thread (panels are
// independent), and adds up the column sums unless colsum is null (an A
// whose zero points are all 0 in the stored terms never reads them).
void PrepareB(bool is_signed, bool as_unsigned, int64_t n, ZeroPoints zero, int64_t quad_steps,
              std::vector<int8_t>& quad, std::vector<int32_t>& colsum, std::vector<int32_t>& zeros);
void PackPanels(bool is_signed, bool as_unsigned, int64_t k, int64_t n, const uint8_t* const* rows,
                int64_t quad_steps, int64_t p0, int64_t p1, int8_t* quad, int32_t* colsum);

// Columns [j_begin, j_end) of C, as Int8GemmS32; `vnni` runs the vpdpbusd
// kernel (the CPU has AVX512_VNNI), else a portable loop over the same
// packed data (a target other than the one that packed, in tests). With
// `requant`, the last k-block stores requantized bytes instead of C
// (the portable loop: as well as C); earlier k-blocks still add up in C.
// With `packed` (non-null words), A comes packed and `a` is not read.
void Gemm(bool vnni, int64_t m, int64_t j_begin, int64_t j_end, bool a_signed, const void* a, int64_t lda,
          ZeroPoints a_zero, const PackedInt8B& b, int32_t* c, int64_t ldc, const Int8Requant* requant = nullptr,
          PackedInt8A::View packed = {});

// A's rows packed whole for PackedInt8A: [panel][steps][12] words, and each
// row's zero-point terms.
void PackWholeA(bool a_signed, int64_t m, int64_t k, const void* a, int64_t lda, ZeroPoints a_zero,
                std::vector<uint32_t>& words, std::vector<uint32_t>& za, std::vector<uint32_t>& centered);

}  // namespace tessera::cpu::int8_quads
