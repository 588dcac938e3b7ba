// Unary activations (oneDNN eltwise, in place when the input dies here),
// broadcasting binary arithmetic (oneDNN binary, with the activations that
// follow as post-ops), both on whatever layout their input is in; and host
// steps where ours beat oneDNN's: Erf, squeeze-and-excitation's channel
// scaling, attention-mask Where.
#include <algorithm>

#include "tessera/providers/common/simd_elementwise.h"
#include "tessera/providers/dnnl/dnnl_compiler.h"
#include "tessera/providers/dnnl/dnnl_families.h"
#include "tessera/providers/dnnl/dnnl_post_ops.h"

namespace tessera::dnnl_ep {

namespace {

std::string CheckUnary(const NodeQuery& q) {
  auto ops = EltwiseOf(q.node, q.opset, [&](size_t i) { return q.constant_input(i); });
  return ops ? "" : "no oneDNN eltwise for these attributes (or bounds not constant)";
}

void LowerUnary(Compiler& c, const Node& n) {
  auto ops = EltwiseOf(c, n);
  if (!ops) c.Fail(n, "no oneDNN eltwise");
  bool dies = c.DiesHere(n.inputs[0]);
  int v = c.Use(n.inputs[0]);
  const Desc desc = c.DescOf(v);
  for (size_t k = 0; k < ops->size(); ++k) {
    const EltwiseOp& e = (*ops)[k];
    dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference, e.algorithm, desc, e.alpha, e.beta);
    dnnl::eltwise_forward::primitive_desc pd(d, c.Attr(), c.engine());
    bool last = k + 1 == ops->size();
    // The first op writes a fresh value unless the input dies here; later ones
    // rewrite that value in place.
    int out = k > 0 ? c.Alias(last ? n.outputs[0] : "", v, desc)
              : dies ? c.Alias(last ? n.outputs[0] : "", v, desc)
                     : c.Define(last ? n.outputs[0] : "", desc);
    c.Emit(pd, dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, v}, {DNNL_ARG_DST, out}}, n.Label());
    v = out;
  }
}

dnnl::algorithm BinaryAlgorithm(const std::string& op) {
  if (op == "Add") return dnnl::algorithm::binary_add;
  if (op == "Sub") return dnnl::algorithm::binary_sub;
  if (op == "Mul") return dnnl::algorithm::binary_mul;
  return dnnl::algorithm::binary_div;
}

// (Not Max/Min: oneDNN's drop NaN, where ONNX propagates it.)
bool Commutes(const std::string& op) { return op == "Add" || op == "Mul"; }

// Input order for oneDNN: src0 has the output's shape, src1 broadcasts.
// Returns {} when neither input can be src0.
std::vector<size_t> BinaryOrder(const Node& n, const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                const std::vector<int64_t>& y) {
  if (a == y) return {0, 1};
  if (b == y && Commutes(n.op_type)) return {1, 0};
  return {};
}

std::string CheckBinary(const NodeQuery& q) {
  if (q.node.inputs.size() != 2) return "oneDNN binary takes exactly two inputs";
  auto a = q.input_type(0)->StaticShape(), b = q.input_type(1)->StaticShape(), y = q.output_type(0)->StaticShape();
  if (b->size() > a->size() && !Commutes(q.node.op_type)) return "second input has the higher rank";
  if (BinaryOrder(q.node, *a, *b, *y).empty()) return "the broadcast input is the first operand";
  if (y->size() > 6) return "rank above 6";
  return "";
}

// `name` as a plain value of `dims` (its own dims with leading 1s added).
int PlainWithDims(Compiler& c, const std::string& name, const Dims& dims) {
  if (const Tensor* t = c.ConstantOf(name)) return c.Constant(*t, PlainDesc(dims), PlainDesc(dims));
  return c.Alias("", c.AsPlain(c.Use(name)), PlainDesc(dims));
}

