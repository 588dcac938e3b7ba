// Linear quantization: QuantizeLinear, DequantizeLinear (per-tensor, per-axis
// and blocked, every quantized type ONNX defines: 8/16-bit ints, int32 input
// for dequantization, packed int4/uint4/int2/uint2, the float8 kinds and
// float4e2m1) and DynamicQuantizeLinear.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>

#include "tessera/ir/float_formats.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/dynamic_quantization.h"
#include "tessera/providers/cpu/simd_int32.h"

namespace tessera::cpu {

namespace {

bool IsQuantizedType(DataType t) {
  switch (t) {
    case DataType::kInt8:
    case DataType::kUInt8:
    case DataType::kInt16:
    case DataType::kUInt16:
    case DataType::kInt4:
    case DataType::kUInt4:
    case DataType::kInt2:
    case DataType::kUInt2:
    case DataType::kFloat4E2M1: return true;
    default: return IsFloat8(t);
  }
}

// Rounds a float to the precision of `t` (float16 / bfloat16) and back; other
// types leave it unchanged.
inline float RoundToPrecision(DataType t, float v) {
  if (t == DataType::kFloat16) return HalfToFloat(FloatToHalf(v));
  if (t == DataType::kBFloat16) return BFloat16ToFloat(FloatToBFloat16(v));
  return v;
}

// Round half to even without a libm call (the default rounding mode rounds
// the addition); magnitudes >= 2^51 are integers already or far beyond any
// quantized range.
inline double RoundHalfEven(double v) {
  constexpr double kMagic = 6755399441055744.0;  // 1.5 * 2^52
  if (std::fabs(v) < 2251799813685248.0) return (v + kMagic) - kMagic;
  return v;
}

// Element k of a tensor of any scale/zero-point/quantized type, as double
// (exact for every type involved here).
double ReadElement(const Tensor& t, int64_t k) {
  const uint8_t* b = static_cast<const uint8_t*>(t.raw_data());
  switch (t.dtype()) {
    case DataType::kFloat: return t.data<float>()[k];
    case DataType::kDouble: return t.data<double>()[k];
    case DataType::kFloat16: return HalfToFloat(t.data<uint16_t>()[k]);
    case DataType::kBFloat16: return BFloat16ToFloat(t.data<uint16_t>()[k]);
    case DataType::kInt8: return t.data<int8_t>()[k];
    case DataType::kUInt8: return t.data<uint8_t>()[k];
    case DataType::kInt16: return t.data<int16_t>()[k];
    case DataType::kUInt16: return t.data<uint16_t>()[k];
    case DataType::kInt32: return t.data<int32_t>()[k];
    case DataType::kUInt32: return t.data<uint32_t>()[k];
    case DataType::kInt64: return static_cast<double>(t.data<int64_t>()[k]);
    case DataType::kUInt64: return static_cast<double>(t.data<uint64_t>()[k]);
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0: return Float8ToFloat(t.dtype(), b[k]);
    case DataType::kUInt4: return (b[k >> 1] >> ((k & 1) * 4)) & 0xF;
    case DataType::kInt4: {
      int v = (b[k >> 1] >> ((k & 1) * 4)) & 0xF;
      return v >= 8 ? v - 16 : v;
    }
    case DataType::kFloat4E2M1: return Float4E2M1ToFloat(static_cast<uint8_t>((b[k >> 1] >> ((k & 1) * 4)) & 0xF));
    case DataType::kUInt2: return (b[k >> 2] >> ((k & 3) * 2)) & 0x3;
    case DataType::kInt2: {
      int v = (b[k >> 2] >> ((k & 3) * 2)) & 0x3;
      return v >= 2 ? v - 4 : v;
    }
    default: return 0.0;
  }
}

// ---- quantized element codecs ----------------------------------------------
// Decode(base, k): element k as double. Encode(base, k, q, zp): stores the
// quantization of q = x / scale with zero point zp. Packed encoders OR their
// bits into a zero-initialized buffer.

template <typename T>
struct StdIntCodec {
  static constexpr int kGroup = 1;
  double Decode(const void* base, int64_t k) const { return static_cast<double>(static_cast<const T*>(base)[k]); }
  void Encode(void* base, int64_t k, double q, double zp) const {
    double r = RoundHalfEven(q);
    if (std::isnan(r)) r = 0;
    r += zp;
    constexpr double lo = static_cast<double>(std::numeric_limits<T>::min());
    constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
    r = std::min(hi, std::max(lo, r));
    static_cast<T*>(base)[k] = static_cast<T>(r);
  }
};

template <int kBits, bool kSigned>
struct PackedIntCodec {
  static constexpr int kPerByte = 8 / kBits;
  static constexpr int kGroup = kPerByte;
  static constexpr int kMask = (1 << kBits) - 1;
  static constexpr int kLo = kSigned ? -(1 << (kBits - 1)) : 0;
  static constexpr int kHi = kSigned ? (1 << (kBits - 1)) - 1 : (1 << kBits) - 1;
  double Decode(const void* base, int64_t k) const {
    const uint8_t* b = static_cast<const uint8_t*>(base);
    int v = (b[k / kPerByte] >> ((k % kPerByte) * kBits)) & kMask;
    if (kSigned && v > kHi) v -= (1 << kBits);
    return v;
  }
  void Encode(void* base, int64_t k, double q, double zp) const {
    double r = RoundHalfEven(q);
    if (std::isnan(r)) r = 0;
    r += zp;
    r = std::min<double>(kHi, std::max<double>(kLo, r));
    int v = static_cast<int>(r) & kMask;
    static_cast<uint8_t*>(base)[k / kPerByte] |= static_cast<uint8_t>(v << ((k % kPerByte) * kBits));
  }
};

struct Float8Codec {
  static constexpr int kGroup = 1;
  DataType type;
  bool saturate;
  double Decode(const void* base, int64_t k) const { return Float8ToFloat(type, static_cast<const uint8_t*>(base)[k]); }
  void Encode(void* base, int64_t k, double q, double zp) const {
    const float v = DoubleToFloatRoundToOdd(q + zp);
    static_cast<uint8_t*>(base)[k] = FloatToFloat8(type, v, saturate);
  }
};

struct Float4Codec {
  static constexpr int kGroup = 2;
  double Decode(const void* base, int64_t k) const {
    const uint8_t* b = static_cast<const uint8_t*>(base);
    return Float4E2M1ToFloat(static_cast<uint8_t>((b[k >> 1] >> ((k & 1) * 4)) & 0xF));
  }
  void Encode(void* base, int64_t k, double q, double zp) const {
    const float v = DoubleToFloatRoundToOdd(q + zp);
    uint8_t nib = FloatToFloat4E2M1(v, true) & 0xF;
    static_cast<uint8_t*>(base)[k >> 1] |= static_cast<uint8_t>(nib << ((k & 1) * 4));
  }
};

// Calls fn(codec) with the codec of quantized type dt (int32 included, for
// dequantization).
template <typename Fn>
void DispatchCodec(DataType dt, bool saturate, const KernelContext& ctx, Fn&& fn) {
  switch (dt) {
    case DataType::kInt8: fn(StdIntCodec<int8_t>{}); return;
    case DataType::kUInt8: fn(StdIntCodec<uint8_t>{}); return;
    case DataType::kInt16: fn(StdIntCodec<int16_t>{}); return;
    case DataType::kUInt16: fn(StdIntCodec<uint16_t>{}); return;
    case DataType::kInt32: fn(StdIntCodec<int32_t>{}); return;
    case DataType::kInt4: fn(PackedIntCodec<4, true>{}); return;
    case DataType::kUInt4: fn(PackedIntCodec<4, false>{}); return;
    case DataType::kInt2: fn(PackedIntCodec<2, true>{}); return;
    case DataType::kUInt2: fn(PackedIntCodec<2, false>{}); return;
    case DataType::kFloat4E2M1: fn(Float4Codec{}); return;
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ: fn(Float8Codec{dt, saturate}); return;
    default: ctx.Fail("quantized type ", DataTypeName(dt), " is not supported");
  }
}

// How element k of x maps to its scale / zero point: with k = (o*D + d)*inner + i,
// the parameter index is o*outer_stride + (d / block)*axis_stride + i*inner_stride.
struct ParamLayout {
  int64_t D = 1, inner = 1;
  int64_t block = 1;
  int64_t outer_stride = 0, axis_stride = 0, inner_stride = 0;
};

// Validates the scale (and zero point) shape against x and derives the layout.
ParamLayout ResolveLayout(const Tensor& x, const Tensor& scale, const Tensor* zp, int64_t axis_attr, int64_t block_size,
                          const char* scale_name, const KernelContext& ctx) {
  if (zp != nullptr && zp->numel() != scale.numel() &&
      !(zp->numel() == 1 && scale.numel() == 1))
    ctx.Fail("zero point shape ", ShapeToString(zp->shape()), " does not match ", scale_name, " shape ",
             ShapeToString(scale.shape()));
  if (zp != nullptr && zp->shape() != scale.shape() && !(zp->numel() == 1 && scale.numel() == 1))
    ctx.Fail("zero point shape ", ShapeToString(zp->shape()), " does not match ", scale_name, " shape ",
             ShapeToString(scale.shape()));
  ParamLayout L;
  const int64_t n = x.numel();
  const int64_t r = x.rank();
  if (block_size <= 0) {
    if (scale.numel() == 1 && scale.rank() <= 1) {  // per-tensor
      L.inner = n;
      return L;
    }
    if (scale.rank() != 1)
      ctx.Fail(scale_name, " of shape ", ShapeToString(scale.shape()),
               " must be a scalar or a 1-D tensor (per-axis) when block_size is 0");
    if (r == 0) ctx.Fail("per-axis ", scale_name, " needs an input of rank >= 1");
    int64_t axis = NormalizeAxis(axis_attr, r, ctx);
    L.D = x.dim(axis);
    if (scale.dim(0) != L.D)
      ctx.Fail(scale_name, " has ", scale.dim(0), " elements but input dimension ", axis, " is ", L.D);
    L.inner = SizeFromDim(x.shape(), static_cast<size_t>(axis) + 1);
    L.axis_stride = 1;
    return L;
  }
  if (r == 0) ctx.Fail("blocked quantization needs an input of rank >= 1");
  int64_t axis = NormalizeAxis(axis_attr, r, ctx);
  if (scale.rank() != r)
    ctx.Fail("blocked ", scale_name, " of shape ", ShapeToString(scale.shape()), " must have the rank of the input ",
             ShapeToString(x.shape()));
  for (int64_t j = 0; j < r; ++j) {
    if (j == axis) continue;
    if (scale.dim(j) != x.dim(j))
      ctx.Fail("blocked ", scale_name, " shape ", ShapeToString(scale.shape()), " does not match input shape ",
               ShapeToString(x.shape()), " outside axis ", axis);
  }
  L.D = x.dim(axis);
  const int64_t S = scale.dim(axis);
  const int64_t want = (L.D + block_size - 1) / block_size;
  if (S != want)
    ctx.Fail("block_size ", block_size, " gives ", want, " blocks along axis ", axis, " (dimension ", L.D, ") but ",
             scale_name, " has ", S);
  L.block = block_size;
  L.inner = SizeFromDim(x.shape(), static_cast<size_t>(axis) + 1);
  L.inner_stride = 1;
  L.axis_stride = L.inner;
  L.outer_stride = S * L.inner;
  return L;
}

// Visits [b, e) of the flat index space, calling fn(k, param_index).
template <typename Fn>
inline void WalkParams(const ParamLayout& L, int64_t b, int64_t e, Fn&& fn) {
  if (b >= e) return;
  int64_t i = b % L.inner;
  int64_t row = b / L.inner;
  int64_t d = row % L.D;
  int64_t o = row / L.D;
  int64_t k = b;
  while (k < e) {
    const int64_t base = o * L.outer_stride + (d / L.block) * L.axis_stride;
    const int64_t stop = std::min(e, k + (L.inner - i));
    for (; k < stop; ++k, ++i) fn(k, base + i * L.inner_stride);
    i = 0;
    if (++d == L.D) {
      d = 0;
      ++o;
    }
  }
}

constexpr int64_t kChunk = 1 << 14;

// The per-tensor float <-> 8-bit forms, as QDQ models write them around
// every layer, on the SIMD kernels of simd_int32.h; bit for bit what the
// general paths below compute.
void QuantizePerTensor(ThreadPool* pool, const float* x, int64_t n, float s, float zp, bool out_signed, void* y) {
  ParallelFor(pool, n, kChunk, [&](int64_t b, int64_t e) {
    QuantizeF32(x + b, e - b, s, zp, out_signed, static_cast<uint8_t*>(y) + b);
  });
}

void DequantizePerTensor(ThreadPool* pool, const void* x, bool in_signed, int64_t n, float s, float zp, float* y) {
  ParallelFor(pool, n, kChunk, [&](int64_t b, int64_t e) {
    DequantizeToF32(static_cast<const uint8_t*>(x) + b, in_signed, e - b, s, zp, y + b);
  });
}


// A type-valued attribute, read from opset `since` on: kUndefined when
// absent or 0, else a known type that `allowed` accepts (`expected` words
// the error).
template <typename Allowed>
DataType TypeAttr(const KernelInfo& info, const char* name, int64_t since, Allowed&& allowed, const char* expected) {
  const int64_t v = info.opset() >= since ? info.attr_int(name, 0) : 0;
  if (v == 0) return DataType::kUndefined;
  if (!IsKnownDataType(static_cast<int32_t>(v)) || !allowed(static_cast<DataType>(v)))
    info.Fail(name, " ", v, " ", expected);
  return static_cast<DataType>(v);
}

bool IsFloatOrHalf(DataType t) {
  return t == DataType::kFloat || t == DataType::kFloat16 || t == DataType::kBFloat16;
}

// ---- QuantizeLinear -----------------------------------------------------------
class QuantizeLinear final : public OpKernel {
 public:
  explicit QuantizeLinear(const KernelInfo& info) : opset_(info.opset()) {
    axis_ = opset_ >= 13 ? info.attr_int("axis", 1) : 1;
    saturate_ = opset_ >= 19 ? info.attr_int("saturate", 1) != 0 : true;
    block_size_ = opset_ >= 21 ? info.attr_int("block_size", 0) : 0;
    if (block_size_ < 0) info.Fail("block_size must be >= 0, got ", block_size_);
    output_dtype_ =
        TypeAttr(info, "output_dtype", 21, IsQuantizedType, "is not a quantized type QuantizeLinear supports");
    precision_ = TypeAttr(info, "precision", 23, [](DataType t) { return IsFloatOrHalf(t) || t == DataType::kDouble; },
                          "must be float, float16, bfloat16 or double");
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const Tensor* zp = ctx.optional_input(2);
    const DataType xt = x.dtype();
    if (xt != DataType::kFloat && xt != DataType::kFloat16 && xt != DataType::kBFloat16 && xt != DataType::kInt32 &&
        xt != DataType::kDouble)
      ctx.Fail("input type ", DataTypeName(xt), " is not supported (expected float, float16, bfloat16 or int32)");
    const DataType st = scale.dtype();
    if (st != DataType::kFloat && st != DataType::kFloat16 && st != DataType::kBFloat16 && st != DataType::kInt32 &&
        st != DataType::kFloat8E8M0 && st != DataType::kDouble)
      ctx.Fail("y_scale type ", DataTypeName(st), " is not supported");

    DataType out_type = DataType::kUInt8;
    if (zp != nullptr) {
      out_type = zp->dtype();
      if (output_dtype_ != DataType::kUndefined && output_dtype_ != out_type)
        ctx.Fail("output_dtype ", DataTypeName(output_dtype_), " differs from the y_zero_point type ",
                 DataTypeName(out_type));
    } else if (output_dtype_ != DataType::kUndefined) {
      out_type = output_dtype_;
    }
    if (!IsQuantizedType(out_type)) ctx.Fail("y_zero_point type ", DataTypeName(out_type), " is not supported");

    const ParamLayout L = ResolveLayout(x, scale, zp, axis_, block_size_, "y_scale", ctx);

    // Precision of the division: the precision attribute, else the scale's type.
    DataType prec = precision_;
    if (prec == DataType::kUndefined)
      prec = (st == DataType::kFloat16 || st == DataType::kBFloat16 || st == DataType::kDouble) ? st : DataType::kFloat;

    const int64_t np = scale.numel();
    std::vector<double> sc(static_cast<size_t>(np));
    std::vector<double> zpv(static_cast<size_t>(np), 0.0);
    for (int64_t j = 0; j < np; ++j) {
      double s = ReadElement(scale, j);
      sc[static_cast<size_t>(j)] = prec == DataType::kDouble ? s : RoundToPrecision(prec, static_cast<float>(s));
      if (zp != nullptr) zpv[static_cast<size_t>(j)] = ReadElement(*zp, zp->numel() == 1 ? 0 : j);
    }

    Tensor& y = ctx.allocate_output(0, out_type, x.shape());
    const int64_t n = x.numel();
    if (n == 0) return;
    if (np == 1 && xt == DataType::kFloat && prec == DataType::kFloat &&
        (out_type == DataType::kUInt8 || out_type == DataType::kInt8)) {
      const float s = static_cast<float>(sc[0]), z = static_cast<float>(zpv[0]);
      QuantizePerTensor(ctx.thread_pool(), x.data<float>(), n, s, z, out_type == DataType::kInt8, y.raw_data());
      return;
    }
    if (IsSubByte(out_type)) std::memset(y.raw_data(), 0, y.nbytes());
    void* ybase = y.raw_data();

    DispatchCodec(out_type, saturate_, ctx, [&](auto codec) {
      using Codec = decltype(codec);
      auto run = [&](auto load) {
        const int64_t groups = (n + Codec::kGroup - 1) / Codec::kGroup;
        ParallelFor(ctx.thread_pool(), groups, std::max<int64_t>(1, kChunk / Codec::kGroup), [&](int64_t gb, int64_t ge) {
          const int64_t b = gb * Codec::kGroup, e = std::min(n, ge * Codec::kGroup);
          WalkParams(L, b, e, [&](int64_t k, int64_t p) {
            const double xv = load(k);
            const double s = sc[static_cast<size_t>(p)];
            double q;
            if (prec == DataType::kDouble) {
              q = xv / s;
            } else {
              const float xf = RoundToPrecision(prec, static_cast<float>(xv));
              q = RoundToPrecision(prec, xf / static_cast<float>(s));
            }
            codec.Encode(ybase, k, q, zpv[static_cast<size_t>(p)]);
          });
        });
      };
      switch (xt) {
        case DataType::kFloat: {
          const float* px = x.data<float>();
          run([px](int64_t k) { return static_cast<double>(px[k]); });
          break;
        }
        case DataType::kDouble: {
          const double* px = x.data<double>();
          run([px](int64_t k) { return px[k]; });
          break;
        }
        case DataType::kFloat16: {
          const uint16_t* px = x.data<uint16_t>();
          run([px](int64_t k) { return static_cast<double>(HalfToFloat(px[k])); });
          break;
        }
        case DataType::kBFloat16: {
          const uint16_t* px = x.data<uint16_t>();
          run([px](int64_t k) { return static_cast<double>(BFloat16ToFloat(px[k])); });
          break;
        }
        default: {
          const int32_t* px = x.data<int32_t>();
          run([px](int64_t k) { return static_cast<double>(px[k]); });
          break;
        }
      }
    });
  }

