// y[i] = table[x[i]]: the 256-entry lookups of the 8-bit ops (QLinearSigmoid,
// QLinearLeakyRelu, QLinearConcat's requantized inputs). With AVX512_VBMI,
// under a cap that allows AVX-512, 64 bytes at a time by two two-register
// byte permutes (vpermi2b) and a blend on the index's high bit; with AVX2,
// 32 at a time by 16 byte shuffles (vpshufb); a plain loop elsewhere.
#pragma once

#include <cstdint>

namespace tessera::cpu {

void LookupBytes(const uint8_t* table, const uint8_t* x, int64_t n, uint8_t* y);
// Whether LookupBytes takes the VBMI path here (tests).
bool LookupBytesUsesVbmi();
// Whether it takes the AVX2 path (no VBMI; the CPU and the cap allow AVX2).
bool LookupBytesUsesAvx2();

}  // namespace tessera::cpu
