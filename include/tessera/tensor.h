// A dense tensor passed to and returned from a session: element type, shape
// and the bytes, row-major. Copies of a Tensor share its data; Clone()
// copies it.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/errors.h"
#include "tessera/export.h"

namespace tessera::v1 {

// ONNX's TensorProto.DataType codes, so a type read from a model or from
// ONNX tooling means the same here.
enum class ElementType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
};

// "float", "int64"... as in ONNX's tensor(...) type strings.
TESSERA_API const char* ElementTypeName(ElementType type);
// Bytes one element takes (0 for kUndefined and kString).
TESSERA_API size_t ElementSize(ElementType type);

// The C++ types whose vectors FromVector and ToVector take. 16-bit floats
// have no C++ type: pass their bit patterns through FromBytes/data().
template <typename T> struct ElementTypeOf;
template <> struct ElementTypeOf<float> { static constexpr ElementType value = ElementType::kFloat; };
template <> struct ElementTypeOf<double> { static constexpr ElementType value = ElementType::kDouble; };
template <> struct ElementTypeOf<int8_t> { static constexpr ElementType value = ElementType::kInt8; };
template <> struct ElementTypeOf<int16_t> { static constexpr ElementType value = ElementType::kInt16; };
template <> struct ElementTypeOf<int32_t> { static constexpr ElementType value = ElementType::kInt32; };
template <> struct ElementTypeOf<int64_t> { static constexpr ElementType value = ElementType::kInt64; };
template <> struct ElementTypeOf<uint8_t> { static constexpr ElementType value = ElementType::kUInt8; };
template <> struct ElementTypeOf<uint16_t> { static constexpr ElementType value = ElementType::kUInt16; };
template <> struct ElementTypeOf<uint32_t> { static constexpr ElementType value = ElementType::kUInt32; };
template <> struct ElementTypeOf<uint64_t> { static constexpr ElementType value = ElementType::kUInt64; };
template <> struct ElementTypeOf<bool> { static constexpr ElementType value = ElementType::kBool; };
template <> struct ElementTypeOf<std::complex<float>> { static constexpr ElementType value = ElementType::kComplex64; };
template <> struct ElementTypeOf<std::complex<double>> { static constexpr ElementType value = ElementType::kComplex128; };

class TESSERA_API Tensor {
 public:
  struct Impl;  // the runtime's tensor; defined inside the library

  // An empty tensor (type kUndefined, no data).
  Tensor();
  ~Tensor();
  Tensor(const Tensor&);
  Tensor& operator=(const Tensor&);
  Tensor(Tensor&&) noexcept;
  Tensor& operator=(Tensor&&) noexcept;

  // Fresh zero-filled memory. kString tensors hold empty strings.
  static Tensor Zeros(ElementType type, std::vector<int64_t> shape);
  // A copy of `byte_size` bytes, which must be exactly the shape's size.
  static Tensor FromBytes(ElementType type, std::vector<int64_t> shape, const void* data, size_t byte_size);
  // The caller's memory, not copied: it must stay valid and unchanged while
  // this tensor (or a copy of it) lives and while a run uses it.
  static Tensor View(ElementType type, std::vector<int64_t> shape, void* data, size_t byte_size);
  // A copy of the values; their count must match the shape.
  template <typename T>
  static Tensor FromVector(std::vector<int64_t> shape, const std::vector<T>& values) {
    return FromBytes(ElementTypeOf<T>::value, std::move(shape), values.data(), values.size() * sizeof(T));
  }
  // std::vector<bool> packs its bits, so it has its own overload.
  static Tensor FromVector(std::vector<int64_t> shape, const std::vector<bool>& values);
  static Tensor FromStrings(std::vector<int64_t> shape, const std::vector<std::string>& values);

  bool empty() const noexcept { return impl_ == nullptr; }
  ElementType type() const noexcept;
  const std::vector<int64_t>& shape() const noexcept;
  int64_t element_count() const noexcept;
  size_t byte_size() const noexcept;  // 0 for kString tensors

  // The elements, row-major; null for empty and kString tensors.
  const void* data() const noexcept;
  void* mutable_data() noexcept;
  // The elements as T; throws kInvalidArgument when T is not the tensor's type.
  template <typename T>
  const T* data_as() const {
    return static_cast<const T*>(CheckedData(ElementTypeOf<T>::value));
  }
  template <typename T>
  std::vector<T> ToVector() const {
    const T* begin = data_as<T>();
    return std::vector<T>(begin, begin + element_count());
  }
  std::vector<std::string> ToStrings() const;

  // A copy of the data into fresh memory.
  Tensor Clone() const;
  // "float[1,10]"
  std::string Describe() const;

  // For the library's implementation.
  explicit Tensor(std::shared_ptr<Impl> impl);
  const Impl* impl() const noexcept { return impl_.get(); }

 private:
  const void* CheckedData(ElementType expected) const;

  std::shared_ptr<Impl> impl_;
};

}  // namespace tessera::v1