// Squeeze-and-excitation's channel scaling: x [N,C,H,W] channels-last times
// s [N or 1, C, 1, 1] as one pass of our own, in place when x dies here.
// oneDNN 2.6's binary (jit:uni) took 0.36 ms per efficientnet_b0 run at 1
// thread and 0.58 at 2. Returns false (nothing emitted) for other shapes.
bool LowerChannelScale(Compiler& c, const Node& n, const std::string& first, const std::string& second,
                       const std::vector<int64_t>& y, const Dims& small_dims) {
  if (n.op_type != "Mul" || y.size() != 4 || small_dims.size() != 4 || small_dims[1] != y[1] ||
      small_dims[2] != 1 || small_dims[3] != 1 || (small_dims[0] != 1 && small_dims[0] != y[0]))
    return false;
  const bool dies = c.DiesHere(first);
  const int x = c.Use(first);
  if (!IsChannelsLastDense(c.DescOf(x))) return false;
  const int s = PlainWithDims(c, second, small_dims);
  const Desc desc = c.DescOf(x);
  const int dst = dies ? c.Alias(n.outputs[0], x, desc) : c.Define(n.outputs[0], desc);
  const int64_t channels = y[1], pixels = y[2] * y[3];
  const bool per_image = small_dims[0] != 1;
  c.EmitHost(
      [channels, pixels, per_image](const std::unordered_map<int, dnnl::memory>& args) {
        const float* in = static_cast<const float*>(args.at(DNNL_ARG_SRC_0).get_data_handle());
        const float* scale = static_cast<const float*>(args.at(DNNL_ARG_SRC_1).get_data_handle());
        float* out = static_cast<float*>(args.at(DNNL_ARG_DST).get_data_handle());
        const int64_t n = static_cast<int64_t>(args.at(DNNL_ARG_SRC_0).get_desc().get_size() / sizeof(float));
        // Split like the SiLU pass before it (usually), so each thread
        // rereads the lines it wrote there (see kHostChunk).
        ForEachHostChunk(n, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end;) {
            // A partial first row, the whole rows of one image, or a partial last row.
            const int64_t image = i / (pixels * channels), c0 = i % channels;
            const float* s = scale + (per_image ? image * channels : 0);
            const int64_t image_end = std::min(end, (image + 1) * pixels * channels);
            const int64_t rows = c0 == 0 ? (image_end - i) / channels : 0;
            if (rows > 0) {
              cpu::ScaleShiftRowsF32(in + i, channels, s, nullptr, out + i, channels, rows, channels, false);
              i += rows * channels;
            } else {
              const int64_t len = std::min(channels - c0, image_end - i);
              cpu::ScaleShiftRowsF32(in + i, 0, s + c0, nullptr, out + i, 0, 1, len, false);
              i += len;
            }
          }
        });
      },
      {{DNNL_ARG_SRC_0, x}, {DNNL_ARG_SRC_1, s}, {DNNL_ARG_DST, dst}}, n.Label());
  return true;
}

void LowerBinary(Compiler& c, const Node& n) {
  if (LowerGeluAt(c, n)) return;
  std::vector<int64_t> a = c.ShapeOf(n.inputs[0]), b = c.ShapeOf(n.inputs[1]), y = c.ShapeOf(n.outputs[0]);
  std::vector<size_t> order = BinaryOrder(n, a, b, y);
  if (order.empty()) c.Fail(n, "unsupported broadcast");
  const std::string& first = n.inputs[order[0]];
  const std::string& second = n.inputs[order[1]];
  std::vector<int64_t> small = order[0] == 0 ? b : a;
  // src1 takes src0's layout when the shapes agree, else a plain broadcast.
  Dims small_dims(y.size() - small.size(), 1);
  small_dims.insert(small_dims.end(), small.begin(), small.end());
  if (LowerChannelScale(c, n, first, second, y, small_dims)) return;
  bool dies = c.DiesHere(first);
  int src0 = c.Use(first);
  auto src1_desc = [&] { return small == y ? c.DescOf(src0) : PlainDesc(small_dims); };
  PostOpChain chain = AbsorbPostOps(c, n.outputs[0], false);
  dnnl::primitive_attr attr = c.Attr();
  attr.set_post_ops(chain.ops);
  auto make_pd = [&] {
    dnnl::binary::desc d(BinaryAlgorithm(n.op_type), c.DescOf(src0), src1_desc(), c.DescOf(src0));
    return dnnl::binary::primitive_desc(d, attr, c.engine());
  };
  dnnl::binary::primitive_desc pd = make_pd();
  // Only oneDNN's reference kernel takes some layouts (the strided view a
  // Transpose leaves, 8 ms for a 12x197x64 Div in vit_b_16): go plain then.
  if (std::string(pd.impl_info_str()).find("ref") != std::string::npos &&
      !(c.DescOf(src0) == PlainDesc(c.DescOf(src0).dims()))) {
    src0 = c.AsPlain(src0);
    dies = true;  // a copy of its own now
    pd = make_pd();
  }
  int src1 = small == y ? c.As(c.Use(second), c.DescOf(src0)) : PlainWithDims(c, second, small_dims);
  const Desc desc = c.DescOf(src0);
  int dst = dies ? c.Alias(chain.output, src0, desc) : c.Define(chain.output, desc);
  c.Emit(pd, dnnl::binary(pd), {{DNNL_ARG_SRC_0, src0}, {DNNL_ARG_SRC_1, src1}, {DNNL_ARG_DST, dst}}, n.Label());
}

// Erf has no oneDNN eltwise (GELU's Erf is absorbed into gelu_erf before
// it is reached): our vectorized kernel, over every stored value (padding
// is zero, and erf(0) = 0).
void LowerErf(Compiler& c, const Node& n) {
  bool dies = c.DiesHere(n.inputs[0]);
  int src = c.Use(n.inputs[0]);
  const Desc desc = c.DescOf(src);
  int dst = dies ? c.Alias(n.outputs[0], src, desc) : c.Define(n.outputs[0], desc);
  c.EmitHost(ElementwiseHostStep(cpu::ErfF32), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, n.Label());
}

std::string CheckErf(const NodeQuery&) { return ""; }

