// Cast, CastLike and BitCast between every element type ONNX allows: the
// standard numeric types, bool, string, float16/bfloat16, the float8 kinds
// (with saturate / round_mode), float4e2m1 and the packed 4/2-bit integers.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <strings.h>

#include "tessera/ir/float_formats.h"
#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/tensor_layout_util.h"

namespace tessera::cpu {

namespace {

struct CastOptions {
  bool saturate = true;
  E8M0Rounding round_mode = E8M0Rounding::kUp;
};

bool IsStd(DataType t) {
  return t == DataType::kBool || t == DataType::kFloat || t == DataType::kDouble || (IsInteger(t) && !IsSubByte(t));
}

bool IsPackedInt(DataType t) {
  return t == DataType::kInt4 || t == DataType::kUInt4 || t == DataType::kInt2 || t == DataType::kUInt2;
}

// The 11 standard C++ element types.
template <typename Fn>
void DispatchStd(DataType dt, const KernelContext& ctx, Fn&& fn) {
  switch (dt) {
    case DataType::kBool: fn.template operator()<bool>(); return;
    case DataType::kFloat: fn.template operator()<float>(); return;
    case DataType::kDouble: fn.template operator()<double>(); return;
    default:
      if (!IsStd(dt)) ctx.Fail("internal: ", DataTypeName(dt), " is not a standard type");
      DispatchInt(dt, ctx, fn);
  }
}

// Float to integer: truncation toward zero; values outside int64 (and NaN)
// become INT64_MIN before wrapping, as x86 conversions do. Never UB.
template <typename D, typename S>
D FloatToInt(S v) {
  constexpr double k2p63 = 9223372036854775808.0;
  if constexpr (std::is_same_v<D, uint64_t>) {
    if (v >= 0 && static_cast<double>(v) < 2 * k2p63) return static_cast<uint64_t>(v);
  }
  int64_t i;
  if (static_cast<double>(v) > -k2p63 - 1 && static_cast<double>(v) < k2p63)
    i = static_cast<int64_t>(v);
  else
    i = std::numeric_limits<int64_t>::min();
  return static_cast<D>(i);
}

template <typename S, typename D>
inline D Convert(S v) {
  if constexpr (std::is_same_v<D, bool>) {
    return v != S(0);
  } else if constexpr (std::is_same_v<S, bool>) {
    return static_cast<D>(v ? 1 : 0);
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    return FloatToInt<D>(v);
  } else {
    return static_cast<D>(v);
  }
}

// A source value as float for the narrow float encoders (double sources round
// to odd so the second rounding is exact).
template <typename S>
inline float ToNarrowingFloat(S v) {
  if constexpr (std::is_same_v<S, double>) return DoubleToFloatRoundToOdd(v);
  else if constexpr (std::is_same_v<S, int64_t> || std::is_same_v<S, uint64_t>)
    return DoubleToFloatRoundToOdd(static_cast<double>(v));
  else if constexpr (std::is_same_v<S, bool>) return v ? 1.0f : 0.0f;
  else return static_cast<float>(v);
}

// Decode tables for the 8-bit floats.
const float* Float8Table(DataType t) {
  static const auto tables = [] {
    std::vector<std::vector<float>> tb(5, std::vector<float>(256));
    const DataType kinds[5] = {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2,
                               DataType::kFloat8E5M2FNUZ, DataType::kFloat8E8M0};
    for (int k = 0; k < 5; ++k)
      for (int b = 0; b < 256; ++b) tb[static_cast<size_t>(k)][static_cast<size_t>(b)] = Float8ToFloat(kinds[k], static_cast<uint8_t>(b));
    return tb;
  }();
  switch (t) {
    case DataType::kFloat8E4M3FN: return tables[0].data();
    case DataType::kFloat8E4M3FNUZ: return tables[1].data();
    case DataType::kFloat8E5M2: return tables[2].data();
    case DataType::kFloat8E5M2FNUZ: return tables[3].data();
    default: return tables[4].data();
  }
}

// Turns a non-standard source into a standard tensor holding the same values
// exactly: float16/bfloat16/float8/float4 -> float, packed ints -> int64.
Tensor WidenSource(const Tensor& x, const KernelContext& ctx) {
  const DataType dt = x.dtype();
  const int64_t n = x.numel();
  if (IsPackedInt(dt)) {
    Tensor raw = layout::UnpackSubByte(x);
    Tensor out(DataType::kInt64, x.shape());
    const uint8_t* r = raw.data<uint8_t>();
    int64_t* o = out.data<int64_t>();
    const int bits = ElementBits(dt);
    const bool is_signed = dt == DataType::kInt4 || dt == DataType::kInt2;
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = r[i];
      if (is_signed && (v >> (bits - 1)) != 0) v -= (int64_t{1} << bits);
      o[i] = v;
    }
    return out;
  }
  Tensor out(DataType::kFloat, x.shape());
  float* o = out.data<float>();
  if (dt == DataType::kFloat16 || dt == DataType::kBFloat16) {
    const uint16_t* s = static_cast<const uint16_t*>(x.raw_data());
    const bool half = dt == DataType::kFloat16;
    ParallelFor(ctx.thread_pool(), n, 1 << 15, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = half ? HalfToFloat(s[i]) : BFloat16ToFloat(s[i]);
    });
  } else if (IsFloat8OrE8M0(dt)) {
    const uint8_t* s = static_cast<const uint8_t*>(x.raw_data());
    const float* table = Float8Table(dt);
    ParallelFor(ctx.thread_pool(), n, 1 << 15, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = table[s[i]];
    });
  } else if (dt == DataType::kFloat4E2M1) {
    Tensor raw = layout::UnpackSubByte(x);
    const uint8_t* r = raw.data<uint8_t>();
    for (int64_t i = 0; i < n; ++i) o[i] = Float4E2M1ToFloat(r[i]);
  } else {
    ctx.Fail("cannot cast from ", DataTypeName(dt));
  }
  return out;
}

