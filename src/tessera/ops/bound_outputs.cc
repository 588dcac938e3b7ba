#include "tessera/ops/bound_outputs.h"

#include <cstdint>

namespace tessera {
namespace {

thread_local const BoundOutputMap* t_bound = nullptr;

}  // namespace

ScopedBoundOutputs::ScopedBoundOutputs(const BoundOutputMap* outputs) : previous_(t_bound) { t_bound = outputs; }

ScopedBoundOutputs::~ScopedBoundOutputs() { t_bound = previous_; }

const Tensor* ScopedBoundOutputs::Find(const std::string& name, DataType dtype, const Shape& shape) {
  if (t_bound == nullptr || name.empty()) return nullptr;
  auto it = t_bound->find(name);
  if (it == t_bound->end()) return nullptr;
  const Tensor& t = it->second;
  if (t.dtype() != dtype || t.shape() != shape || !t.on_host() || t.raw_data() == nullptr) return nullptr;
  if (reinterpret_cast<uintptr_t>(t.raw_data()) % 64 != 0) return nullptr;
  return &t;
}

}  // namespace tessera
