#include "tessera/ir/type_info.h"

namespace tessera {

std::optional<std::vector<int64_t>> TypeInfo::StaticShape() const {
  if (kind != Kind::kTensor || !shape) return std::nullopt;
  std::vector<int64_t> dims;
  for (const Dim& d : *shape) {
    if (!d.known()) return std::nullopt;
    dims.push_back(d.value);
  }
  return dims;
}

std::string TypeInfo::TypeString() const {
  switch (kind) {
    case Kind::kTensor: return std::string("tensor(") + DataTypeName(elem_type) + ")";
    case Kind::kSparseTensor: return std::string("sparse_tensor(") + DataTypeName(elem_type) + ")";
    case Kind::kSequence: return "seq(" + (inner ? inner->TypeString() : std::string("?")) + ")";
    case Kind::kOptional: return "optional(" + (inner ? inner->TypeString() : std::string("?")) + ")";
    case Kind::kMap:
      return std::string("map(") + DataTypeName(elem_type) + "," + (inner ? inner->TypeString() : "?") + ")";
    case Kind::kOpaque: return "opaque";
    case Kind::kUnknown: return "unknown";
  }
  return "unknown";
}

std::string TypeInfo::ToString() const {
  std::string s = TypeString();
  if (kind == Kind::kTensor && shape) {
    s += "[";
    for (size_t i = 0; i < shape->size(); ++i) {
      if (i) s += ",";
      s += (*shape)[i].ToString();
    }
    s += "]";
  }
  return s;
}

}  // namespace tessera
