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
inline ::tessera::DataType InternalType(ElementType type) { return static_cast<::tessera::DataType>(type); }
// kUndefined for the runtime's types the public API does not carry
// (float8, int4...).
inline ElementType PublicType(::tessera::DataType type) {
  int32_t code = static_cast<int32_t>(type);
  return code <= static_cast<int32_t>(ElementType::kBFloat16) ? static_cast<ElementType>(code) : ElementType::kUndefined;
}

}  // namespace detail
}  // namespace tessera::v1
