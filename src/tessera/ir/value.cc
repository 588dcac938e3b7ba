#include "tessera/ir/value.h"

namespace tessera {

std::string Value::Describe() const {
  if (is_tensor()) return "tensor " + tensor().Describe();
  if (is_sequence()) return "sequence of " + std::to_string(sequence().items.size());
  if (is_map()) return "map";
  if (is_none()) return "empty optional";
  return "no value";
}

}  // namespace tessera
