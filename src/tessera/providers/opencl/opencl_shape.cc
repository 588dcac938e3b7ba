// Ops that only change how a buffer is viewed (Reshape, Flatten, Squeeze,
// Unsqueeze, Identity) or only read its shape (Shape, Size). Their kernels
// (providers/common/view_kernels.h) never touch element data, so the OpenCL
// EP runs those same kernels on device tensors: no device work, no copies,
// one implementation.
#include <map>

#include "tessera/providers/common/view_kernels.h"
#include "tessera/providers/opencl/opencl_families.h"

namespace tessera::opencl {

const char* const kShapeSource = "";

namespace {

std::string NotString(const NodeQuery& q) {
  const TypeInfo* t = q.input_type(0);
  if (t && t->is_tensor() && t->elem_type == DataType::kString) return "string tensors stay on the host";
  return "";
}

}  // namespace

std::vector<OpenClRow> ShapeRows() {
  // op -> (operands read on the host, outputs made on the host)
  struct HostSide { std::vector<size_t> inputs, outputs; };
  const std::map<std::string, HostSide> views = {
      {"Reshape", {{1}, {}}},   {"Flatten", {{}, {}}}, {"Squeeze", {{1}, {}}}, {"Unsqueeze", {{1}, {}}},
      {"Identity", {{}, {}}},   {"Shape", {{}, {0}}},  {"Size", {{}, {0}}}};
  std::vector<OpenClRow> rows;
  for (auto& row : cpu::ViewKernels()) {
    auto it = views.find(row.op_type);
    if (row.domain != kOnnxDomain || it == views.end()) continue;
    // Reshape-1..4 takes its shape from an attribute: also a pure view.
    rows.push_back(OpenClRow{std::move(row), it->second.inputs, it->second.outputs, NotString});
  }
  return rows;
}

}  // namespace tessera::opencl
