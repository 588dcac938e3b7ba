// A provider's kernel table whose rows carry what only that provider reads
// (oneDNN's lowering, OpenCL's host operands): Row holds a KernelRow `row`
// and those extras. The KernelTable keeps copies of the KernelRows, so the
// sessions see plain rows; Find and ExtrasOf map a copy back to its Row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tessera/ops/kernel_table.h"

namespace tessera {

template <typename Row>
class ExtendedKernelTable {
 public:
  ExtendedKernelTable(std::string provider, std::vector<Row> rows)
      : rows_(std::move(rows)), table_(std::move(provider), KernelRowsOf(rows_)) {
    for (size_t i = 0; i < rows_.size(); ++i) extras_[&table_.rows()[i]] = &rows_[i];
  }
  // extras_ points into this object.
  ExtendedKernelTable(const ExtendedKernelTable&) = delete;
  ExtendedKernelTable& operator=(const ExtendedKernelTable&) = delete;

  const KernelTable& table() const { return table_; }

  struct Match {
    const KernelRow* row = nullptr;  // in table()
    const Row* extras = nullptr;
  };
  // KernelTable::Find, with the extras of the row found; both null (and
  // *why_not set) when there is none.
  Match Find(const std::string& domain, const std::string& op_type, int64_t model_opset, std::string* why_not) const {
    const KernelRow* row = table_.Find(domain, op_type, model_opset, why_not);
    return row ? Match{row, extras_.at(row)} : Match{};
  }
  // The Row behind `row`, or null when `row` is not one of table()'s.
  const Row* ExtrasOf(const KernelRow& row) const {
    auto it = extras_.find(&row);
    return it == extras_.end() ? nullptr : it->second;
  }

 private:
  static std::vector<KernelRow> KernelRowsOf(const std::vector<Row>& rows) {
    std::vector<KernelRow> out;
    out.reserve(rows.size());
    for (const Row& r : rows) out.push_back(r.row);
    return out;
  }

  std::vector<Row> rows_;
  KernelTable table_;
  std::unordered_map<const KernelRow*, const Row*> extras_;
};

}  // namespace tessera
