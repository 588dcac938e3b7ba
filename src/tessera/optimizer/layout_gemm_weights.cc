// GemmWeightLayout: the OpenCL EP's GEMM kernels stream B as a row-major
// (K, N) matrix; a Gemm with transB=1 makes them transpose B on every run.
// When B is a constant read by that Gemm alone, store Bᵀ instead and clear
// transB: the reorder happens once, here, and the device gets the layout
// its kernel wants. The CPU's BLAS takes either layout at the same speed, so
// the pass is restricted to nodes bound for OpenCL.
#include "tessera/optimizer/graph_editor.h"
#include "tessera/optimizer/layout_passes.h"
#include "tessera/optimizer/pass_util.h"

namespace tessera {

namespace {

Tensor Transposed2D(const Tensor& b) {
  const int64_t rows = b.dim(0), cols = b.dim(1);
  Tensor t(DataType::kFloat, {cols, rows});
  const float* src = b.data<float>();
  float* dst = t.data<float>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) dst[c * rows + r] = src[r * cols + c];
  return t;
}

class GemmWeightLayout final : public GraphPass {
 public:
  std::string name() const override { return "GemmWeightLayout"; }
  OptimizationLevel level() const override { return OptimizationLevel::kLayout; }
  std::vector<std::string> providers() const override { return {"opencl"}; }

  int Apply(Graph& graph, const std::vector<std::string>& outer, const PassContext& ctx) const override {
    GraphEditor editor(graph, outer);
    int changed = 0;
    for (int i = 0; i < static_cast<int>(editor.size()); ++i) {
      Node& node = editor.node(i);
      if (node.op_type != "Gemm" || node.domain != kOnnxDomain || node.inputs.size() < 2) continue;
      if (AttrInt(node, "transB", 0) == 0 || !ctx.AppliesTo(node)) continue;
      const std::string b_name = node.inputs[1];
      const Tensor* b = editor.Constant(b_name);
      // Another reader would need the original layout: leave shared weights alone.
      if (b == nullptr || b->dtype() != DataType::kFloat || b->rank() != 2 || editor.UseCount(b_name) != 1 ||
          editor.IsGraphOutput(b_name))
        continue;
      std::string kn = editor.AddInitializer(b_name + "_kn", Transposed2D(*b));
      editor.ReplaceUses(b_name, kn);
      for (auto& a : node.attributes)
        if (a.name == "transB") a.i = 0;
      ++changed;
    }
    if (changed > 0) editor.Commit();
    return changed;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeGemmWeightLayout() { return std::make_unique<GemmWeightLayout>(); }

}  // namespace tessera