 private:
  int64_t opset_;
  int64_t axis_ = 1;
  bool saturate_ = true;
  int64_t block_size_ = 0;
  DataType output_dtype_ = DataType::kUndefined;
  DataType precision_ = DataType::kUndefined;
};

// ---- DequantizeLinear ---------------------------------------------------------
class DequantizeLinear final : public OpKernel {
 public:
  explicit DequantizeLinear(const KernelInfo& info) : opset_(info.opset()) {
    axis_ = opset_ >= 13 ? info.attr_int("axis", 1) : 1;
    block_size_ = opset_ >= 21 ? info.attr_int("block_size", 0) : 0;
    if (block_size_ < 0) info.Fail("block_size must be >= 0, got ", block_size_);
    output_dtype_ = TypeAttr(info, "output_dtype", 23, IsFloatOrHalf, "must be float, float16 or bfloat16");
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const Tensor* zp = ctx.optional_input(2);
    const DataType xt = x.dtype();
    if (xt != DataType::kInt32 && !IsQuantizedType(xt))
      ctx.Fail("input type ", DataTypeName(xt), " is not a quantized type DequantizeLinear supports");
    if (zp != nullptr && zp->dtype() != xt)
      ctx.Fail("x_zero_point type ", DataTypeName(zp->dtype()), " differs from the input type ", DataTypeName(xt));
    const DataType st = scale.dtype();
    if (st != DataType::kFloat && st != DataType::kFloat16 && st != DataType::kBFloat16 && st != DataType::kFloat8E8M0)
      ctx.Fail("x_scale type ", DataTypeName(st), " is not supported");
    DataType out_type = output_dtype_;
    if (out_type == DataType::kUndefined) {
      if (st == DataType::kFloat8E8M0) ctx.Fail("output_dtype must be given when x_scale is float8e8m0");
      out_type = st;
    }

    const ParamLayout L = ResolveLayout(x, scale, zp, axis_, block_size_, "x_scale", ctx);
    const int64_t np = scale.numel();
    std::vector<float> sc(static_cast<size_t>(np));
    std::vector<double> zpv(static_cast<size_t>(np), 0.0);
    for (int64_t j = 0; j < np; ++j) {
      sc[static_cast<size_t>(j)] = static_cast<float>(ReadElement(scale, j));
      if (zp != nullptr) zpv[static_cast<size_t>(j)] = ReadElement(*zp, zp->numel() == 1 ? 0 : j);
    }

    Tensor& y = ctx.allocate_output(0, out_type, x.shape());
    const int64_t n = x.numel();
    if (n == 0) return;
    if (np == 1 && out_type == DataType::kFloat && (xt == DataType::kUInt8 || xt == DataType::kInt8)) {
      const float z = static_cast<float>(zpv[0]);
      DequantizePerTensor(ctx.thread_pool(), x.raw_data(), xt == DataType::kInt8, n, sc[0], z, y.data<float>());
      return;
    }
    const void* xbase = x.raw_data();

    DispatchCodec(xt, true, ctx, [&](auto codec) {
      auto run = [&](auto store) {
        ParallelFor(ctx.thread_pool(), n, kChunk, [&](int64_t b, int64_t e) {
          WalkParams(L, b, e, [&](int64_t k, int64_t p) {
            const float diff = static_cast<float>(codec.Decode(xbase, k) - zpv[static_cast<size_t>(p)]);
            store(k, diff * sc[static_cast<size_t>(p)]);
          });
        });
      };
      switch (out_type) {
        case DataType::kFloat: {
          float* py = y.data<float>();
          run([py](int64_t k, float v) { py[k] = v; });
          break;
        }
        case DataType::kFloat16: {
          uint16_t* py = y.data<uint16_t>();
          run([py](int64_t k, float v) { py[k] = FloatToHalf(v); });
          break;
        }
        default: {
          uint16_t* py = y.data<uint16_t>();
          run([py](int64_t k, float v) { py[k] = FloatToBFloat16(v); });
          break;
        }
      }
    });
  }

