#include "tessera/ir/value.h"

namespace tessera {

std::string Value::Describe() const {
  if (is_tensor()) return "tensor " + tensor().Describe();
  if (is_sequence()) return "sequence of " + std::to_string(sequence().items.size());
  if (is_map()) return "map";
  if (is_none()) return "empty optional";
  return "no value";
}

TypeInfo TypeOfValue(const Value& v) {
  if (v.is_tensor()) {
    std::vector<Dim> dims;
    for (int64_t d : v.tensor().shape()) dims.push_back(Dim::Known(d));
    return TypeInfo::Tensor(v.tensor().dtype(), dims);
  }
  TypeInfo t;
  if (v.is_sequence()) {
    t.kind = TypeInfo::Kind::kSequence;
    const auto& s = v.sequence();
    t.inner = std::make_shared<TypeInfo>(s.items.empty() ? s.elem_type : TypeOfValue(s.items.front()));
    if (!s.items.empty() && t.inner->is_tensor()) t.inner->shape.reset();  // items may differ in shape
  } else if (v.is_map()) {
    t.kind = TypeInfo::Kind::kMap;
    t.elem_type = v.map().key_type;
    TypeInfo values = v.map().values ? TypeOfValue(*v.map().values) : TypeInfo{};
    if (values.is_tensor()) values.shape.reset();
    t.inner = std::make_shared<TypeInfo>(values);
  } else if (v.is_none()) {
    t.kind = TypeInfo::Kind::kOptional;
    t.inner = std::make_shared<TypeInfo>(v.none().elem_type);
  }
  return t;
}

}  // namespace tessera
