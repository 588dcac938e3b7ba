// The int8 GEMM's packed forms (int8_gemm.h), each forced in turn where the
// CPU would pick another, for tests that must cover all of them on any
// host: what the CPU picks, pairs (vpmaddwd), byte quads (vpmaddubsw with
// split pairs; a portable loop below AVX2).
#pragma once

#include "tessera/providers/cpu/int8_gemm.h"

namespace tessera::test {

struct Int8Form {
  const char* name;
  int vnni, byte_quads;  // SetInt8GemmVnniForTest, SetInt8GemmByteQuadsForTest
};
inline constexpr Int8Form kInt8Forms[] = {{"the CPU's form", -1, -1}, {"pairs", 0, 0}, {"byte quads", 0, 1}};
inline constexpr Int8Form kByteQuadsForm = kInt8Forms[2];

// Forces `form` for its lifetime, then restores the CPU's choice.
class ScopedInt8Form {
 public:
  explicit ScopedInt8Form(const Int8Form& form) {
    cpu::SetInt8GemmVnniForTest(form.vnni);
    cpu::SetInt8GemmByteQuadsForTest(form.byte_quads);
  }
  ~ScopedInt8Form() {
    cpu::SetInt8GemmVnniForTest(-1);
    cpu::SetInt8GemmByteQuadsForTest(-1);
  }
  ScopedInt8Form(const ScopedInt8Form&) = delete;
  ScopedInt8Form& operator=(const ScopedInt8Form&) = delete;
};

}  // namespace tessera::test
