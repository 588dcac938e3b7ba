#include "tessera/tensor.h"

#include <cstring>

#include "tessera/api/cpp/error_translation.h"
#include "tessera/api/cpp/tensor_impl.h"

namespace tessera::v1 {

using detail::Guarded;
using detail::InternalType;
using detail::WrapTensor;

namespace {

void CheckPublicType(ElementType type) {
  int32_t code = static_cast<int32_t>(type);
  TS_CHECK(code > 0 && code <= static_cast<int32_t>(ElementType::kBFloat16), kInvalidArgument,
           "element type code ", code, " is not one of tessera::v1::ElementType's");
}

// The byte count a caller passed must be the shape's exact size: a short
// buffer would be read past its end, a long one means a wrong shape.
void CheckByteSize(const ::tessera::Tensor& t, size_t byte_size) {
  TS_CHECK(byte_size == t.nbytes(), kInvalidArgument, "tensor ", t.Describe(), " needs ", t.nbytes(),
           " bytes, got ", byte_size);
}

const std::vector<int64_t>& NoShape() {
  static const std::vector<int64_t> empty;
  return empty;
}

}  // namespace

const char* ElementTypeName(ElementType type) {
  if (type == ElementType::kUndefined) return "undefined";
  return ::tessera::DataTypeName(InternalType(type));
}

size_t ElementSize(ElementType type) {
  if (type == ElementType::kUndefined || type == ElementType::kString) return 0;
  return static_cast<size_t>(::tessera::ElementBits(InternalType(type)) / 8);
}

Tensor::Tensor() = default;
Tensor::~Tensor() = default;
Tensor::Tensor(const Tensor&) = default;
Tensor& Tensor::operator=(const Tensor&) = default;
Tensor::Tensor(Tensor&&) noexcept = default;
Tensor& Tensor::operator=(Tensor&&) noexcept = default;
Tensor::Tensor(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

Tensor Tensor::Zeros(ElementType type, std::vector<int64_t> shape) {
  return Guarded([&] {
    CheckPublicType(type);
    ::tessera::Tensor t(InternalType(type), std::move(shape));
    if (type != ElementType::kString && t.nbytes() > 0) std::memset(t.raw_data(), 0, t.nbytes());
    return WrapTensor(std::move(t));
  });
}

Tensor Tensor::FromBytes(ElementType type, std::vector<int64_t> shape, const void* data, size_t byte_size) {
  return Guarded([&] {
    CheckPublicType(type);
    TS_CHECK(type != ElementType::kString, kInvalidArgument, "string tensors are made with Tensor::FromStrings");
    ::tessera::Tensor t(InternalType(type), std::move(shape));
    CheckByteSize(t, byte_size);
    TS_CHECK(data != nullptr || byte_size == 0, kInvalidArgument, "tensor ", t.Describe(), ": data is null");
    if (byte_size > 0) std::memcpy(t.raw_data(), data, byte_size);
    return WrapTensor(std::move(t));
  });
}

Tensor Tensor::View(ElementType type, std::vector<int64_t> shape, void* data, size_t byte_size) {
  return Guarded([&] {
    CheckPublicType(type);
    TS_CHECK(type != ElementType::kString, kInvalidArgument, "string tensors cannot view caller memory");
    TS_CHECK(data != nullptr || byte_size == 0, kInvalidArgument, "Tensor::View: data is null");
    auto buffer = ::tessera::TensorBuffer::Borrow(data, byte_size, nullptr);
    ::tessera::Tensor probe(InternalType(type), shape, nullptr);
    CheckByteSize(probe, byte_size);
    return WrapTensor(::tessera::Tensor(InternalType(type), std::move(shape), std::move(buffer)));
  });
}

Tensor Tensor::FromVector(std::vector<int64_t> shape, const std::vector<bool>& values) {
  return Guarded([&] {
    ::tessera::Tensor t(::tessera::DataType::kBool, std::move(shape));
    TS_CHECK(static_cast<int64_t>(values.size()) == t.numel(), kInvalidArgument, "tensor ", t.Describe(), " needs ",
             t.numel(), " values, got ", values.size());
    bool* out = t.data<bool>();
    for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
    return WrapTensor(std::move(t));
  });
}

Tensor Tensor::FromStrings(std::vector<int64_t> shape, const std::vector<std::string>& values) {
  return Guarded([&] {
    ::tessera::Tensor t(::tessera::DataType::kString, std::move(shape));
    TS_CHECK(static_cast<int64_t>(values.size()) == t.numel(), kInvalidArgument, "tensor ", t.Describe(), " needs ",
             t.numel(), " strings, got ", values.size());
    std::string* out = t.data<std::string>();
    for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
    return WrapTensor(std::move(t));
  });
}

ElementType Tensor::type() const noexcept {
  return impl_ ? detail::PublicType(impl_->tensor.dtype()) : ElementType::kUndefined;
}
const std::vector<int64_t>& Tensor::shape() const noexcept { return impl_ ? impl_->tensor.shape() : NoShape(); }
int64_t Tensor::element_count() const noexcept { return impl_ ? impl_->tensor.numel() : 0; }
size_t Tensor::byte_size() const noexcept {
  return impl_ && impl_->tensor.dtype() != ::tessera::DataType::kString ? impl_->tensor.nbytes() : 0;
}

const void* Tensor::data() const noexcept {
  if (!impl_ || impl_->tensor.dtype() == ::tessera::DataType::kString) return nullptr;
  return impl_->tensor.raw_data();
}
void* Tensor::mutable_data() noexcept {
  if (!impl_ || impl_->tensor.dtype() == ::tessera::DataType::kString) return nullptr;
  return impl_->tensor.raw_data();
}

const void* Tensor::CheckedData(ElementType expected) const {
  return Guarded([&] {
    TS_CHECK(type() == expected, kInvalidArgument, "tensor ", Describe(), " read as ", ElementTypeName(expected));
    return data();
  });
}

std::vector<std::string> Tensor::ToStrings() const {
  return Guarded([&] {
    TS_CHECK(type() == ElementType::kString, kInvalidArgument, "tensor ", Describe(), " read as strings");
    const std::string* begin = impl_->tensor.data<std::string>();
    return std::vector<std::string>(begin, begin + element_count());
  });
}

Tensor Tensor::Clone() const {
  if (!impl_) return Tensor();
  return Guarded([&] { return WrapTensor(impl_->tensor.Clone()); });
}

std::string Tensor::Describe() const { return impl_ ? impl_->tensor.Describe() : "empty"; }

}  // namespace tessera::v1
