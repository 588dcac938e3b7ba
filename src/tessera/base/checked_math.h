// Overflow-checked size arithmetic: element counts and byte sizes come from
// untrusted model files and feeds.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/base/status.h"

namespace tessera {

inline int64_t CheckedMul(int64_t a, int64_t b, const char* what) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) TS_THROW(kResourceExhausted, what, ": size overflows 64 bits");
  return r;
}

inline int64_t CheckedAdd(int64_t a, int64_t b, const char* what) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) TS_THROW(kResourceExhausted, what, ": size overflows 64 bits");
  return r;
}

// Product of dims; throws on a negative dim or overflow.
inline int64_t CheckedElementCount(const std::vector<int64_t>& dims, const char* what = "tensor") {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) TS_THROW(kInvalidArgument, what, ": negative dimension ", d);
    n = CheckedMul(n, d, what);
  }
  return n;
}

}  // namespace tessera
