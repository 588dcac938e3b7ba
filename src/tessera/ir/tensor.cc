#include "tessera/ir/tensor.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>

#include "tessera/base/checked_math.h"
#include "tessera/base/half.h"
#include "tessera/base/status.h"

namespace tessera {

std::string ShapeToString(const Shape& shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? "," : "") << shape[i];
  os << "]";
  return os.str();
}

namespace {
thread_local BufferSource* t_buffer_source = nullptr;
}  // namespace

ScopedBufferSource::ScopedBufferSource(BufferSource* source) : previous_(t_buffer_source) { t_buffer_source = source; }
ScopedBufferSource::~ScopedBufferSource() { t_buffer_source = previous_; }

std::shared_ptr<TensorBuffer> TensorBuffer::Allocate(DataType dtype, int64_t num_elements) {
  size_t bytes = static_cast<size_t>(StorageBytes(dtype, num_elements));
  if (t_buffer_source != nullptr && bytes > 0 && dtype != DataType::kString) {
    if (auto pooled = t_buffer_source->Take(bytes)) return pooled;
  }
  std::shared_ptr<TensorBuffer> buf(new TensorBuffer());
  buf->bytes_ = bytes;
  size_t alloc = ((bytes == 0 ? 1 : bytes) + 63) / 64 * 64;
  buf->data_ = std::aligned_alloc(64, alloc);
  if (buf->data_ == nullptr) throw std::bad_alloc();
  if (dtype == DataType::kString) {
    auto* s = static_cast<std::string*>(buf->data_);
    for (int64_t i = 0; i < num_elements; ++i) new (s + i) std::string();
    buf->num_strings_ = num_elements;
  }
  return buf;
}

std::shared_ptr<TensorBuffer> TensorBuffer::FromPool(void* data, size_t bytes, std::shared_ptr<const void> returner) {
  std::shared_ptr<TensorBuffer> buf(new TensorBuffer());
  buf->data_ = data;
  buf->bytes_ = bytes;
  buf->pool_returner_ = std::move(returner);
  return buf;
}

std::shared_ptr<TensorBuffer> TensorBuffer::Borrow(void* data, size_t bytes, std::shared_ptr<const void> keepalive) {
  std::shared_ptr<TensorBuffer> buf(new TensorBuffer());
  buf->data_ = data;
  buf->bytes_ = bytes;
  buf->keepalive_ = keepalive ? std::move(keepalive) : std::make_shared<int>(0);
  return buf;
}

std::shared_ptr<TensorBuffer> TensorBuffer::OnDevice(std::string memory_space, void* handle, size_t bytes,
                                                    std::shared_ptr<const void> keepalive) {
  std::shared_ptr<TensorBuffer> buf(new TensorBuffer());
  buf->bytes_ = bytes;
  buf->memory_space_ = std::move(memory_space);
  buf->device_handle_ = handle;
  buf->keepalive_ = keepalive ? std::move(keepalive) : std::make_shared<int>(0);
  return buf;
}

TensorBuffer::~TensorBuffer() {
  if (keepalive_ || pool_returner_) return;
  if (num_strings_ > 0) {
    auto* s = static_cast<std::string*>(data_);
    for (int64_t i = 0; i < num_strings_; ++i) s[i].~basic_string();
  }
  std::free(data_);
}

Tensor::Tensor(DataType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  numel_ = CheckedElementCount(shape_);
  buffer_ = TensorBuffer::Allocate(dtype_, numel_);
}

Tensor::Tensor(DataType dtype, Shape shape, std::shared_ptr<TensorBuffer> buffer, size_t byte_offset)
    : dtype_(dtype), shape_(std::move(shape)), buffer_(std::move(buffer)), offset_(byte_offset) {
  numel_ = CheckedElementCount(shape_);
  if (buffer_ && static_cast<size_t>(StorageBytes(dtype_, numel_)) + offset_ > buffer_->bytes())
    TS_THROW(kInternal, "tensor view ", Describe(), " exceeds its buffer");
}

size_t Tensor::nbytes() const { return static_cast<size_t>(StorageBytes(dtype_, numel_)); }

Tensor Tensor::Reshaped(Shape new_shape) const {
  int64_t n = CheckedElementCount(new_shape);
  if (n != numel_)
    TS_THROW(kInvalidArgument, "cannot reshape ", Describe(), " to ", ShapeToString(new_shape));
  Tensor t = *this;
  t.shape_ = std::move(new_shape);
  return t;
}

Tensor Tensor::Clone() const {
  if (!defined()) return Tensor();
  if (!on_host()) TS_THROW(kInternal, "cannot clone ", Describe(), ": it lives in ", buffer_->memory_space(), " memory");
  Tensor t(dtype_, shape_);
  if (dtype_ == DataType::kString) {
    const auto* src = data<std::string>();
    auto* dst = t.data<std::string>();
    for (int64_t i = 0; i < numel_; ++i) dst[i] = src[i];
  } else if (nbytes() > 0) {
    std::memcpy(t.raw_data(), raw_data(), nbytes());
  }
  return t;
}

double Tensor::GetAsDouble(int64_t i) const {
  if (!on_host()) TS_THROW(kInternal, "cannot read ", Describe(), " on the host: it lives in ", buffer_->memory_space(), " memory");
  switch (dtype_) {
    case DataType::kFloat: return data<float>()[i];
    case DataType::kDouble: return data<double>()[i];
    case DataType::kFloat16: return HalfToFloat(data<uint16_t>()[i]);
    case DataType::kBFloat16: return BFloat16ToFloat(data<uint16_t>()[i]);
    case DataType::kInt8: return data<int8_t>()[i];
    case DataType::kInt16: return data<int16_t>()[i];
    case DataType::kInt32: return data<int32_t>()[i];
    case DataType::kInt64: return static_cast<double>(data<int64_t>()[i]);
    case DataType::kUInt8: return data<uint8_t>()[i];
    case DataType::kUInt16: return data<uint16_t>()[i];
    case DataType::kUInt32: return data<uint32_t>()[i];
    case DataType::kUInt64: return static_cast<double>(data<uint64_t>()[i]);
    case DataType::kBool: return data<bool>()[i] ? 1.0 : 0.0;
    default: TS_THROW(kNotImplemented, "cannot read a ", DataTypeName(dtype_), " element as a number");
  }
}

int64_t Tensor::GetAsInt64(int64_t i) const {
  if (!on_host()) TS_THROW(kInternal, "cannot read ", Describe(), " on the host: it lives in ", buffer_->memory_space(), " memory");
  switch (dtype_) {
    case DataType::kInt8: return data<int8_t>()[i];
    case DataType::kInt16: return data<int16_t>()[i];
    case DataType::kInt32: return data<int32_t>()[i];
    case DataType::kInt64: return data<int64_t>()[i];
    case DataType::kUInt8: return data<uint8_t>()[i];
    case DataType::kUInt16: return data<uint16_t>()[i];
    case DataType::kUInt32: return data<uint32_t>()[i];
    case DataType::kUInt64: return static_cast<int64_t>(data<uint64_t>()[i]);
    case DataType::kBool: return data<bool>()[i] ? 1 : 0;
    default: return static_cast<int64_t>(GetAsDouble(i));
  }
}

std::vector<int64_t> Tensor::ToInt64Vector() const {
  std::vector<int64_t> v(static_cast<size_t>(numel_));
  for (int64_t i = 0; i < numel_; ++i) v[static_cast<size_t>(i)] = GetAsInt64(i);
  return v;
}

std::string Tensor::Describe() const { return std::string(DataTypeName(dtype_)) + ShapeToString(shape_); }

}  // namespace tessera