// ---- numbers <-> strings -------------------------------------------------------
std::string FormatFloat(double v, bool is_float) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "INF" : "-INF";
  char buf[64];
  std::to_chars_result r = is_float ? std::to_chars(buf, buf + sizeof(buf), static_cast<float>(v))
                                    : std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

// Shortest "%g"-style text that reads back to the same narrow-float bits.
template <typename Encode>
std::string FormatNarrow(float v, Encode&& encode) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "INF" : "-INF";
  char buf[64];
  auto want = encode(v);
  for (int p = 1; p <= 9; ++p) {
    std::snprintf(buf, sizeof(buf), "%.*g", p, static_cast<double>(v));
    if (encode(std::strtof(buf, nullptr)) == want) return buf;
  }
  return FormatFloat(v, true);
}

bool EqualsNoCase(const std::string& a, const char* b) { return strcasecmp(a.c_str(), b) == 0; }

double ParseDouble(const std::string& s) {
  // Trim surrounding spaces.
  size_t b = s.find_first_not_of(" \t\n\r");
  size_t e = s.find_last_not_of(" \t\n\r");
  std::string t = b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  if (EqualsNoCase(t, "INF") || EqualsNoCase(t, "+INF") || EqualsNoCase(t, "INFINITY") ||
      EqualsNoCase(t, "+INFINITY"))
    return std::numeric_limits<double>::infinity();
  if (EqualsNoCase(t, "-INF") || EqualsNoCase(t, "-INFINITY")) return -std::numeric_limits<double>::infinity();
  if (EqualsNoCase(t, "NaN") || EqualsNoCase(t, "+NaN") || EqualsNoCase(t, "-NaN"))
    return std::numeric_limits<double>::quiet_NaN();
  if (EqualsNoCase(t, "true")) return 1.0;
  if (EqualsNoCase(t, "false")) return 0.0;
  return std::strtod(t.c_str(), nullptr);  // non-numeric text is undefined in the spec; yields 0
}