// Where(cond, X, Y) as attention masks use it (GPT-2's causal mask): cond a
// constant that repeats over the output's leading axes, one of X and Y the
// data (the output's shape), the other a constant single value. Returns
// the trailing element count cond covers, or 0 with *why set.
int64_t MaskExtent(const NodeQuery& q, std::string* why) {
  const Tensor* cond = q.constant_input(0);
  if (cond == nullptr || cond->dtype() != DataType::kBool) return *why = "condition not a constant bool tensor", 0;
  const Tensor* x = q.constant_input(1);
  const Tensor* y = q.constant_input(2);
  if ((x == nullptr) == (y == nullptr)) return *why = "not one data operand and one constant", 0;
  const Tensor* fill = x != nullptr ? x : y;
  if (fill->dtype() != DataType::kFloat || fill->numel() != 1) return *why = "the constant operand is not one float", 0;
  auto out = *q.output_type(0)->StaticShape();
  auto data = *q.input_type(x != nullptr ? 2 : 1)->StaticShape();
  if (data != out) return *why = "the data operand broadcasts", 0;
  std::vector<int64_t> c = cond->shape();
  if (c.size() > out.size()) return *why = "condition of higher rank", 0;
  c.insert(c.begin(), out.size() - c.size(), 1);
  // cond = [1, ..., 1, out[k], ..., out[r-1]] for some k.
  size_t k = out.size();
  while (k > 0 && c[k - 1] == out[k - 1]) --k;
  for (size_t i = 0; i < k; ++i)
    if (c[i] != 1) return *why = "condition broadcasts other than over leading axes", 0;
  int64_t inner = 1;
  for (size_t i = k; i < out.size(); ++i) inner *= out[i];
  return std::max<int64_t>(inner, 1);
}

std::string CheckWhere(const NodeQuery& q) {
  std::string why;
  return MaskExtent(q, &why) > 0 ? "" : why;
}

void LowerWhere(Compiler& c, const Node& n) {
  const Tensor* x_const = c.ConstantOf(n.inputs[1]);
  const std::string& data = n.inputs[x_const != nullptr ? 2 : 1];
  const float fill = (x_const != nullptr ? *x_const : *c.ConstantOf(n.inputs[2])).data<float>()[0];
  const bool fill_when_true = x_const != nullptr;
  const Tensor& cond = *c.ConstantOf(n.inputs[0]);
  // keep[j]: whether the data passes through at position j of the mask.
  auto keep = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(cond.numel()));
  for (int64_t i = 0; i < cond.numel(); ++i) (*keep)[static_cast<size_t>(i)] = cond.data<bool>()[i] != fill_when_true;
  const int64_t inner = static_cast<int64_t>(keep->size());
  const bool dies = c.DiesHere(data);
  const int src = c.AsPlain(c.Use(data));
  const Desc desc = c.DescOf(src);
  const int dst = dies ? c.Alias(n.outputs[0], src, desc) : c.Define(n.outputs[0], desc);
  c.EmitHost(
      [keep, inner, fill](const std::unordered_map<int, dnnl::memory>& a) {
        const float* x = static_cast<const float*>(a.at(DNNL_ARG_SRC).get_data_handle());
        float* y = static_cast<float*>(a.at(DNNL_ARG_DST).get_data_handle());
        const int64_t total = static_cast<int64_t>(a.at(DNNL_ARG_SRC).get_desc().get_size() / sizeof(float));
        ForEachHostChunk(total, [&](int64_t begin, int64_t end) {
          // Runs of the mask: from i to the mask's end or the chunk's.
          for (int64_t i = begin; i < end;) {
            const int64_t j = i % inner, len = std::min(inner - j, end - i);
            cpu::MaskedFillF32(x + i, keep->data() + j, fill, y + i, len);
            i += len;
          }
        });
      },
      {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, n.Label());
}

}  // namespace

std::vector<DnnlRow> EltwiseRows() {
  std::vector<DnnlRow> rows;
  auto unary = [&](const char* op, int64_t first, std::vector<size_t> constants = {}) {
    rows.push_back(Row("ai.onnx", op, first, kMaxOnnxOpset, std::move(constants), CheckUnary, LowerUnary));
  };
  // Not Log: oneDNN's is approximate (log(1) = -1.4e-6), where ONNX tests expect exact zeros.
  for (const char* op : {"Relu", "LeakyRelu", "Elu", "Sigmoid", "Tanh", "Exp", "Sqrt", "Abs", "Neg",
                         "HardSigmoid"})
    unary(op, 6);
  unary("HardSwish", 14);
  unary("Mish", 18);
  unary("Gelu", 20);
  unary("Clip", 6, {1, 2});
  rows.push_back(Row("ai.onnx", "Erf", 9, kMaxOnnxOpset, {}, CheckErf, LowerErf));
  rows.push_back(Row("ai.onnx", "Where", 9, kMaxOnnxOpset, {0}, CheckWhere, LowerWhere));
  // Opsets before 7 broadcast with `axis`/`broadcast` attributes instead.
  for (const char* op : {"Add", "Sub", "Mul", "Div"})
    rows.push_back(Row("ai.onnx", op, 7, kMaxOnnxOpset, {}, CheckBinary, LowerBinary));
  return rows;
}

}  // namespace tessera::dnnl_ep
