// Gemm, MatMul and ai.tessera:FusedGemm as oneDNN matmul: constant weights
// reordered once (with Gemm's alpha folded in), bias as oneDNN's broadcast
// bias, and the activations that follow as post-ops.
#include <algorithm>

#include "tessera/providers/dnnl/dnnl_compiler.h"
#include "tessera/providers/dnnl/dnnl_families.h"
#include "tessera/providers/dnnl/dnnl_host_gemm.h"
#include "tessera/providers/dnnl/dnnl_post_ops.h"

namespace tessera::dnnl_ep {

namespace {

// Row-major [rows, cols] read transposed when `trans`: dims {cols, rows}.
Desc MatrixDesc(int64_t rows, int64_t cols, bool trans) {
  if (!trans) return PlainDesc({rows, cols});
  return Desc({cols, rows}, dnnl::memory::data_type::f32, Dims{1, cols});
}

std::string CheckGemm(const NodeQuery& q) {
  KernelInfo info(q.node, q.opset);
  auto a = q.input_type(0)->StaticShape(), b = q.input_type(1)->StaticShape();
  if (a->size() != 2 || b->size() != 2) return "Gemm operands are not matrices";
  int64_t ka = info.attr_int("transA", 0) ? (*a)[0] : (*a)[1], kb = info.attr_int("transB", 0) ? (*b)[1] : (*b)[0];
  if (ka != kb) return "inner dimensions differ";
  float alpha = info.attr_float("alpha", 1.0f), beta = info.attr_float("beta", 1.0f);
  if (alpha != 1.0f && q.constant_input(1) == nullptr) return "alpha with a non-constant B";
  if (q.node.inputs.size() > 2 && !q.node.inputs[2].empty()) {
    auto c = q.input_type(2)->StaticShape();
    if (c->size() > 2) return "C has rank above 2";
    auto y = *q.output_type(0)->StaticShape();
    for (size_t i = 0; i < c->size(); ++i) {
      int64_t want = y[2 - c->size() + i], have = (*c)[i];
      if (have != 1 && have != want) return "C does not broadcast to the output";
    }
    if (beta != 1.0f && q.constant_input(2) == nullptr) return "beta with a non-constant C";
  }
  if (q.opset < 7) return "Gemm before opset 7 (broadcast attribute)";
  if (q.node.op_type == "FusedGemm" && !FusedActivationOf(q.node)) return "activation has no oneDNN post-op";
  return "";
}

// A constant scaled by `scale` (Gemm's alpha or beta folded into it).
Tensor Scaled(const Tensor& t, float scale) {
  if (scale == 1.0f) return t;
  Tensor out = t.Clone();
  float* p = out.data<float>();
  for (int64_t i = 0; i < out.numel(); ++i) p[i] *= scale;
  return out;
}

// The constant B of a product that runs as a host GEMM instead of `pd`
// (dnnl_host_gemm.h): a float matrix, with oneDNN's generic GEMM picked.
const Tensor* HostGemmWeight(const Compiler& c, const std::string& b, const dnnl::matmul::primitive_desc& pd) {
  const Tensor* t = c.ConstantOf(b);
  if (t == nullptr || t->dtype() != DataType::kFloat || t->shape().size() != 2 || !UsesGenericGemm(pd)) return nullptr;
  return t;
}

// A constant bias of exactly n values (shape [n] or [1, n]), or null.
const Tensor* RowBias(const Compiler& c, const std::string& name, int64_t n) {
  const Tensor* t = c.ConstantOf(name);
  if (t == nullptr || t->dtype() != DataType::kFloat || t->numel() != n) return nullptr;
  const auto& s = t->shape();
  return (s.size() == 1 || (s.size() == 2 && s[0] == 1)) ? t : nullptr;
}

void LowerGemm(Compiler& c, const Node& n) {
  KernelInfo info(n, c.OpsetOf(n));
  std::vector<int64_t> as = c.ShapeOf(n.inputs[0]), bs = c.ShapeOf(n.inputs[1]), ys = c.ShapeOf(n.outputs[0]);
  bool ta = info.attr_int("transA", 0) != 0, tb = info.attr_int("transB", 0) != 0;
  float alpha = info.attr_float("alpha", 1.0f), beta = info.attr_float("beta", 1.0f);
  int64_t m = ys[0], k = ta ? as[0] : as[1], nn = ys[1];
  bool has_c = n.inputs.size() > 2 && !n.inputs[2].empty() && beta != 0.0f;

  PostOpChain chain;
  if (n.op_type == "FusedGemm") {
    std::vector<EltwiseOp> act = FusedActivationOf(n).value();
    for (const auto& e : act) chain.ops.append_eltwise(1.0f, e.algorithm, e.alpha, e.beta);
  }
  chain = AbsorbPostOps(c, n.outputs[0], false, chain);
  dnnl::primitive_attr attr = c.Attr();
  attr.set_post_ops(chain.ops);

  Desc b_host = MatrixDesc(bs[0], bs[1], tb);
  Dims bias_dims;
  if (has_c) {
    std::vector<int64_t> cs = c.ShapeOf(n.inputs[2]);
    bias_dims = cs.size() == 2 ? Dims{cs[0], cs[1]} : Dims{1, cs.empty() ? 1 : cs[0]};
  }
  Desc bias_desc = has_c ? PlainDesc(bias_dims) : Desc();
  dnnl::matmul::desc d(PlainDesc({m, k}), AnyDesc({k, nn}), bias_desc, PlainDesc({m, nn}));
  dnnl::matmul::primitive_desc pd(d, attr, c.engine());

  int a_plain = c.AsPlain(c.Use(n.inputs[0]));
  int a = ta ? c.As(c.Alias("", a_plain, MatrixDesc(as[0], as[1], true)), PlainDesc({m, k})) : a_plain;
  if (const Tensor* b = HostGemmWeight(c, n.inputs[1], pd)) {
    const Tensor* bias = has_c ? RowBias(c, n.inputs[2], nn) : nullptr;
    if (!has_c || bias != nullptr) {
      const Tensor scaled_bias = bias != nullptr ? Scaled(*bias, beta) : Tensor();
      EmitHostGemm(c, n, a, m, *b, tb, alpha, bias != nullptr ? &scaled_bias : nullptr, chain);
      return;
    }
  }
  int w;
  if (const Tensor* b = c.ConstantOf(n.inputs[1])) {
    w = c.Constant(Scaled(*b, alpha), b_host, pd.weights_desc());
  } else {
    w = c.As(c.Alias("", c.AsPlain(c.Use(n.inputs[1])), b_host), pd.weights_desc());
  }
  std::vector<std::pair<int, int>> args{{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, w}};
  if (has_c) {
    int bias;
    if (const Tensor* t = c.ConstantOf(n.inputs[2])) bias = c.Constant(Scaled(*t, beta), bias_desc, bias_desc);
    else bias = c.Alias("", c.AsPlain(c.Use(n.inputs[2])), bias_desc);
    args.push_back({DNNL_ARG_BIAS, bias});
  }
  args.push_back({DNNL_ARG_DST, c.Define(chain.output, pd.dst_desc())});
  c.Emit(pd, dnnl::matmul(pd), std::move(args), n.Label());
}

std::string CheckMatMul(const NodeQuery& q) {
  auto a = q.input_type(0)->StaticShape(), b = q.input_type(1)->StaticShape();
  if (a->size() < 2 || b->size() < 2) return "1-D MatMul operands";
  if (a->size() > 6 || b->size() > 6) return "rank above 6";
  if ((*a)[a->size() - 1] != (*b)[b->size() - 2]) return "inner dimensions differ";
  // Batch dims broadcast only where one side is 1.
  size_t r = std::max(a->size(), b->size());
  for (size_t i = 2; i < r; ++i) {
    int64_t da = i < a->size() ? (*a)[a->size() - 1 - i] : 1, db = i < b->size() ? (*b)[b->size() - 1 - i] : 1;
    if (da != db && db != 1) return "B broadcasts over a batch dim of A";
  }
  return "";
}

Dims Padded(const std::vector<int64_t>& s, size_t rank) {
  Dims d(rank - s.size(), 1);
  d.insert(d.end(), s.begin(), s.end());
  return d;
}

// A MatMul whose B has no batch dims is one GEMM over all of A's rows:
// [.., M, K] x [K, N] -> [rows, K] x [K, N] (oneDNN would otherwise run one
// small GEMM per batch entry). Rewrites the dims in place when it applies.
bool CollapseBatch(Dims& a, Dims& b, Dims& y) {
  size_t r = y.size();
  if (r <= 2) return false;
  for (size_t i = 0; i + 2 < r; ++i)
    if (b[i] != 1) return false;
  dnnl::memory::dim rows = 1;
  for (size_t i = 0; i + 1 < r; ++i) rows *= a[i];
  a = {rows, a[r - 1]};
  b = {b[r - 2], b[r - 1]};
  y = {rows, y[r - 1]};
  return true;
}

void LowerMatMul(Compiler& c, const Node& n) {
  std::vector<int64_t> as = c.ShapeOf(n.inputs[0]), bs = c.ShapeOf(n.inputs[1]), ys = c.ShapeOf(n.outputs[0]);
  size_t r = ys.size();
  Dims ad = Padded(as, r), bd = Padded(bs, r), yd = ToDims(ys);
  bool collapsed = CollapseBatch(ad, bd, yd);
  PostOpChain chain = AbsorbPostOps(c, n.outputs[0], false);
  dnnl::primitive_attr attr = c.Attr();
  attr.set_post_ops(chain.ops);
  const Tensor* b_const = c.ConstantOf(n.inputs[1]);
  // Constant weights in the layout oneDNN picks (3-9% faster than plain on
  // the transformers); the runtime then frees the originals.
  dnnl::matmul::desc d(PlainDesc(ad), b_const ? AnyDesc(bd) : PlainDesc(bd), PlainDesc(yd));
  dnnl::matmul::primitive_desc pd(d, attr, c.engine());
  int a = c.Alias("", c.AsPlain(c.Use(n.inputs[0])), PlainDesc(ad));
  if (const Tensor* b = ad.size() == 2 ? HostGemmWeight(c, n.inputs[1], pd) : nullptr) {
    PostOpChain into = chain;
    if (collapsed) into.output = "";
    int y = EmitHostGemm(c, n, a, ad[0], *b, false, 1.0f, nullptr, into);
    if (collapsed) c.Alias(chain.output, y, PlainDesc(ToDims(ys)));
    return;
  }
  int w = b_const ? c.Constant(*b_const, PlainDesc(bd), pd.weights_desc())
                  : c.Alias("", c.AsPlain(c.Use(n.inputs[1])), PlainDesc(bd));
  int dst = c.Define(collapsed ? "" : chain.output, pd.dst_desc());
  c.Emit(pd, dnnl::matmul(pd), {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, dst}}, n.Label());
  if (collapsed) c.Alias(chain.output, dst, PlainDesc(ToDims(ys)));
}

// Row-major storage of `dims` with its last two axes swapped, seen with
// `dims` as the logical shape (a transB operand read in place).
Desc SwappedLastTwo(const Dims& dims) {
  Dims stored = dims;
  size_t r = dims.size();
  std::swap(stored[r - 1], stored[r - 2]);
  Dims strides(r);
  Desc plain = PlainDesc(stored);
  for (size_t i = 0; i < r; ++i) strides[i] = plain.data.format_desc.blocking.strides[i];
  std::swap(strides[r - 1], strides[r - 2]);
  return Desc(dims, dnnl::memory::data_type::f32, strides);
}

// ai.tessera:FusedMatMul: act(alpha * A op(B) + bias) (transA unsupported here).
std::string CheckFusedMatMul(const NodeQuery& q) {
  KernelInfo info(q.node, q.opset);
  if (info.attr_int("transA", 0) != 0) return "transA";
  auto a = *q.input_type(0)->StaticShape(), b = *q.input_type(1)->StaticShape();
  if (a.size() < 2 || b.size() < 2 || a.size() > 6 || b.size() > 6) return "operand ranks outside 2-6";
  bool tb = info.attr_int("transB", 0) != 0;
  int64_t kb = tb ? b[b.size() - 1] : b[b.size() - 2];
  if (a.back() != kb) return "inner dimensions differ";
  size_t r = std::max(a.size(), b.size());
  for (size_t i = 2; i < r; ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1, db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && db != 1) return "B broadcasts over a batch dim of A";
  }
  if (info.attr_float("alpha", 1.0f) != 1.0f && q.constant_input(1) == nullptr) return "alpha with a non-constant B";
  if (q.node.inputs.size() > 2 && !q.node.inputs[2].empty()) {
    auto bias = *q.input_type(2)->StaticShape();
    auto y = *q.output_type(0)->StaticShape();
    if (bias.size() != 1 || bias[0] != y.back()) return "bias is not a vector over the last axis";
  }
  if (!FusedActivationOf(q.node)) return "activation has no oneDNN post-op";
  return "";
}

