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

uint8_t FloatToE8M0(float value, bool saturate, const char* round_mode) {
  uint32_t u;
  std::memcpy(&u, &value, 4);
  uint32_t exp = (u >> 23) & 0xff;
  uint32_t man = u & 0x7fffff;
  if (exp == 0xff) {
    if (man != 0) return 0xff;  // NaN
    return saturate ? 0xfe : 0xff;
  }
  std::string mode = round_mode ? round_mode : "up";
  uint32_t e = exp;
  if (exp == 0) {
    // float32 subnormal: below 2^-126; e8m0 0x00 is 2^-127.
    if (mode == "up" && man > 0x400000) e = 1;
    else if (mode == "nearest" && man > 0x600000) e = 1;
    return static_cast<uint8_t>(e);
  }
  if (mode == "up") {
    if (man != 0) ++e;
  } else if (mode == "nearest") {
    if (man > 0x400000 || (man == 0x400000 && (e & 1))) ++e;
  }
  if (e >= 0xff) return saturate ? 0xfe : 0xff;
  return static_cast<uint8_t>(e);
}

}  // namespace

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
  if (type == DataType::kFloat8E8M0) return FloatToE8M0(value, saturate, round_mode);
  Float8Format f = FormatOf(type);
  uint8_t sign = std::signbit(value) ? 0x80 : 0;
  if (std::isnan(value)) return NanBits(type, sign);
  if (std::isinf(value)) {
    if (saturate) return static_cast<uint8_t>((f.unsigned_zero_nan ? sign : sign) | FloatToFloat8(type, f.max_finite, true));
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
  double k = std::nearbyint(scaled);  // default rounding mode: nearest, ties to even
  double rounded = std::ldexp(k, quantum_exp);
  if (rounded > f.max_finite) {
    if (saturate) rounded = f.max_finite;
    else if (f.has_inf) return static_cast<uint8_t>(sign | 0x7c);
    else return NanBits(type, sign);
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
  uint8_t sign = std::signbit(value) ? 8 : 0;
  if (std::isnan(value)) return static_cast<uint8_t>(sign | 7);
  double a = std::fabs(static_cast<double>(value));
  if (std::isinf(value) || a >= 6.0) return static_cast<uint8_t>(sign | 7);
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
  (void)saturate;
  return static_cast<uint8_t>(sign | best);
}

}  // namespace tessera
