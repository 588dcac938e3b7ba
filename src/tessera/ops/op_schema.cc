// The schema registry (op_schema.h): the family tables of infer_*.cc
// joined once, checked and indexed by (domain, op).
#include "tessera/ops/op_schema.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "tessera/ops/infer_rules.h"

namespace tessera {

namespace {

std::string Key(std::string_view domain, std::string_view op_type) {
  std::string key(domain);
  key += ':';
  key += op_type;
  return key;
}

struct Registry {
  std::vector<OpSchema> entries;
  std::unordered_map<std::string, std::vector<const OpSchema*>> by_op;  // ascending opsets

  Registry() {
    for (auto* family : {&shape_inference::ElementwiseSchemas, &shape_inference::ComputeSchemas,
                         &shape_inference::MovementSchemas, &shape_inference::ContribSchemas,
                         &shape_inference::RuntimeTypedSchemas}) {
      std::vector<OpSchema> rows = (*family)();
      entries.insert(entries.end(), rows.begin(), rows.end());
    }
    std::stable_sort(entries.begin(), entries.end(), [](const OpSchema& a, const OpSchema& b) {
      if (a.domain != b.domain) return a.domain < b.domain;
      if (a.op_type != b.op_type) return a.op_type < b.op_type;
      return a.first_opset < b.first_opset;
    });
    for (const OpSchema& s : entries) {
      if (s.first_opset < 1 || s.last_opset < s.first_opset)
        throw std::logic_error("op schema " + Key(s.domain, s.op_type) + ": empty opset range");
      auto& versions = by_op[Key(s.domain, s.op_type)];
      if (!versions.empty() && versions.back()->last_opset >= s.first_opset)
        throw std::logic_error("op schema " + Key(s.domain, s.op_type) + ": two entries cover opset " +
                               std::to_string(s.first_opset));
      versions.push_back(&s);
    }
  }
};

const Registry& Schemas() {
  static const Registry registry;
  return registry;
}

const std::vector<const OpSchema*>* VersionsOf(std::string_view domain, std::string_view op_type) {
  const auto& by_op = Schemas().by_op;
  auto it = by_op.find(Key(domain, op_type));
  return it == by_op.end() ? nullptr : &it->second;
}

}  // namespace

const OpSchema* FindOpSchema(std::string_view domain, std::string_view op_type, int64_t opset) {
  const auto* versions = VersionsOf(domain, op_type);
  if (!versions) return nullptr;
  if (opset < 1) return versions->back();
  for (const OpSchema* s : *versions)
    if (s->first_opset <= opset && opset <= s->last_opset) return s;
  return nullptr;
}

bool OpHasTrait(std::string_view domain, std::string_view op_type, uint32_t trait) {
  const auto* versions = VersionsOf(domain, op_type);
  return versions && versions->back()->Has(trait);
}

const std::vector<OpSchema>& AllOpSchemas() { return Schemas().entries; }

}  // namespace tessera
