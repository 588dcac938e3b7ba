// Shared helpers for CPU kernels: type dispatch, broadcasting, axis handling.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/base/half.h"
#include "tessera/ops/kernel.h"

namespace tessera::cpu {

// ---- element access for the 16-bit floats --------------------------------
// Kernels compute float16/bfloat16 in float and round back once per element.
template <typename T> struct Compute { using type = T; };
template <> struct Compute<Float16> { using type = float; };
template <> struct Compute<BFloat16> { using type = float; };

template <typename T>
inline typename Compute<T>::type Load(const T& v) { return v; }
template <> inline float Load<Float16>(const Float16& v) { return HalfToFloat(v.bits); }
template <> inline float Load<BFloat16>(const BFloat16& v) { return BFloat16ToFloat(v.bits); }

template <typename T, typename C>
inline T StoreAs(C v) { return static_cast<T>(v); }
template <> inline Float16 StoreAs<Float16, float>(float v) { return Float16{FloatToHalf(v)}; }
template <> inline BFloat16 StoreAs<BFloat16, float>(float v) { return BFloat16{FloatToBFloat16(v)}; }
template <> inline Float16 StoreAs<Float16, double>(double v) { return Float16{FloatToHalf(static_cast<float>(v))}; }
template <> inline BFloat16 StoreAs<BFloat16, double>(double v) {
  return BFloat16{FloatToBFloat16(static_cast<float>(v))};
}

// ---- element types -----------------------------------------------------------
// In namespace cpu, not beside DataType: a predicate there would be found by
// argument-dependent lookup next to each kernel file's own one.
// float8e4m3fn, float8e4m3fnuz, float8e5m2, float8e5m2fnuz: the float8
// formats with sign, exponent and mantissa.
inline bool IsFloat8(DataType t) {
  return t == DataType::kFloat8E4M3FN || t == DataType::kFloat8E4M3FNUZ || t == DataType::kFloat8E5M2 ||
         t == DataType::kFloat8E5M2FNUZ;
}
// IsFloat8 or float8e8m0 (an exponent alone: the scale of the MX formats).
inline bool IsFloat8OrE8M0(DataType t) { return IsFloat8(t) || t == DataType::kFloat8E8M0; }

// ---- type dispatch ---------------------------------------------------------
// Calls fn.template operator()<T>() for the C++ type matching dt, or fails.
// Usage: DispatchFloat(dt, ctx, [&]<typename T>() { ... });
template <typename Fn>
void DispatchFloat(DataType dt, const KernelContext& ctx, Fn&& fn) {
  switch (dt) {
    case DataType::kFloat: fn.template operator()<float>(); return;
    case DataType::kDouble: fn.template operator()<double>(); return;
    case DataType::kFloat16: fn.template operator()<Float16>(); return;
    case DataType::kBFloat16: fn.template operator()<BFloat16>(); return;
    default: ctx.Fail("element type ", DataTypeName(dt), " is not supported (expected a float type)");
  }
}

template <typename Fn>
void DispatchInt(DataType dt, const KernelContext& ctx, Fn&& fn) {
  switch (dt) {
    case DataType::kInt8: fn.template operator()<int8_t>(); return;
    case DataType::kInt16: fn.template operator()<int16_t>(); return;
    case DataType::kInt32: fn.template operator()<int32_t>(); return;
    case DataType::kInt64: fn.template operator()<int64_t>(); return;
    case DataType::kUInt8: fn.template operator()<uint8_t>(); return;
    case DataType::kUInt16: fn.template operator()<uint16_t>(); return;
    case DataType::kUInt32: fn.template operator()<uint32_t>(); return;
    case DataType::kUInt64: fn.template operator()<uint64_t>(); return;
    default: ctx.Fail("element type ", DataTypeName(dt), " is not supported (expected an integer type)");
  }
}

template <typename Fn>
void DispatchNumeric(DataType dt, const KernelContext& ctx, Fn&& fn) {
  if (IsFloatingPoint(dt) && (dt == DataType::kFloat || dt == DataType::kDouble || dt == DataType::kFloat16 ||
                              dt == DataType::kBFloat16))
    DispatchFloat(dt, ctx, fn);
  else
    DispatchInt(dt, ctx, fn);
}

// Numeric plus bool: for kernels that compute on values (compare, count).
template <typename Fn>
void DispatchNumericBool(DataType dt, const KernelContext& ctx, Fn&& fn) {
  if (dt == DataType::kBool) {
    fn.template operator()<bool>();
    return;
  }
  DispatchNumeric(dt, ctx, fn);
}

// Numeric plus bool and string: for data-movement kernels that only copy.
template <typename Fn>
void DispatchAll(DataType dt, const KernelContext& ctx, Fn&& fn) {
  switch (dt) {
    case DataType::kBool: fn.template operator()<bool>(); return;
    case DataType::kString: fn.template operator()<std::string>(); return;
    default: DispatchNumeric(dt, ctx, fn);
  }
}

// The element types of the kernels that move or compare elements without
// arithmetic (gather, scatter, NonZero, Unique): numeric, bool, string, complex.
std::vector<DataType> MovementTypes();

// Byte-wise kernels (copy/gather/transposes) only need the element size.
inline size_t ElementSize(const Tensor& t) { return static_cast<size_t>(ElementBits(t.dtype()) / 8); }

// ---- data movement ----------------------------------------------------------
struct Word128 {
  uint64_t lo, hi;
};

// For kernels that only move elements: calls fn.template operator()<W>() with
// W a type of the element's size (uint8_t ... uint64_t, Word128), or
// std::string for strings. Packed sub-byte types are refused.
template <typename Fn>
void DispatchWord(DataType dt, const KernelContext& ctx, Fn&& fn) {
  if (dt == DataType::kString) {
    fn.template operator()<std::string>();
    return;
  }
  switch (ElementBits(dt)) {
    case 8: fn.template operator()<uint8_t>(); return;
    case 16: fn.template operator()<uint16_t>(); return;
    case 32: fn.template operator()<uint32_t>(); return;
    case 64: fn.template operator()<uint64_t>(); return;
    case 128: fn.template operator()<Word128>(); return;
    default: ctx.Fail("element type ", DataTypeName(dt), " is not supported here");
  }
}

// Copies n elements (memcpy for words, assignment for strings).
template <typename W>
inline void CopyN(const W* src, int64_t n, W* dst) {
  if constexpr (std::is_same_v<W, std::string>) {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
  } else {
    if (n > 0) std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(W));
  }
}

