#include "tessera/providers/dnnl/dnnl_host_gemm.h"

#include <omp.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "tessera/providers/common/sgemm.h"

namespace tessera::dnnl_ep {

bool UsesGenericGemm(const dnnl::matmul::primitive_desc& pd) {
  return std::string(pd.impl_info_str()).rfind("gemm:", 0) == 0;
}

namespace {

// B packed at the first run, as the partition's reordered constants are
// (PendingConstant): packing every weight at compilation held each twice
// until the whole partition was compiled (bert_base peak 449 -> 764 MB).
// After packing, the original is let go of.
class LazyPackedB {
 public:
  LazyPackedB(const Tensor& b, bool trans_b) : b_(b), trans_b_(trans_b) {}
  const cpu::PackedB& Get() {
    std::call_once(once_, [&] {
      const auto& s = b_.shape();
      packed_ = std::make_unique<cpu::PackedB>(trans_b_, trans_b_ ? s[1] : s[0], trans_b_ ? s[0] : s[1],
                                               b_.data<float>(), s[1]);
      b_ = Tensor();
    });
    return *packed_;
  }

 private:
  std::once_flag once_;
  Tensor b_;
  bool trans_b_;
  std::unique_ptr<cpu::PackedB> packed_;
};

}  // namespace

int EmitHostGemm(Compiler& c, const Node& n, int a, int64_t m, const Tensor& b, bool trans_b, float alpha,
                 const Tensor* bias, const PostOpChain& chain) {
  const auto& bs = b.shape();
  const int64_t k = trans_b ? bs[1] : bs[0], cols = trans_b ? bs[0] : bs[1];
  auto lazy = std::make_shared<LazyPackedB>(b, trans_b);
  const bool epilogue = bias != nullptr || !chain.empty();
  const Desc y_desc = PlainDesc({m, cols});
  const int product = c.Define(epilogue ? "" : chain.output, y_desc);
  c.EmitHost(
      [lazy, m, cols, k, alpha](const std::unordered_map<int, dnnl::memory>& args) {
        const cpu::PackedB* packed = &lazy->Get();
        const float* x = static_cast<const float*>(args.at(DNNL_ARG_SRC).get_data_handle());
        float* y = static_cast<float*>(args.at(DNNL_ARG_DST).get_data_handle());
        // Whole panels per thread, columns for wide outputs and rows for tall.
        const int64_t threads = std::max(1, omp_get_max_threads());
        const int64_t panels = (cols + packed->panel_width() - 1) / packed->panel_width();
        const bool by_cols = cols >= m && panels >= threads;
        const int64_t parts = std::min<int64_t>(threads, by_cols ? panels : m);
        TESSERA_HOST_PARALLEL_FOR(parts > 1)
        for (int64_t p = 0; p < parts; ++p) {
          if (by_cols) {
            const int64_t lo = p * panels / parts * packed->panel_width();
            const int64_t hi = std::min(cols, (p + 1) * panels / parts * packed->panel_width());
            cpu::SgemmPackedF32(m, lo, hi, alpha, x, k, *packed, 0.0f, y, cols);
          } else {
            const int64_t lo = p * m / parts, hi = (p + 1) * m / parts;
            cpu::SgemmPackedF32(hi - lo, 0, cols, alpha, x + lo * k, k, *packed, 0.0f, y + lo * cols, cols);
          }
        }
      },
      {{DNNL_ARG_SRC, a}, {DNNL_ARG_DST, product}}, n.Label(), 2 * m * cols * k);
  if (!epilogue) return product;
  // Bias (zeros when there is none) and the activations in one pass.
  Tensor row = bias != nullptr ? *bias : Tensor::FromVector<float>(std::vector<float>(static_cast<size_t>(cols), 0.0f), {cols});
  const Desc row_desc = PlainDesc({1, cols});
  const int bias_value = c.Constant(row, row_desc, row_desc);
  dnnl::primitive_attr attr = c.Attr();
  attr.set_post_ops(chain.ops);
  dnnl::binary::desc d(dnnl::algorithm::binary_add, y_desc, row_desc, y_desc);
  dnnl::binary::primitive_desc pd(d, attr, c.engine());
  const int y = c.Define(chain.output, y_desc);
  c.Emit(pd, dnnl::binary(pd), {{DNNL_ARG_SRC_0, product}, {DNNL_ARG_SRC_1, bias_value}, {DNNL_ARG_DST, y}},
         n.Label() + " bias and activation");
  return y;
}

}  // namespace tessera::dnnl_ep
