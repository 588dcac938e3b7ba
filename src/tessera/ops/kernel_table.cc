#include "tessera/ops/kernel_table.h"

#include <algorithm>
#include <sstream>

namespace tessera {

namespace types {
std::vector<DataType> Floats() {
  return {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16};
}
std::vector<DataType> SignedInts() { return {DataType::kInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64}; }
std::vector<DataType> UnsignedInts() {
  return {DataType::kUInt8, DataType::kUInt16, DataType::kUInt32, DataType::kUInt64};
}
std::vector<DataType> Ints() { return Join(SignedInts(), UnsignedInts()); }
std::vector<DataType> Numeric() { return Join(Floats(), Ints()); }
std::vector<DataType> All() {
  std::vector<DataType> all;
  for (int32_t c = 1; c <= kMaxDataTypeCode; ++c) all.push_back(static_cast<DataType>(c));
  return all;
}
std::vector<DataType> Join(std::vector<DataType> a, const std::vector<DataType>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
}  // namespace types

KernelTable::KernelTable(std::string provider, std::vector<KernelRow> rows)
    : provider_(std::move(provider)), rows_(std::move(rows)) {}

bool KernelTable::HasOp(const std::string& domain, const std::string& op_type) const {
  return std::any_of(rows_.begin(), rows_.end(),
                     [&](const KernelRow& r) { return r.domain == domain && r.op_type == op_type; });
}

const KernelRow* KernelTable::Find(const std::string& domain, const std::string& op_type, int64_t model_opset,
                                   std::string* why_not) const {
  std::vector<const KernelRow*> matches;
  for (const auto& r : rows_)
    if (r.domain == domain && r.op_type == op_type) matches.push_back(&r);
  if (matches.empty()) {
    if (why_not) *why_not = provider_ + " has no kernel for " + domain + ":" + op_type;
    return nullptr;
  }
  for (const auto* r : matches)
    if (model_opset >= r->first_opset && model_opset <= r->last_opset) return r;
  if (why_not) {
    std::sort(matches.begin(), matches.end(),
              [](const KernelRow* a, const KernelRow* b) { return a->first_opset < b->first_opset; });
    std::ostringstream os;
    int64_t lo = matches.front()->first_opset, hi = matches.back()->last_opset;
    os << "the model imports " << domain << " opset " << model_opset << "; " << provider_ << " implements " << op_type
       << " for opsets ";
    for (size_t i = 0; i < matches.size(); ++i)
      os << (i ? ", " : "") << matches[i]->first_opset << "-" << matches[i]->last_opset;
    if (model_opset > hi)
      os << ". Re-export the model with opset_version=" << hi << " (or upgrade Tessera)";
    else if (model_opset < lo)
      os << ". " << op_type << " does not exist before opset " << lo << "; re-export with opset_version>=" << lo;
    else
      os << ". Re-export the model with an opset in those ranges";
    *why_not = os.str();
  }
  return nullptr;
}

}  // namespace tessera
