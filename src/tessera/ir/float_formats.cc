#include "tessera/ir/float_formats.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace tessera {

namespace {

struct Float8Format {
  int man_bits;
  int bias;
  bool unsigned_zero_nan;  // "fnuz": 0x80 is NaN, there is no -0 and no inf
  bool has_inf;            // e5m2 only
  float max_finite;
};

Float8Format FormatOf(DataType t) {
  switch (t) {
    case DataType::kFloat8E4M3FN: return {3, 7, false, false, 448.0f};
    case DataType::kFloat8E4M3FNUZ: return {3, 8, true, false, 240.0f};
    case DataType::kFloat8E5M2: return {2, 15, false, true, 57344.0f};
    case DataType::kFloat8E5M2FNUZ: return {2, 16, true, false, 57344.0f};
    default: return {3, 7, false, false, 448.0f};
  }
}

uint8_t NanBits(DataType t, uint8_t sign) {
  switch (t) {
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2FNUZ: return 0x80;
    default: return static_cast<uint8_t>(sign | 0x7f);
  }
}

float E8M0ToFloat(uint8_t bits) {
  if (bits == 0xff) return std::numeric_limits<float>::quiet_NaN();
  return std::ldexp(1.0f, static_cast<int>(bits) - 127);
}

// e8m0 holds 2^(code-127) for codes 0..254, 0xff is NaN. The sign is ignored
// (negative inputs are undefined in the spec).
uint8_t FloatToE8M0(float value, bool saturate, E8M0Rounding mode) {
  uint32_t u;
  std::memcpy(&u, &value, 4);
  uint32_t exp = (u >> 23) & 0xff;
  uint32_t man = u & 0x7fffff;
  if (exp == 0xff) {
    if (man != 0) return 0xff;  // NaN
    return saturate ? 0xfe : 0xff;
  }
  if (exp == 0 && man == 0) return saturate ? 0x00 : 0xff;  // zero is below E8M0_MIN
  uint32_t e = exp;
  if (exp == 0) {
    // float32 subnormal: man * 2^-149, below 2^-126. Code 0 is 2^-127 (man
    // 0x400000), code 1 is 2^-126.
    if (!saturate && man < 0x400000) return 0xff;
    switch (mode) {
      case E8M0Rounding::kUp: e = man > 0x400000 ? 1 : 0; break;
      case E8M0Rounding::kDown: e = 0; break;
      case E8M0Rounding::kNearest: e = man >= 0x600000 ? 1 : 0; break;
    }
    return static_cast<uint8_t>(e);
  }
  switch (mode) {
    case E8M0Rounding::kUp:
      if (man != 0) ++e;
      break;
    case E8M0Rounding::kDown: break;
    case E8M0Rounding::kNearest:
      if (man >= 0x400000) ++e;  // ties round up
      break;
  }
  if (e >= 0xff) return saturate ? 0xfe : 0xff;
  return static_cast<uint8_t>(e);
}

}  // namespace

bool ParseE8M0Rounding(const char* name, E8M0Rounding* out) {
  if (name == nullptr) return false;
  if (std::strcmp(name, "up") == 0) *out = E8M0Rounding::kUp;
  else if (std::strcmp(name, "down") == 0) *out = E8M0Rounding::kDown;
  else if (std::strcmp(name, "nearest") == 0) *out = E8M0Rounding::kNearest;
  else return false;
  return true;
}

float Float8ToFloat(DataType type, uint8_t bits) {
  if (type == DataType::kFloat8E8M0) return E8M0ToFloat(bits);
  Float8Format f = FormatOf(type);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  if (f.unsigned_zero_nan && bits == 0x80) return nan;
  int exp_bits = 7 - f.man_bits;
  uint8_t sign = bits & 0x80;
  int e = (bits >> f.man_bits) & ((1 << exp_bits) - 1);
  int m = bits & ((1 << f.man_bits) - 1);
  if (type == DataType::kFloat8E4M3FN && (bits & 0x7f) == 0x7f) return nan;
  if (f.has_inf && e == (1 << exp_bits) - 1) {
    if (m == 0) return sign ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
    return nan;
  }
  float v;
  if (e == 0)
    v = std::ldexp(static_cast<float>(m), 1 - f.bias - f.man_bits);
  else
    v = std::ldexp(1.0f + static_cast<float>(m) / static_cast<float>(1 << f.man_bits), e - f.bias);
  return sign ? -v : v;
}

