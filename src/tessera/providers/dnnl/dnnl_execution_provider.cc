#include "tessera/providers/dnnl/dnnl_execution_provider.h"

#include <omp.h>

#include <algorithm>

#include "tessera/base/status.h"
#include "tessera/ops/shape_inference.h"
#include "tessera/providers/common/simd_isa.h"
#include "tessera/providers/dnnl/dnnl_compiler.h"
#include "tessera/providers/dnnl/dnnl_isa.h"
#include "tessera/providers/dnnl/dnnl_partition_kernel.h"

namespace tessera {

namespace {

// Why a float data operand cannot go to oneDNN, or "".
std::string DataOperand(const TypeInfo* t, const std::string& what) {
  if (t == nullptr || !t->is_tensor()) return what + " type unknown at session creation";
  if (t->elem_type != DataType::kFloat) return what + " is " + DataTypeName(t->elem_type) + ", not float";
  auto s = t->StaticShape();
  if (!s) return what + " shape not static";
  for (int64_t d : *s)
    if (d == 0) return what + " is empty";
  return "";
}

// oneDNN trusts static shapes, so it takes a node only when inference
// derives the output shape from the inputs and agrees with the declared
// one; otherwise the CPU kernel stays the authority (and reports a bad model).
std::string InferenceAgrees(const NodeQuery& q) {
  InferenceInput in{q.node, q.opset, {}, {}};
  for (size_t i = 0; i < q.node.inputs.size(); ++i) {
    const TypeInfo* t = q.input_type(i);
    in.inputs.push_back(t ? *t : TypeInfo{});
    in.constants.push_back(q.constant_input(i));
  }
  std::vector<TypeInfo> out = InferOutputTypes(in);
  auto inferred = out.empty() ? std::nullopt : out[0].StaticShape();
  if (!inferred) return "output shape does not follow from the inputs at session creation";
  if (*inferred != *q.output_type(0)->StaticShape()) return "declared output shape disagrees with shape inference";
  return "";
}

}  // namespace

std::shared_ptr<const DnnlExecutionProvider> DnnlExecutionProvider::Create(std::string* why) {
  try {
    return std::shared_ptr<const DnnlExecutionProvider>(new DnnlExecutionProvider());
  } catch (const dnnl::error& e) {
    *why = std::string("unavailable: oneDNN could not start: ") + e.what();
    return nullptr;
  }
}

DnnlExecutionProvider::DnnlExecutionProvider()
    : engine_(dnnl::engine::kind::cpu, 0), table_("dnnl", dnnl_ep::AllRows()) {
  if (auto cap = IsaCapFromEnvironment()) CapIsa(*cap);
}

std::string DnnlExecutionProvider::device() const {
  // Asked for late: oneDNN fixes its ISA on the first question, and a
  // session's cap comes after the EP was made.
  const dnnl_version_t* v = dnnl_version();
  return "host CPU (oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch) + ", " + dnnl_ep::DnnlIsaInUse() + ")";
}

void DnnlExecutionProvider::CapIsa(IsaLevel level) const {
  cpu::CapSimdTargets(level);  // the host steps inside partitions run the CPU EP's SIMD kernels
  dnnl_ep::CapDnnlIsa(level);
}

std::vector<std::pair<std::string, std::string>> DnnlExecutionProvider::IsaInUse() const {
  return {{"onednn", dnnl_ep::DnnlIsaInUse()}, {"highway", cpu::ActiveSimdTarget()}};
}

Claim DnnlExecutionProvider::Capability(const NodeQuery& q) const {
  Claim c;
  const auto [row, extra] = table_.Find(q.node.domain, q.node.op_type, q.opset, &c.reason);
  if (row == nullptr) return c;
  for (size_t i = 0; i < q.node.inputs.size(); ++i) {
    if (q.node.inputs[i].empty()) continue;
    if (std::find(extra->meta_inputs.begin(), extra->meta_inputs.end(), i) != extra->meta_inputs.end()) continue;
    c.reason = DataOperand(q.input_type(i), "input " + std::to_string(i));
    if (!c.reason.empty()) return c;
  }
  if (q.node.outputs.empty() || q.node.outputs[0].empty()) {
    c.reason = "no output";
    return c;
  }
  c.reason = DataOperand(q.output_type(0), "output 0");
  if (!c.reason.empty()) return c;
  // (A scalar first operand of Add or Mul is fine: the lowering swaps them.)
  const bool commutes = q.node.op_type == "Add" || q.node.op_type == "Mul";
  if (q.input_type(0)->StaticShape()->empty() &&
      !(commutes && q.node.inputs.size() == 2 && !q.input_type(1)->StaticShape()->empty())) {
    c.reason = "scalar input";
    return c;
  }
  c.reason = InferenceAgrees(q);
  if (c.reason.empty()) c.reason = extra->check(q);
  if (c.reason.empty()) c.row = row;
  return c;
}

std::unique_ptr<OpKernel> DnnlExecutionProvider::CompilePartition(const PartitionDef& partition) const {
  try {
    // Kernels size their parallel work at creation: create them for the
    // session's thread count.
    omp_set_num_threads(partition.num_threads);
    dnnl_ep::Compiler compiler(partition, engine_);
    return std::make_unique<dnnl_ep::PartitionKernel>(compiler.Compile());
  } catch (const dnnl::error& e) {
    TS_THROW(kInternal, "oneDNN could not compile the partition of ", partition.nodes.size(), " node(s) starting at ",
             partition.nodes.front()->Label(), ": ", e.what());
  }
}

}  // namespace tessera