 private:
  int64_t opset_;
  int64_t axis_ = 1;
  int64_t block_size_ = 0;
  DataType output_dtype_ = DataType::kUndefined;
};

// ---- DynamicQuantizeLinear ------------------------------------------------------
class DynamicQuantizeLinear final : public OpKernel {
 public:
  explicit DynamicQuantizeLinear(const KernelInfo&) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::kFloat) ctx.Fail("input type ", DataTypeName(x.dtype()), " is not supported (expected float)");
    Tensor& y = ctx.allocate_output(0, DataType::kUInt8, x.shape());
    const DynamicQuantization q = DynamicQuantizeU8(x.data<float>(), x.numel(), y.data<uint8_t>(), ctx.thread_pool());
    const float scale = q.scale;
    const uint8_t zp = q.zero;
    if (ctx.output_requested(1)) ctx.allocate_output(1, DataType::kFloat, {}).data<float>()[0] = scale;
    if (ctx.output_requested(2)) ctx.allocate_output(2, DataType::kUInt8, {}).data<uint8_t>()[0] = zp;
  }
};

std::vector<DataType> QuantizeInputTypes(int64_t opset) {
  if (opset < 19) return {DataType::kFloat, DataType::kInt32};
  return {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16, DataType::kInt32};
}

std::vector<DataType> DequantizeInputTypes(int64_t opset) {
  std::vector<DataType> t = {DataType::kInt8, DataType::kUInt8, DataType::kInt32};
  if (opset >= 19)
    for (DataType d : {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2,
                       DataType::kFloat8E5M2FNUZ})
      t.push_back(d);
  if (opset >= 21)
    for (DataType d : {DataType::kInt16, DataType::kUInt16, DataType::kInt4, DataType::kUInt4}) t.push_back(d);
  if (opset >= 23) t.push_back(DataType::kFloat4E2M1);
  if (opset >= 25)
    for (DataType d : {DataType::kInt2, DataType::kUInt2}) t.push_back(d);
  return t;
}

}  // namespace