// Parses strings into a standard tensor: integers (exactly) for integer/bool
// targets, double otherwise.
Tensor ParseStrings(const Tensor& x, DataType to) {
  const std::string* s = x.data<std::string>();
  const int64_t n = x.numel();
  const bool int_target = IsInteger(to) && IsStd(to);
  if (int_target) {
    const bool is_unsigned = IsUnsignedInteger(to);
    Tensor out(is_unsigned ? DataType::kUInt64 : DataType::kInt64, x.shape());
    for (int64_t i = 0; i < n; ++i) {
      const std::string& str = s[i];
      errno = 0;
      char* end = nullptr;
      const char* c = str.c_str();
      if (is_unsigned) {
        unsigned long long v = std::strtoull(c, &end, 10);
        if (end == c || *end != '\0' || errno != 0) v = static_cast<unsigned long long>(
            FloatToInt<uint64_t>(ParseDouble(str)));
        out.data<uint64_t>()[i] = v;
      } else {
        long long v = std::strtoll(c, &end, 10);
        if (end == c || *end != '\0' || errno != 0) v = FloatToInt<int64_t>(ParseDouble(str));
        out.data<int64_t>()[i] = v;
      }
    }
    return out;
  }
  Tensor out(DataType::kDouble, x.shape());
  for (int64_t i = 0; i < n; ++i) out.data<double>()[i] = ParseDouble(s[i]);
  return out;
}

Tensor CastTensor(const Tensor& x, DataType to, const CastOptions& opt, const KernelContext& ctx);

Tensor ToStrings(const Tensor& x, const CastOptions& opt, const KernelContext& ctx) {
  const DataType dt = x.dtype();
  Tensor out(DataType::kString, x.shape());
  std::string* o = out.data<std::string>();
  const int64_t n = x.numel();
  if (dt == DataType::kFloat16 || dt == DataType::kBFloat16) {
    const uint16_t* s = static_cast<const uint16_t*>(x.raw_data());
    const bool half = dt == DataType::kFloat16;
    for (int64_t i = 0; i < n; ++i) {
      float v = half ? HalfToFloat(s[i]) : BFloat16ToFloat(s[i]);
      o[i] = half ? FormatNarrow(v, [](float f) { return FloatToHalf(f); })
                  : FormatNarrow(v, [](float f) { return FloatToBFloat16(f); });
    }
    return out;
  }
  if (IsFloat8OrE8M0(dt)) {
    const uint8_t* s = static_cast<const uint8_t*>(x.raw_data());
    const float* table = Float8Table(dt);
    for (int64_t i = 0; i < n; ++i)
      o[i] = FormatNarrow(table[s[i]], [&](float f) { return FloatToFloat8(dt, f, true, opt.round_mode); });
    return out;
  }
  if (!IsStd(dt)) return ToStrings(WidenSource(x, ctx), opt, ctx);
  DispatchStd(dt, ctx, [&]<typename S>() {
    const S* s = x.data<S>();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<S, bool>) o[i].assign(1, s[i] ? '1' : '0');
      else if constexpr (std::is_same_v<S, float>) o[i] = FormatFloat(s[i], true);
      else if constexpr (std::is_same_v<S, double>) o[i] = FormatFloat(s[i], false);
      else o[i] = std::to_string(s[i]);
    }
  });
  return out;
}

// Standard source -> any non-string target.
template <typename S>
Tensor CastFromStd(const Tensor& x, DataType to, const CastOptions& opt, const KernelContext& ctx) {
  const S* s = x.data<S>();
  const int64_t n = x.numel();
  constexpr int64_t kChunk = 1 << 14;
  if (IsStd(to)) {
    Tensor out(to, x.shape());
    DispatchStd(to, ctx, [&]<typename D>() {
      D* o = out.data<D>();
      ParallelFor(ctx.thread_pool(), n, kChunk, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) o[i] = Convert<S, D>(s[i]);
      });
    });
    return out;
  }
  if (to == DataType::kFloat16 || to == DataType::kBFloat16) {
    Tensor out(to, x.shape());
    uint16_t* o = static_cast<uint16_t*>(out.raw_data());
    const bool half = to == DataType::kFloat16;
    ParallelFor(ctx.thread_pool(), n, kChunk, [&](int64_t b, int64_t e) {
      if (half)
        for (int64_t i = b; i < e; ++i) o[i] = FloatToHalf(ToNarrowingFloat(s[i]));
      else
        for (int64_t i = b; i < e; ++i) o[i] = FloatToBFloat16(ToNarrowingFloat(s[i]));
    });
    return out;
  }
  if (IsFloat8OrE8M0(to)) {
    Tensor out(to, x.shape());
    uint8_t* o = static_cast<uint8_t*>(out.raw_data());
    ParallelFor(ctx.thread_pool(), n, kChunk, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = FloatToFloat8(to, ToNarrowingFloat(s[i]), opt.saturate, opt.round_mode);
    });
    return out;
  }
  if (to == DataType::kFloat4E2M1 || IsPackedInt(to)) {
    // Raw codes one per byte, then packed.
    Tensor raw(DataType::kUInt8, x.shape());
    uint8_t* o = raw.data<uint8_t>();
    if (to == DataType::kFloat4E2M1) {
      for (int64_t i = 0; i < n; ++i) o[i] = FloatToFloat4E2M1(ToNarrowingFloat(s[i]), opt.saturate);
    } else {
      const uint8_t mask = static_cast<uint8_t>((1u << ElementBits(to)) - 1);
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<uint8_t>(Convert<S, int64_t>(s[i]) & mask);
    }
    return layout::PackSubByte(raw, to);
  }
  ctx.Fail("cannot cast to ", DataTypeName(to));
}