// ---- axes -----------------------------------------------------------------
// Maps a possibly negative axis into [0, rank); fails with the node's label.
inline int64_t NormalizeAxis(int64_t axis, int64_t rank, const KernelContext& ctx) {
  if (axis < -rank || axis >= rank) ctx.Fail("axis ", axis, " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}
inline int64_t NormalizeAxis(int64_t axis, int64_t rank, const KernelInfo& info) {
  if (axis < -rank || axis >= rank) info.Fail("axis ", axis, " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

inline int64_t SizeFromDim(const Shape& s, size_t from) {
  int64_t n = 1;
  for (size_t i = from; i < s.size(); ++i) n *= s[i];
  return n;
}
inline int64_t SizeToDim(const Shape& s, size_t to) {
  int64_t n = 1;
  for (size_t i = 0; i < to && i < s.size(); ++i) n *= s[i];
  return n;
}
std::vector<int64_t> StridesOf(const Shape& s);

// ---- broadcasting -----------------------------------------------------------
// Numpy-style multidirectional broadcast of several shapes.
Shape BroadcastShapes(const std::vector<Shape>& shapes, const KernelContext& ctx);

// Walks the output of a broadcast in order, yielding each input's flat offset.
// Inner runs are contiguous for inputs whose trailing dims match the output,
// which the elementwise kernels exploit.
class BroadcastIndexer {
 public:
  BroadcastIndexer(const Shape& out_shape, const std::vector<Shape>& in_shapes);
  // Calls fn(out_offset, in_offsets[], n, in_steps[]) for runs of n output
  // elements along the innermost dim; in_steps[k] is 0 or 1.
  template <typename Fn>
  void ForEachRun(Fn&& fn) const;
  int64_t out_size() const { return out_size_; }

 private:
  Shape out_shape_;
  std::vector<std::vector<int64_t>> in_strides_;  // per input, per out dim (0 = broadcast)
  int64_t out_size_ = 1;
};

template <typename Fn>
void BroadcastIndexer::ForEachRun(Fn&& fn) const {
  size_t rank = out_shape_.size();
  size_t k = in_strides_.size();
  std::vector<int64_t> offs(k, 0), steps(k, 0);
  if (out_size_ == 0) return;
  if (rank == 0) {
    fn(int64_t{0}, offs.data(), int64_t{1}, steps.data());
    return;
  }
  int64_t inner = out_shape_[rank - 1];
  for (size_t j = 0; j < k; ++j) steps[j] = in_strides_[j][rank - 1];
  std::vector<int64_t> idx(rank, 0);
  int64_t outer = out_size_ / inner;
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t j = 0; j < k; ++j) {
      int64_t off = 0;
      for (size_t d = 0; d + 1 < rank; ++d) off += idx[d] * in_strides_[j][d];
      offs[j] = off;
    }
    fn(o * inner, offs.data(), inner, steps.data());
    for (size_t d = rank - 1; d-- > 0;) {
      if (++idx[d] < out_shape_[d]) break;
      idx[d] = 0;
    }
  }
}

// Copies n elements from src[src_off..] to dst[dst_off..] (same element type,
// whole bytes or strings; callers refuse packed sub-byte types).
void CopyElements(const Tensor& src, int64_t src_off, Tensor& dst, int64_t dst_off, int64_t n);

// Reads an int64/int32 tensor as a vector of int64 (shape-like inputs).
std::vector<int64_t> ReadInts(const Tensor& t);

// Input `input` when it is a constant, with its zero point (input
// `zp_input`) when that is a constant too, or absent (null): the quantized
// weights kernels pack at creation. Nullopt when either can vary.
struct ConstantWithZeroPoint {
  const Tensor* value;
  const Tensor* zero_point;
};
std::optional<ConstantWithZeroPoint> ConstantWithZeroPointOf(const KernelInfo& info, size_t input, size_t zp_input);

}  // namespace tessera::cpu
