#include "tessera/providers/opencl/opencl_execution_provider.h"

#include <algorithm>

#include "tessera/base/status.h"

namespace tessera {

namespace {

std::vector<opencl::OpenClRow> AllRows() {
  std::vector<opencl::OpenClRow> rows;
  for (auto family : {opencl::ElementwiseRows, opencl::ShapeRows, opencl::MatMulRows, opencl::ConvPoolRows,
                      opencl::ReduceRows, opencl::LayoutRows}) {
    auto part = family();
    for (auto& r : part) rows.push_back(std::move(r));
  }
  return rows;
}

bool Contains(const std::vector<size_t>& v, size_t i) { return std::find(v.begin(), v.end(), i) != v.end(); }

}  // namespace

std::shared_ptr<const OpenClExecutionProvider> OpenClExecutionProvider::Create(std::string* why) {
  auto rt = opencl::Runtime::Get(why);
  if (!rt) return nullptr;
  return std::shared_ptr<const OpenClExecutionProvider>(new OpenClExecutionProvider(std::move(rt)));
}

OpenClExecutionProvider::OpenClExecutionProvider(std::shared_ptr<opencl::Runtime> runtime)
    : runtime_(std::move(runtime)), table_("opencl", AllRows()) {}

Tensor OpenClExecutionProvider::CopyFromHost(const Tensor& host) const { return opencl::Upload(runtime_, host); }
Tensor OpenClExecutionProvider::CopyToHost(const Tensor& device) const { return opencl::Download(runtime_, device); }

Claim OpenClExecutionProvider::Capability(const NodeQuery& q) const {
  Claim c;
  const auto [row, extra] = table_.Find(q.node.domain, q.node.op_type, q.opset, &c.reason);
  if (row == nullptr) return c;
  for (size_t i = 0; i < q.node.inputs.size(); ++i) {
    if (q.node.inputs[i].empty() || Contains(extra->host_inputs, i)) continue;
    const TypeInfo* t = q.input_type(i);
    if (t == nullptr || t->kind == TypeInfo::Kind::kUnknown) {
      c.reason = "element type of input " + std::to_string(i) + " ('" + q.node.inputs[i] +
                 "') unknown at session creation";
      return c;
    }
    if (!t->is_tensor()) {
      c.reason = "input " + std::to_string(i) + " is a " + t->TypeString() + ", not a tensor";
      return c;
    }
    // The row's types constrain input 0 (the "T" operand); other device
    // inputs must match it unless the family's check says otherwise.
    if (i == 0 && !row->types.empty() && std::find(row->types.begin(), row->types.end(), t->elem_type) == row->types.end()) {
      c.reason = std::string("no kernel for element type ") + DataTypeName(t->elem_type);
      return c;
    }
  }
  if (extra->check) {
    std::string why = extra->check(q);
    if (!why.empty()) {
      c.reason = why;
      return c;
    }
  }
  c.row = row;
  return c;
}

bool OpenClExecutionProvider::InputOnHost(const KernelRow& row, size_t input_index) const {
  const opencl::OpenClRow* extra = table_.ExtrasOf(row);
  return extra && Contains(extra->host_inputs, input_index);
}

bool OpenClExecutionProvider::OutputOnHost(const KernelRow& row, size_t output_index) const {
  const opencl::OpenClRow* extra = table_.ExtrasOf(row);
  return extra && Contains(extra->host_outputs, output_index);
}

}  // namespace tessera