Tensor CastTensor(const Tensor& x, DataType to, const CastOptions& opt, const KernelContext& ctx) {
  const DataType from = x.dtype();
  if (from == to) return x;
  if (from == DataType::kComplex64 || from == DataType::kComplex128 || to == DataType::kComplex64 ||
      to == DataType::kComplex128)
    ctx.Fail("Cast does not support complex types (", DataTypeName(from), " to ", DataTypeName(to), ")");
  if (to == DataType::kString) return ToStrings(x, opt, ctx);
  if (from == DataType::kString) return CastTensor(ParseStrings(x, to), to, opt, ctx);
  if (!IsStd(from)) return CastTensor(WidenSource(x, ctx), to, opt, ctx);
  Tensor out;
  DispatchStd(from, ctx, [&]<typename S>() { out = CastFromStd<S>(x, to, opt, ctx); });
  return out;
}

DataType ParseTypeName(const std::string& name, const KernelInfo& info) {
  static const std::pair<const char*, DataType> kNames[] = {
      {"FLOAT", DataType::kFloat},       {"UINT8", DataType::kUInt8},        {"INT8", DataType::kInt8},
      {"UINT16", DataType::kUInt16},     {"INT16", DataType::kInt16},        {"INT32", DataType::kInt32},
      {"INT64", DataType::kInt64},       {"STRING", DataType::kString},      {"BOOL", DataType::kBool},
      {"FLOAT16", DataType::kFloat16},   {"DOUBLE", DataType::kDouble},      {"UINT32", DataType::kUInt32},
      {"UINT64", DataType::kUInt64},     {"BFLOAT16", DataType::kBFloat16},  {"FLOAT32", DataType::kFloat},
      {"FLOAT64", DataType::kDouble},    {"HALF", DataType::kFloat16},
  };
  for (const auto& [n, t] : kNames)
    if (strcasecmp(n, name.c_str()) == 0) return t;
  info.Fail("unknown element type name '", name, "' in attribute 'to'");
}

CastOptions ParseOptions(const KernelInfo& info) {
  CastOptions opt;
  if (info.opset() >= 19) opt.saturate = info.attr_int("saturate", 1) != 0;
  std::string mode = info.attr_string("round_mode", "up");
  if (!ParseE8M0Rounding(mode.c_str(), &opt.round_mode))
    info.Fail("round_mode must be 'up', 'down' or 'nearest', got '", mode, "'");
  return opt;
}

DataType ParseTo(const KernelInfo& info) {
  const Attribute& a = info.attr("to");
  if (a.type == AttributeType::kString) return ParseTypeName(a.s, info);
  int64_t to = info.attr_int("to");
  if (!IsKnownDataType(static_cast<int32_t>(to)) || to == 0) info.Fail("'to' = ", to, " is not a known element type");
  return static_cast<DataType>(to);
}

class Cast final : public OpKernel {
 public:
  explicit Cast(const KernelInfo& info) : to_(ParseTo(info)), opt_(ParseOptions(info)) {}
  void Compute(KernelContext& ctx) const override { ctx.set_output(0, CastTensor(ctx.input(0), to_, opt_, ctx)); }

 private:
  DataType to_;
  CastOptions opt_;
};

