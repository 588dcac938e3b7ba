// Memory a caller bound for graph outputs (ORT's IOBinding with
// preallocated outputs). While a ScopedBoundOutputs is alive on a thread, a
// kernel running on that thread that allocates an output named like a bound
// one, of its element type and shape, gets the bound tensor's memory instead
// of fresh memory, so the result lands there without a copy. Value names
// are unique across a model's graphs (ONNX's SSA rule), so a name picks one
// node output. Memory that is not 64-byte aligned (what kernels' vector
// stores may assume) is not used; the caller then copies the result in.
#pragma once

#include <string>
#include <unordered_map>

#include "tessera/ir/tensor.h"

namespace tessera {

using BoundOutputMap = std::unordered_map<std::string, Tensor>;

class ScopedBoundOutputs {
 public:
  explicit ScopedBoundOutputs(const BoundOutputMap* outputs);
  ~ScopedBoundOutputs();
  ScopedBoundOutputs(const ScopedBoundOutputs&) = delete;
  ScopedBoundOutputs& operator=(const ScopedBoundOutputs&) = delete;

  // The bound tensor an output `name` of this type and shape may use on this
  // thread, or null.
  static const Tensor* Find(const std::string& name, DataType dtype, const Shape& shape);

 private:
  const BoundOutputMap* previous_;
};

}  // namespace tessera
