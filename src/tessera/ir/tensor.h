// A dense tensor: element type, shape and a reference-counted buffer. Copies
// of a Tensor share the buffer (views); Clone() copies the data.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/ir/data_type.h"

namespace tessera {

using Shape = std::vector<int64_t>;

std::string ShapeToString(const Shape& shape);

// Owns (or pins) the bytes behind one or more tensors.
class TensorBuffer {
 public:
  // Fresh, 64-byte aligned, uninitialized memory (strings are constructed empty).
  static std::shared_ptr<TensorBuffer> Allocate(DataType dtype, int64_t num_elements);
  // Memory lent by a pool (the runtime's per-run arena): used like
  // Allocate's, owned by this buffer alone; dropping the buffer drops
  // `returner`, whose deleter gives the memory back to the pool.
  static std::shared_ptr<TensorBuffer> FromPool(void* data, size_t bytes, std::shared_ptr<const void> returner);
  // Memory owned elsewhere (an mmap'd file); keepalive pins it.
  static std::shared_ptr<TensorBuffer> Borrow(void* data, size_t bytes, std::shared_ptr<const void> keepalive);
  // Memory on an execution provider's device: data() is null and handle is
  // the provider's buffer object (an OpenCL cl_mem, say); keepalive releases
  // it when the last tensor viewing it goes.
  static std::shared_ptr<TensorBuffer> OnDevice(std::string memory_space, void* handle, size_t bytes,
                                                std::shared_ptr<const void> keepalive);
  ~TensorBuffer();
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  bool borrowed() const { return keepalive_ != nullptr; }
  // "host" for ordinary memory, else the owning provider's memory space.
  const std::string& memory_space() const { return memory_space_; }
  bool on_host() const { return device_handle_ == nullptr; }
  void* device_handle() const { return device_handle_; }

 private:
  TensorBuffer() = default;
  void* data_ = nullptr;
  size_t bytes_ = 0;
  int64_t num_strings_ = 0;  // >0 when data_ holds constructed std::string objects
  std::shared_ptr<const void> keepalive_;
  std::shared_ptr<const void> pool_returner_;
  std::string memory_space_ = "host";
  void* device_handle_ = nullptr;
};

// Where TensorBuffer::Allocate takes host memory on the threads that install
// one (the runtime installs its per-run arena while a graph executes).
class BufferSource {
 public:
  virtual ~BufferSource() = default;
  // A buffer of exactly `bytes` (> 0), or null to fall back to the heap.
  virtual std::shared_ptr<TensorBuffer> Take(size_t bytes) = 0;
};

// Installs a source for the calling thread for its lifetime (nests; null
// installs "the heap").
class ScopedBufferSource {
 public:
  explicit ScopedBufferSource(BufferSource* source);
  ~ScopedBufferSource();
  ScopedBufferSource(const ScopedBufferSource&) = delete;
  ScopedBufferSource& operator=(const ScopedBufferSource&) = delete;

 private:
  BufferSource* previous_;
};

class Tensor {
 public:
  Tensor() = default;
  // Allocates an uninitialized tensor (string elements are empty strings).
  Tensor(DataType dtype, Shape shape);
  // Views existing memory.
  Tensor(DataType dtype, Shape shape, std::shared_ptr<TensorBuffer> buffer, size_t byte_offset = 0);

  template <typename T>
  static Tensor FromVector(const std::vector<T>& values, Shape shape);
  template <typename T>
  static Tensor Scalar(T value) { return FromVector<T>({value}, {}); }

  bool defined() const { return dtype_ != DataType::kUndefined; }
  DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t dim(int64_t i) const { return shape_[static_cast<size_t>(i)]; }
  int64_t numel() const { return numel_; }
  size_t nbytes() const;

  void* raw_data() { return buffer_ ? static_cast<char*>(buffer_->data()) + offset_ : nullptr; }
  const void* raw_data() const { return buffer_ ? static_cast<const char*>(buffer_->data()) + offset_ : nullptr; }
  template <typename T> T* data() { return static_cast<T*>(raw_data()); }
  template <typename T> const T* data() const { return static_cast<const T*>(raw_data()); }

  const std::shared_ptr<TensorBuffer>& buffer() const { return buffer_; }
  // False for tensors in a device's memory: their raw_data() is null and only
  // their provider's kernels and copies may touch them.
  bool on_host() const { return !buffer_ || buffer_->on_host(); }
  size_t byte_offset() const { return offset_; }

  // Same data, new shape with the same element count (no copy).
  Tensor Reshaped(Shape new_shape) const;
  // Deep copy into fresh memory.
  Tensor Clone() const;
  // Element i converted to double / int64 (numeric types only, for shapes,
  // indices and scalar attributes carried as tensors).
  double GetAsDouble(int64_t i) const;
  int64_t GetAsInt64(int64_t i) const;
  std::vector<int64_t> ToInt64Vector() const;

  // "float[2,3]"
  std::string Describe() const;

 private:
  DataType dtype_ = DataType::kUndefined;
  Shape shape_;
  int64_t numel_ = 0;
  std::shared_ptr<TensorBuffer> buffer_;
  size_t offset_ = 0;
};

template <typename T>
Tensor Tensor::FromVector(const std::vector<T>& values, Shape shape) {
  Tensor t(DataTypeOf<T>::value, std::move(shape));
  T* out = t.data<T>();
  for (size_t i = 0; i < values.size() && static_cast<int64_t>(i) < t.numel(); ++i) out[i] = values[i];
  return t;
}

}  // namespace tessera
