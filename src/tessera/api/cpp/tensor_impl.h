// What a public Tensor holds: the runtime's tensor, so feeds go in and
// outputs come out without a copy.
#pragma once

#include <utility>

#include "tessera/ir/tensor.h"
#include "tessera/tensor.h"

namespace tessera::v1 {

struct Tensor::Impl {
  ::tessera::Tensor tensor;
};

namespace detail {

inline Tensor WrapTensor(::tessera::Tensor tensor) {
  return Tensor(std::make_shared<Tensor::Impl>(Tensor::Impl{std::move(tensor)}));
}

// The runtime's element type for a public one (the codes are ONNX's in both).
// The public enum repeats the runtime's codes (a public header may not include
// ir/data_type.h); the casts below rely on every value matching.
static_assert(static_cast<int32_t>(ElementType::kUndefined) == static_cast<int32_t>(::tessera::DataType::kUndefined));
static_assert(static_cast<int32_t>(ElementType::kFloat) == static_cast<int32_t>(::tessera::DataType::kFloat));
static_assert(static_cast<int32_t>(ElementType::kUInt8) == static_cast<int32_t>(::tessera::DataType::kUInt8));
static_assert(static_cast<int32_t>(ElementType::kInt8) == static_cast<int32_t>(::tessera::DataType::kInt8));
static_assert(static_cast<int32_t>(ElementType::kUInt16) == static_cast<int32_t>(::tessera::DataType::kUInt16));
static_assert(static_cast<int32_t>(ElementType::kInt16) == static_cast<int32_t>(::tessera::DataType::kInt16));
static_assert(static_cast<int32_t>(ElementType::kInt32) == static_cast<int32_t>(::tessera::DataType::kInt32));
static_assert(static_cast<int32_t>(ElementType::kInt64) == static_cast<int32_t>(::tessera::DataType::kInt64));
static_assert(static_cast<int32_t>(ElementType::kString) == static_cast<int32_t>(::tessera::DataType::kString));
static_assert(static_cast<int32_t>(ElementType::kBool) == static_cast<int32_t>(::tessera::DataType::kBool));
static_assert(static_cast<int32_t>(ElementType::kFloat16) == static_cast<int32_t>(::tessera::DataType::kFloat16));
static_assert(static_cast<int32_t>(ElementType::kDouble) == static_cast<int32_t>(::tessera::DataType::kDouble));
static_assert(static_cast<int32_t>(ElementType::kUInt32) == static_cast<int32_t>(::tessera::DataType::kUInt32));
static_assert(static_cast<int32_t>(ElementType::kUInt64) == static_cast<int32_t>(::tessera::DataType::kUInt64));
static_assert(static_cast<int32_t>(ElementType::kComplex64) == static_cast<int32_t>(::tessera::DataType::kComplex64));
static_assert(static_cast<int32_t>(ElementType::kComplex128) == static_cast<int32_t>(::tessera::DataType::kComplex128));
static_assert(static_cast<int32_t>(ElementType::kBFloat16) == static_cast<int32_t>(::tessera::DataType::kBFloat16));

inline ::tessera::DataType InternalType(ElementType type) { return static_cast<::tessera::DataType>(type); }
// kUndefined for the runtime's types the public API does not carry
// (float8, int4...).
inline ElementType PublicType(::tessera::DataType type) {
  int32_t code = static_cast<int32_t>(type);
  return code <= static_cast<int32_t>(ElementType::kBFloat16) ? static_cast<ElementType>(code) : ElementType::kUndefined;
}

}  // namespace detail
}  // namespace tessera::v1
