// The oneDNN EP's op families. Each row declares one op it claims (the
// KernelRow), the conditions beyond "float tensors of static shape" under
// which it claims it, and how the partition compiler lowers it to
// primitives. The rows are the only declaration of what the EP runs.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tessera/ops/kernel_table.h"
#include "tessera/partition/execution_provider.h"

namespace tessera::dnnl_ep {

class Compiler;

struct DnnlRow {
  KernelRow row;
  // Inputs that are not float data the partition reads at run time: shapes
  // and axes (the static output shape already says everything), Clip bounds
  // (read at compile time, so the check demands constants).
  std::vector<size_t> meta_inputs;
  // Why the node is declined, or "" to claim it.
  std::function<std::string(const NodeQuery&)> check;
  std::function<void(Compiler&, const Node&)> lower;
};

std::vector<DnnlRow> ConvRows();
std::vector<DnnlRow> PoolRows();
std::vector<DnnlRow> EltwiseRows();
std::vector<DnnlRow> MatMulRows();
std::vector<DnnlRow> NormalizationRows();
std::vector<DnnlRow> ShapeRows();
std::vector<DnnlRow> ReduceRows();

// Every row, in one table (built once).
const std::vector<DnnlRow>& AllRows();
// Lowers `node` with its row's lowering.
void Lower(Compiler& compiler, const Node& node);

// The row's factory: oneDNN nodes run only inside compiled partitions.
KernelFactory CompiledOnly();

using CheckFn = std::string (*)(const NodeQuery&);
using LowerFn = void (*)(Compiler&, const Node&);
// A float row for opsets [first, last] of domain:op.
DnnlRow Row(const std::string& domain, const std::string& op, int64_t first, int64_t last, std::vector<size_t> meta,
            CheckFn check, LowerFn lower);

// Shared claim helpers: "" when fine, else the reason.
std::string RequireConstant(const NodeQuery& q, size_t input, const char* what);

}  // namespace tessera::dnnl_ep