void LowerFusedMatMul(Compiler& c, const Node& n) {
  KernelInfo info(n, c.OpsetOf(n));
  std::vector<int64_t> as = c.ShapeOf(n.inputs[0]), bs = c.ShapeOf(n.inputs[1]), ys = c.ShapeOf(n.outputs[0]);
  bool tb = info.attr_int("transB", 0) != 0;
  float alpha = info.attr_float("alpha", 1.0f);
  size_t r = ys.size();
  std::vector<int64_t> logical_b = bs;
  if (tb) std::swap(logical_b[bs.size() - 1], logical_b[bs.size() - 2]);
  Dims ad = Padded(as, r), bd = Padded(logical_b, r), yd = ToDims(ys);
  bool collapsed = CollapseBatch(ad, bd, yd);
  Desc b_host = tb ? SwappedLastTwo(bd) : PlainDesc(bd);
  bool has_bias = n.inputs.size() > 2 && !n.inputs[2].empty();
  Dims bias_dims(yd.size(), 1);
  bias_dims.back() = ys.back();

  PostOpChain chain;
  std::vector<EltwiseOp> act = FusedActivationOf(n).value();
  for (const auto& e : act) chain.ops.append_eltwise(1.0f, e.algorithm, e.alpha, e.beta);
  chain = AbsorbPostOps(c, n.outputs[0], false, chain);
  dnnl::primitive_attr attr = c.Attr();
  attr.set_post_ops(chain.ops);
  const Tensor* b_const = c.ConstantOf(n.inputs[1]);
  Desc bias_desc = has_bias ? PlainDesc(bias_dims) : Desc();
  // Constant weights in the layout oneDNN picks, as in MatMul.
  dnnl::matmul::desc d(PlainDesc(ad), b_const ? AnyDesc(bd) : b_host, bias_desc, PlainDesc(yd));
  dnnl::matmul::primitive_desc pd(d, attr, c.engine());
  int a = c.Alias("", c.AsPlain(c.Use(n.inputs[0])), PlainDesc(ad));
  if (const Tensor* b = ad.size() == 2 ? HostGemmWeight(c, n.inputs[1], pd) : nullptr) {
    const Tensor* bias = has_bias ? RowBias(c, n.inputs[2], ys.back()) : nullptr;
    if (!has_bias || bias != nullptr) {
      PostOpChain into = chain;
      if (collapsed) into.output = "";
      int y = EmitHostGemm(c, n, a, ad[0], *b, tb, alpha, bias, into);
      if (collapsed) c.Alias(chain.output, y, PlainDesc(ToDims(ys)));
      return;
    }
  }
  int w = b_const ? c.Constant(Scaled(*b_const, alpha), b_host, pd.weights_desc())
                  : c.Alias("", c.AsPlain(c.Use(n.inputs[1])), b_host);
  std::vector<std::pair<int, int>> args{{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, w}};
  if (has_bias) {
    int bias;
    if (const Tensor* t = c.ConstantOf(n.inputs[2])) bias = c.Constant(*t, bias_desc, bias_desc);
    else bias = c.Alias("", c.AsPlain(c.Use(n.inputs[2])), bias_desc);
    args.push_back({DNNL_ARG_BIAS, bias});
  }
  int dst = c.Define(collapsed ? "" : chain.output, pd.dst_desc());
  args.push_back({DNNL_ARG_DST, dst});
  c.Emit(pd, dnnl::matmul(pd), std::move(args), n.Label());
  if (collapsed) c.Alias(chain.output, dst, PlainDesc(ToDims(ys)));
}

}  // namespace

std::vector<DnnlRow> MatMulRows() {
  return {
      Row("ai.onnx", "Gemm", 7, kMaxOnnxOpset, {}, CheckGemm, LowerGemm),
      Row(kTesseraDomain, "FusedMatMul", 1, 1, {}, CheckFusedMatMul, LowerFusedMatMul),
      Row(kTesseraDomain, "FusedGemm", 1, 1, {}, CheckGemm, LowerGemm),
      Row("ai.onnx", "MatMul", 1, kMaxOnnxOpset, {}, CheckMatMul, LowerMatMul),
  };
}

}  // namespace tessera::dnnl_ep