uint8_t FloatToFloat8(DataType type, float value, bool saturate, const char* round_mode) {
  E8M0Rounding mode = E8M0Rounding::kUp;
  ParseE8M0Rounding(round_mode, &mode);
  return FloatToFloat8(type, value, saturate, mode);
}

uint8_t FloatToFloat8(DataType type, float value, bool saturate, E8M0Rounding round_mode) {
  if (type == DataType::kFloat8E8M0) return FloatToE8M0(value, saturate, round_mode);
  Float8Format f = FormatOf(type);
  uint8_t sign = std::signbit(value) ? 0x80 : 0;
  if (std::isnan(value)) return NanBits(type, sign);
  const uint8_t max_bits = type == DataType::kFloat8E4M3FN ? 0x7e : type == DataType::kFloat8E5M2 ? 0x7b : 0x7f;
  if (std::isinf(value)) {
    if (saturate) return static_cast<uint8_t>(sign | max_bits);
    if (f.has_inf) return static_cast<uint8_t>(sign | 0x7c);
    return NanBits(type, sign);
  }
  double a = std::fabs(static_cast<double>(value));
  if (a == 0) return f.unsigned_zero_nan ? 0 : sign;
  int exp;
  std::frexp(a, &exp);  // a = frac * 2^exp, frac in [0.5, 1)
  int e_unbiased = exp - 1;
  int min_normal_exp = 1 - f.bias;
  int quantum_exp = (e_unbiased < min_normal_exp ? min_normal_exp : e_unbiased) - f.man_bits;
  double scaled = std::ldexp(a, -quantum_exp);
  // Round half to even, independent of the FP environment's rounding mode.
  double fl = std::floor(scaled);
  double rem = scaled - fl;
  double k = fl;
  if (rem > 0.5 || (rem == 0.5 && std::fmod(fl, 2.0) != 0)) k = fl + 1;
  double rounded = std::ldexp(k, quantum_exp);
  if (rounded > f.max_finite) {
    if (saturate) return static_cast<uint8_t>(sign | max_bits);
    if (f.has_inf) return static_cast<uint8_t>(sign | 0x7c);
    return NanBits(type, sign);
  }
  if (rounded == 0) return f.unsigned_zero_nan ? 0 : sign;
  int rexp;
  std::frexp(rounded, &rexp);
  int re = rexp - 1;
  uint8_t bits;
  if (re < min_normal_exp) {
    int m = static_cast<int>(std::ldexp(rounded, f.bias - 1 + f.man_bits));
    bits = static_cast<uint8_t>(m);
  } else {
    int m = static_cast<int>(std::ldexp(rounded, f.man_bits - re)) - (1 << f.man_bits);
    bits = static_cast<uint8_t>(((re + f.bias) << f.man_bits) | m);
  }
  return static_cast<uint8_t>(sign | bits);
}

float Float4E2M1ToFloat(uint8_t nibble) {
  static const float kValues[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  float v = kValues[nibble & 7];
  return (nibble & 8) ? -v : v;
}

uint8_t FloatToFloat4E2M1(float value, bool saturate) {
  (void)saturate;  // float4e2m1 has no inf/NaN: out-of-range values always clamp
  if (std::isnan(value)) return 0x8;
  uint8_t sign = std::signbit(value) ? 8 : 0;
  double a = std::fabs(static_cast<double>(value));
  if (a >= 6.0) return static_cast<uint8_t>(sign | 7);
  // Representable magnitudes: 0, .5, 1, 1.5, 2, 3, 4, 6 (codes 0..7).
  static const double kValues[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  int best = 0;
  for (int c = 1; c < 8; ++c) {
    double lo = kValues[c - 1], hi = kValues[c];
    if (a >= hi) {
      best = c;
      continue;
    }
    if (a > lo) {
      double mid = (lo + hi) / 2;
      if (a > mid || (a == mid && (c % 2 == 0))) best = c;
      else best = c - 1;
    }
    break;
  }
  return static_cast<uint8_t>(sign | best);
}

float DoubleToFloatRoundToOdd(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || std::isinf(f) || static_cast<double>(f) == d) return f;
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 1u) == 0) {
    // f is the even neighbour; the odd one lies between f and d.
    if (std::fabs(static_cast<double>(f)) > std::fabs(d)) --u;
    else ++u;
  }
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace tessera
