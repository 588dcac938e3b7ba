// Helpers shared by the data-movement kernels (tensor_shape.cc,
// tensor_layout.cc): element-size dispatch that treats every element type as
// an opaque word of its size (strings as std::string objects), sub-byte
// unpacking, and a general strided copy / transpose.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tessera/providers/common/kernel_util.h"

namespace tessera::cpu::layout {

using ::tessera::cpu::CopyN;
using ::tessera::cpu::DispatchWord;
using ::tessera::cpu::Word128;

// Sub-byte tensors (int4, uint4, float4e2m1, int2, uint2) are packed low bits
// first; these convert to/from one uint8 per element holding the raw bits.
inline Tensor UnpackSubByte(const Tensor& t) {
  Tensor out(DataType::kUInt8, t.shape());
  int bits = ElementBits(t.dtype());
  int per = 8 / bits;
  uint8_t mask = static_cast<uint8_t>((1u << bits) - 1);
  const auto* src = static_cast<const uint8_t*>(t.raw_data());
  uint8_t* dst = out.data<uint8_t>();
  for (int64_t i = 0; i < t.numel(); ++i)
    dst[i] = static_cast<uint8_t>((src[i / per] >> ((i % per) * bits)) & mask);
  return out;
}

inline Tensor PackSubByte(const Tensor& u8, DataType dt) {
  Tensor out(dt, u8.shape());
  int bits = ElementBits(dt);
  int per = 8 / bits;
  uint8_t mask = static_cast<uint8_t>((1u << bits) - 1);
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  if (out.nbytes() > 0) std::memset(dst, 0, out.nbytes());
  const uint8_t* src = u8.data<uint8_t>();
  for (int64_t i = 0; i < u8.numel(); ++i)
    dst[i / per] = static_cast<uint8_t>(dst[i / per] | ((src[i] & mask) << ((i % per) * bits)));
  return out;
}

// Runs fn(tensor) -> Tensor on t; sub-byte tensors go through an unpacked
// uint8 copy and the result is packed back into t's type.
template <typename Fn>
Tensor WithUnpacked(const Tensor& t, Fn&& fn) {
  if (!IsSubByte(t.dtype())) return fn(t);
  Tensor r = fn(UnpackSubByte(t));
  return PackSubByte(r, t.dtype());
}
// Same, for kernels producing several outputs.
template <typename Fn>
std::vector<Tensor> WithUnpackedMulti(const Tensor& t, Fn&& fn) {
  if (!IsSubByte(t.dtype())) return fn(t);
  std::vector<Tensor> r = fn(UnpackSubByte(t));
  for (auto& x : r) x = PackSubByte(x, t.dtype());
  return r;
}

// Removes size-1 dims and merges dims that stay adjacent in a strided view.
// shape/strides describe a view over a source; the output is walked row-major.
void CoalesceStrided(Shape& shape, std::vector<int64_t>& src_strides);

// Copies the strided view (shape, src_strides in elements, starting at src)
// into dst densely, row-major. Uses contiguous runs and a tiled path when the
// source's unit-stride dim is not the innermost output dim.
void StridedCopy(const void* src, void* dst, const Shape& shape, const std::vector<int64_t>& src_strides,
                 DataType dt, const KernelContext& ctx);

// Transposes t by perm (output dim i = input dim perm[i]); t must not be sub-byte.
Tensor TransposeTensor(const Tensor& t, const std::vector<int64_t>& perm, const KernelContext& ctx);

}  // namespace tessera::cpu::layout
