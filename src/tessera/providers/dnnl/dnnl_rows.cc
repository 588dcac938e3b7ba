#include <mutex>

#include "tessera/base/status.h"
#include "tessera/providers/dnnl/dnnl_compiler.h"
#include "tessera/providers/dnnl/dnnl_families.h"

namespace tessera::dnnl_ep {

KernelFactory CompiledOnly() {
  return [](const KernelInfo& info) -> std::unique_ptr<OpKernel> {
    TS_THROW(kInternal, "node ", info.node().Label(), ": oneDNN nodes run only inside compiled partitions");
  };
}

DnnlRow Row(const std::string& domain, const std::string& op, int64_t first, int64_t last, std::vector<size_t> meta,
            CheckFn check, LowerFn lower) {
  DnnlRow r;
  r.row = KernelRow{domain, op, first, last, {DataType::kFloat}, CompiledOnly()};
  r.meta_inputs = std::move(meta);
  r.check = check;
  r.lower = lower;
  return r;
}

const std::vector<DnnlRow>& AllRows() {
  static const std::vector<DnnlRow> rows = [] {
    std::vector<DnnlRow> all;
    for (auto family : {ConvRows, PoolRows, EltwiseRows, MatMulRows, NormalizationRows, ShapeRows, ReduceRows})
      for (auto& r : family()) all.push_back(std::move(r));
    return all;
  }();
  return rows;
}

void Lower(Compiler& compiler, const Node& node) {
  int64_t opset = compiler.OpsetOf(node);
  for (const auto& r : AllRows())
    if (r.row.domain == node.domain && r.row.op_type == node.op_type && opset >= r.row.first_opset &&
        opset <= r.row.last_opset) {
      r.lower(compiler, node);
      return;
    }
  compiler.Fail(node, "no oneDNN lowering");
}

}  // namespace tessera::dnnl_ep