class CastLike final : public OpKernel {
 public:
  explicit CastLike(const KernelInfo& info) : opt_(ParseOptions(info)) {}
  void Compute(KernelContext& ctx) const override {
    ctx.set_output(0, CastTensor(ctx.input(0), ctx.input(1).dtype(), opt_, ctx));
  }

 private:
  CastOptions opt_;
};

class BitCast final : public OpKernel {
 public:
  explicit BitCast(const KernelInfo& info) {
    int64_t to = info.attr_int("to");
    if (!IsKnownDataType(static_cast<int32_t>(to)) || to == 0) info.Fail("'to' = ", to, " is not a known element type");
    to_ = static_cast<DataType>(to);
    if (to_ == DataType::kString) info.Fail("BitCast to string is not supported");
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() == DataType::kString) ctx.Fail("BitCast from string is not supported");
    if (ElementBits(x.dtype()) != ElementBits(to_))
      ctx.Fail("BitCast needs types of the same bit width: ", DataTypeName(x.dtype()), " has ",
               ElementBits(x.dtype()), " bits, ", DataTypeName(to_), " has ", ElementBits(to_));
    Tensor out(to_, x.shape());
    if (out.nbytes() > 0) std::memcpy(out.raw_data(), x.raw_data(), out.nbytes());
    if (to_ == DataType::kBool) {
      // Keep the bit pattern; C++ bools must hold 0/1, so any nonzero byte reads as true.
      auto* b = static_cast<uint8_t*>(out.raw_data());
      for (int64_t i = 0; i < out.numel(); ++i) b[i] = b[i] != 0 ? 1 : 0;
    }
    ctx.set_output(0, out);
  }

 private:
  DataType to_ = DataType::kUndefined;
};

std::vector<DataType> CastTypes(int64_t opset) {
  std::vector<DataType> t = {DataType::kFloat,  DataType::kDouble, DataType::kFloat16, DataType::kInt8,
                             DataType::kInt16,  DataType::kInt32,  DataType::kInt64,   DataType::kUInt8,
                             DataType::kUInt16, DataType::kUInt32, DataType::kUInt64,  DataType::kBool};
  if (opset >= 9) t.push_back(DataType::kString);
  if (opset >= 13) t.push_back(DataType::kBFloat16);
  if (opset >= 19)
    for (DataType d : {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2,
                       DataType::kFloat8E5M2FNUZ})
      t.push_back(d);
  if (opset >= 21) {
    t.push_back(DataType::kInt4);
    t.push_back(DataType::kUInt4);
  }
  if (opset >= 23) t.push_back(DataType::kFloat4E2M1);
  if (opset >= 24) t.push_back(DataType::kFloat8E8M0);
  if (opset >= 25) {
    t.push_back(DataType::kInt2);
    t.push_back(DataType::kUInt2);
  }
  return t;
}

}  // namespace

std::vector<KernelRow> CastKernels() {
  std::vector<KernelRow> rows;
  const int64_t cast_versions[] = {1, 6, 9, 13, 19, 21, 23, 24, 25};
  for (size_t i = 0; i < std::size(cast_versions); ++i) {
    int64_t first = cast_versions[i];
    int64_t last = i + 1 < std::size(cast_versions) ? cast_versions[i + 1] - 1 : kMaxOnnxOpset;
    rows.push_back({"ai.onnx", "Cast", first, last, CastTypes(first), Make<Cast>()});
  }
  const int64_t castlike_versions[] = {15, 19, 21, 23, 24, 25};
  for (size_t i = 0; i < std::size(castlike_versions); ++i) {
    int64_t first = castlike_versions[i];
    int64_t last = i + 1 < std::size(castlike_versions) ? castlike_versions[i + 1] - 1 : kMaxOnnxOpset;
    rows.push_back({"ai.onnx", "CastLike", first, last, CastTypes(first), Make<CastLike>()});
  }
  std::vector<DataType> bitcast_types;
  for (DataType d : types::All())
    if (d != DataType::kString) bitcast_types.push_back(d);
  rows.push_back({"ai.onnx", "BitCast", 26, kMaxOnnxOpset, bitcast_types, Make<BitCast>()});
  return rows;
}

}  // namespace tessera::cpu