DynamicQuantization DynamicQuantizeU8(const float* x, int64_t n, uint8_t* y, ThreadPool* pool) {
  // The range always includes 0.
  float lo = 0.0f, hi = 0.0f;
  RangeWithZeroF32(x, n, &lo, &hi);
  constexpr float qmin = 0.0f, qmax = 255.0f;
  // A constant-zero input has no range; scale 1 keeps every output finite.
  const float scale = hi == lo ? 1.0f : (hi - lo) / (qmax - qmin);
  const float zpf = std::nearbyint(std::min(qmax, std::max(qmin, qmin - lo / scale)));
  // QuantizeLinear's per-tensor kernel.
  ParallelFor(pool, n, kChunk, [&](int64_t b, int64_t e) { QuantizeF32(x + b, e - b, scale, zpf, false, y + b); });
  return {scale, static_cast<uint8_t>(zpf)};
}

std::vector<KernelRow> QuantizationKernels() {
  std::vector<KernelRow> rows;
  const int64_t bounds[] = {10, 13, 19, 21, 23, 24, 25, kMaxOnnxOpset + 1};
  for (size_t i = 0; i + 1 < std::size(bounds); ++i) {
    rows.push_back({"ai.onnx", "QuantizeLinear", bounds[i], bounds[i + 1] - 1, QuantizeInputTypes(bounds[i]),
                    Make<QuantizeLinear>()});
    rows.push_back({"ai.onnx", "DequantizeLinear", bounds[i], bounds[i + 1] - 1, DequantizeInputTypes(bounds[i]),
                    Make<DequantizeLinear>()});
  }
  rows.push_back({"ai.onnx", "DynamicQuantizeLinear", 11, kMaxOnnxOpset, {DataType::kFloat},
                  Make<DynamicQuantizeLinear>()});
  // ONNX Runtime's com.microsoft QuantizeLinear / DequantizeLinear (its
  // quantizer wrote them before ONNX had 16-bit and 4-bit types): the
  // opset-21 semantics, an axis attribute for 1-D scales, no block size.
  auto as_opset21 = []<typename K>() -> KernelFactory {
    return [](const KernelInfo& info) -> std::unique_ptr<OpKernel> {
      if (info.has_attr("block_size")) info.Fail("com.microsoft's form has no block_size attribute");
      return std::make_unique<K>(KernelInfo(info.node(), 21, info.owner_graph()));
    };
  };
  rows.push_back({kMicrosoftDomain, "QuantizeLinear", 1, 1, {DataType::kFloat, DataType::kFloat16},
                  as_opset21.template operator()<QuantizeLinear>()});
  rows.push_back({kMicrosoftDomain, "DequantizeLinear", 1, 1,
                  {DataType::kInt8, DataType::kUInt8, DataType::kInt16, DataType::kUInt16, DataType::kInt4,
                   DataType::kUInt4, DataType::kInt32},
                  as_opset21.template operator()<DequantizeLinear>()});
  return rows;
}

}  // namespace tessera::cpu
