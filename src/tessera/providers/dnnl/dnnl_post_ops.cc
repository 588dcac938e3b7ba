#include "tessera/providers/dnnl/dnnl_post_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tessera/ops/kernel.h"
#include "tessera/providers/common/simd_elementwise.h"
#include "tessera/providers/dnnl/dnnl_compiler.h"

namespace tessera::dnnl_ep {

using alg = dnnl::algorithm;

namespace {

constexpr float kLowest = std::numeric_limits<float>::lowest();
constexpr float kMax = std::numeric_limits<float>::max();

std::optional<float> ScalarOf(const Tensor* t) {
  if (t == nullptr || t->numel() != 1) return std::nullopt;
  return static_cast<float>(t->GetAsDouble(0));
}

}  // namespace

std::optional<std::vector<EltwiseOp>> EltwiseOf(const Node& node, int64_t opset,
                                                const std::function<const Tensor*(size_t)>& constant_input) {
  if (node.domain != "ai.onnx" && !node.domain.empty()) return std::nullopt;
  KernelInfo info(node, opset);
  const std::string& op = node.op_type;
  using V = std::vector<EltwiseOp>;
  if (op == "Relu") return V{{alg::eltwise_relu}};
  if (op == "LeakyRelu") return V{{alg::eltwise_relu, info.attr_float("alpha", 0.01f)}};
  if (op == "Elu") return V{{alg::eltwise_elu, info.attr_float("alpha", 1.0f)}};
  if (op == "Sigmoid") return V{{alg::eltwise_logistic}};
  if (op == "Tanh") return V{{alg::eltwise_tanh}};
  if (op == "Exp") return V{{alg::eltwise_exp}};
  if (op == "Log") return V{{alg::eltwise_log}};
  if (op == "Sqrt") return V{{alg::eltwise_sqrt}};
  if (op == "Abs") return V{{alg::eltwise_abs}};
  if (op == "Neg") return V{{alg::eltwise_linear, -1.0f, 0.0f}};
  if (op == "HardSwish") return V{{alg::eltwise_hardswish}};
  if (op == "Mish") return V{{alg::eltwise_mish}};
  if (op == "HardSigmoid")
    return V{{alg::eltwise_linear, info.attr_float("alpha", 0.2f), info.attr_float("beta", 0.5f)},
             {alg::eltwise_clip, 0.0f, 1.0f}};
  if (op == "Gelu") {
    std::string approx = info.attr_string("approximate", "none");
    if (approx == "none") return V{{alg::eltwise_gelu_erf}};
    if (approx == "tanh") return V{{alg::eltwise_gelu_tanh}};
    return std::nullopt;
  }
  if (op == "Clip") {
    float lo = kLowest, hi = kMax;
    if (opset < 11) {
      lo = info.attr_float("min", kLowest);
      hi = info.attr_float("max", kMax);
    } else {
      for (size_t i : {size_t{1}, size_t{2}}) {
        if (i >= node.inputs.size() || node.inputs[i].empty()) continue;
        auto v = ScalarOf(constant_input(i));
        if (!v) return std::nullopt;
        (i == 1 ? lo : hi) = *v;
      }
    }
    // oneDNN's clip keeps NaN bounds out; Clip with lo > hi is all hi in ONNX.
    if (lo != lo || hi != hi || lo > hi) return std::nullopt;
    return V{{alg::eltwise_clip, lo, hi}};
  }
  return std::nullopt;
}

std::optional<std::vector<EltwiseOp>> EltwiseOf(const Compiler& c, const Node& node) {
  return EltwiseOf(node, c.OpsetOf(node), [&](size_t i) { return c.ConstantOf(node.inputs[i]); });
}

std::optional<std::vector<EltwiseOp>> FusedActivationOf(const Node& node) {
  KernelInfo info(node, 1);
  std::string a = info.attr_string("activation", "");
  std::vector<float> p = info.attr_floats("activation_params", {});
  using V = std::vector<EltwiseOp>;
  auto param = [&](size_t i) { return i < p.size() ? p[i] : 0.0f; };
  if (a.empty() || a == "None") return V{};
  if (a == "Relu") return V{{alg::eltwise_relu}};
  if (a == "Clip") return V{{alg::eltwise_clip, param(0), param(1)}};
  if (a == "LeakyRelu") return V{{alg::eltwise_relu, param(0)}};
  if (a == "Sigmoid") return V{{alg::eltwise_logistic}};
  if (a == "HardSigmoid") return V{{alg::eltwise_linear, param(0), param(1)}, {alg::eltwise_clip, 0.0f, 1.0f}};
  if (a == "Silu") return V{{alg::eltwise_swish, 1.0f}};
  if (a == "Gelu") return V{{alg::eltwise_gelu_erf}};
  if (a == "GeluTanh") return V{{alg::eltwise_gelu_tanh}};
  return std::nullopt;
}

namespace {

// x * Sigmoid(x): `output` feeds a Sigmoid and a Mul, and the Mul multiplies
// it by that Sigmoid. Returns the Mul.
const Node* SiluAfter(const Compiler& c, const std::string& output, const Node** sigmoid) {
  auto readers = c.Consumers(output);
  if (readers.size() != 2) return nullptr;
  const Node* sig = readers[0]->op_type == "Sigmoid" ? readers[0] : readers[1];
  const Node* mul = sig == readers[0] ? readers[1] : readers[0];
  if (!IsOnnxOp(*sig, "Sigmoid") || !IsOnnxOp(*mul, "Mul") || sig->outputs.size() != 1)
    return nullptr;
  if (c.SoleConsumer(sig->outputs[0]) != mul || mul->inputs.size() != 2) return nullptr;
  bool pair = (mul->inputs[0] == output && mul->inputs[1] == sig->outputs[0]) ||
              (mul->inputs[1] == output && mul->inputs[0] == sig->outputs[0]);
  if (!pair) return nullptr;
  *sigmoid = sig;
  return mul;
}

// Whether `name` is a constant scalar within 1e-6 (relative) of `want`.
bool ConstantNear(const Compiler& c, const std::string& name, double want) {
  std::optional<float> v = ScalarOf(c.ConstantOf(name));
  return v && std::abs(*v - want) <= 1e-6 * std::abs(want);
}

// The input of a two-input node other than `name`, or "" when `name` is
// not one of its inputs.
std::string OtherInput(const Node& n, const std::string& name) {
  if (n.inputs.size() != 2) return "";
  if (n.inputs[0] == name) return n.inputs[1];
  if (n.inputs[1] == name) return n.inputs[0];
  return "";
}

bool SameShape(const Compiler& c, const std::string& a, const std::string& b) {
  return c.ShapeOf(a) == c.ShapeOf(b);
}

}  // namespace

namespace {

// The end of 0.5 * x * (1 + f(x)): `one_plus` computes 1 + f, `other` is the
// remaining reader of x. Either other = x * (1 + f) and the last node halves
// it, or other = 0.5 * x and the last node multiplies it by (1 + f).
const Node* GeluTail(const Compiler& c, const std::string& x, const Node* one_plus, const Node* other) {
  if (!IsOnnxOp(*other, "Mul")) return nullptr;
  const std::string other_in = OtherInput(*other, x);
  if (other_in == one_plus->outputs[0]) {
    const Node* last = c.SoleConsumer(other->outputs[0]);
    if (last == nullptr || !IsOnnxOp(*last, "Mul") || !ConstantNear(c, OtherInput(*last, other->outputs[0]), 0.5))
      return nullptr;
    return last;
  }
  if (!ConstantNear(c, other_in, 0.5)) return nullptr;
  const Node* last = c.SoleConsumer(one_plus->outputs[0]);
  if (last == nullptr || last != c.SoleConsumer(other->outputs[0]) || !IsOnnxOp(*last, "Mul") ||
      OtherInput(*last, one_plus->outputs[0]) != other->outputs[0])
    return nullptr;
  return last;
}

// The single reader of `value` if it is an `op` node taking `value` and a
// constant near `constant` (either order), else null.
const Node* ReaderWithConstant(const Compiler& c, const std::string& value, const char* op, double constant) {
  const Node* n = c.SoleConsumer(value);
  if (n == nullptr || !IsOnnxOp(*n, op) || !ConstantNear(c, OtherInput(*n, value), constant)) return nullptr;
  return n;
}

// Erf form: x / sqrt 2 (or x * 1/sqrt 2) -> Erf -> + 1.
std::optional<GeluMatch> MatchErfForm(const Compiler& c, const std::string& x, const std::vector<const Node*>& readers) {
  if (readers.size() != 2) return std::nullopt;
  for (int first = 0; first < 2; ++first) {
    const Node* scale = readers[static_cast<size_t>(first)];
    const Node* other = readers[static_cast<size_t>(1 - first)];
    bool scaled = (IsOnnxOp(*scale, "Div") && scale->inputs.size() == 2 && scale->inputs[0] == x &&
                   ConstantNear(c, scale->inputs[1], 1.4142135623730951)) ||
                  (IsOnnxOp(*scale, "Mul") && ConstantNear(c, OtherInput(*scale, x), 0.7071067811865476));
    if (!scaled) continue;
    const Node* erf = c.SoleConsumer(scale->outputs[0]);
    if (erf == nullptr || !IsOnnxOp(*erf, "Erf") || erf->inputs[0] != scale->outputs[0]) continue;
    const Node* one_plus = ReaderWithConstant(c, erf->outputs[0], "Add", 1.0);
    if (one_plus == nullptr) continue;
    if (const Node* last = GeluTail(c, x, one_plus, other))
      return GeluMatch{{scale, erf, one_plus, other, last}, last->outputs[0], dnnl::algorithm::eltwise_gelu_erf};
  }
  return std::nullopt;
}

// Tanh form: x*x*x * 0.044715 + x, * sqrt(2/pi), Tanh, + 1. (Not with
// Pow(x, 3): Pow has no oneDNN row, so it would not be in the partition.)
std::optional<GeluMatch> MatchTanhForm(const Compiler& c, const std::string& x, const std::vector<const Node*>& readers) {
  std::vector<const Node*> cube_nodes;
  const Node* cube = nullptr;
  for (const Node* r : readers) {
    if (IsOnnxOp(*r, "Mul") && r->inputs.size() == 2 && r->inputs[0] == x && r->inputs[1] == x) {
      const Node* next = c.SoleConsumer(r->outputs[0]);
      if (next != nullptr && IsOnnxOp(*next, "Mul") && OtherInput(*next, r->outputs[0]) == x) {
        cube = next;
        cube_nodes = {r, next};
      }
    }
  }
  if (cube == nullptr) return std::nullopt;
  const Node* cubic = ReaderWithConstant(c, cube->outputs[0], "Mul", 0.044715);
  if (cubic == nullptr) return std::nullopt;
  const Node* inner = c.SoleConsumer(cubic->outputs[0]);
  if (inner == nullptr || !IsOnnxOp(*inner, "Add") || OtherInput(*inner, cubic->outputs[0]) != x) return std::nullopt;
  const Node* scale = ReaderWithConstant(c, inner->outputs[0], "Mul", 0.7978845608028654);  // sqrt(2 / pi)
  if (scale == nullptr) return std::nullopt;
  const Node* tanh = c.SoleConsumer(scale->outputs[0]);
  if (tanh == nullptr || !IsOnnxOp(*tanh, "Tanh")) return std::nullopt;
  const Node* one_plus = ReaderWithConstant(c, tanh->outputs[0], "Add", 1.0);
  if (one_plus == nullptr) return std::nullopt;
  // x's readers: the cube's, the inner Add, and one more (the tail).
  const Node* other = nullptr;
  for (const Node* r : readers) {
    if (r == inner || std::find(cube_nodes.begin(), cube_nodes.end(), r) != cube_nodes.end()) continue;
    if (other != nullptr) return std::nullopt;
    other = r;
  }
  if (other == nullptr) return std::nullopt;
  const Node* last = GeluTail(c, x, one_plus, other);
  if (last == nullptr) return std::nullopt;
  std::vector<const Node*> nodes = cube_nodes;
  for (const Node* n : {cubic, inner, scale, tanh, one_plus, other, last}) nodes.push_back(n);
  return GeluMatch{nodes, last->outputs[0], dnnl::algorithm::eltwise_gelu_tanh};
}

}  // namespace

std::optional<GeluMatch> MatchGelu(const Compiler& c, const std::string& x) {
  std::vector<const Node*> readers = c.Consumers(x);
  // A node reading x twice (x * x) is one reader.
  std::sort(readers.begin(), readers.end());
  readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
  if (auto m = MatchErfForm(c, x, readers)) return m;
  return MatchTanhForm(c, x, readers);
}

bool LowerGeluAt(Compiler& c, const Node& n) {
  for (const std::string& in : n.inputs) {
    std::optional<GeluMatch> g = MatchGelu(c, in);
    if (!g || std::find(g->nodes.begin(), g->nodes.end(), &n) == g->nodes.end()) continue;
    for (const Node* node : g->nodes)
      if (node != &n) c.Absorb(*node);
    int src = c.Use(in);
    const Desc desc = c.DescOf(src);
    dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference, g->algorithm, desc, 0.0f, 0.0f);
    dnnl::eltwise_forward::primitive_desc pd(d, c.Attr(), c.engine());
    int dst = c.Define(g->output, desc);
    c.Emit(pd, dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, n.Label() + " (GELU)");
    return true;
  }
  return false;
}

PostOpChain AbsorbPostOps(Compiler& c, const std::string& output, bool allow_sum, PostOpChain chain,
                          bool silu_as_post_op) {
  chain.output = output;
  for (;;) {
    const Node* sig = nullptr;
    if (const Node* mul = SiluAfter(c, chain.output, &sig)) {
      c.Absorb(*sig);
      c.Absorb(*mul);
      if (!silu_as_post_op) {
        chain.silu_output = mul->outputs[0];
        break;
      }
      chain.ops.append_eltwise(1.0f, alg::eltwise_swish, 1.0f, 0.0f);
      chain.output = mul->outputs[0];
      continue;
    }
    if (std::optional<GeluMatch> g = MatchGelu(c, chain.output)) {
      chain.ops.append_eltwise(1.0f, g->algorithm, 0.0f, 0.0f);
      for (const Node* node : g->nodes) c.Absorb(*node);
      chain.output = g->output;
      continue;
    }
    const Node* next = c.SoleConsumer(chain.output);
    if (next == nullptr || next->outputs.size() != 1 || next->inputs.empty()) break;
    if (next->inputs[0] == chain.output) {
      if (auto ops = EltwiseOf(c, *next)) {
        for (const auto& e : *ops) chain.ops.append_eltwise(1.0f, e.algorithm, e.alpha, e.beta);
        c.Absorb(*next);
        chain.output = next->outputs[0];
        continue;
      }
    }
    // A residual Add: out = producer + other, with other ready before the producer runs.
    if (allow_sum && chain.empty() && chain.sum_input.empty() && IsOnnxOp(*next, "Add") && next->inputs.size() == 2) {
      const std::string& other = next->inputs[0] == chain.output ? next->inputs[1] : next->inputs[0];
      if (other != chain.output && c.Available(other) && SameShape(c, other, chain.output) &&
          SameShape(c, other, next->outputs[0])) {
        chain.ops.append_sum(1.0f);
        chain.sum_input = other;
        c.Absorb(*next);
        chain.output = next->outputs[0];
        continue;
      }
    }
    break;
  }
  return chain;
}

namespace {

// When a GlobalAveragePool reads the SiLU's result `name` (channels-last,
// 4-D): one step computing the SiLU in place and the pool's channel means
// from the values as they are written, absorbing the pool (squeeze-and-
// excitation, efficientnet_b0). The pool's own pass reread every value,
// and at 2 threads it left each line shared by both cores, so the in-place
// scaling after it paid a cross-core invalidation per line.
bool EmitSiluWithChannelMeans(Compiler& c, const std::string& name, int value, int out, const std::string& label) {
  const Desc desc = c.DescOf(value);
  if (!IsChannelsLastDense(desc)) return false;
  const Node* gap = nullptr;
  for (const Node* n : c.Consumers(name))
    if (IsOnnxOp(*n, "GlobalAveragePool") && n->inputs.size() == 1 && n->outputs.size() == 1) gap = n;
  if (gap == nullptr) return false;
  const Dims dims = desc.dims();
  const int64_t images = dims[0], channels = dims[1], pixels = dims[2] * dims[3];
  const int64_t per_image = pixels * channels, chunks_per_image = (per_image + kHostChunk - 1) / kHostChunk;
  if (pixels == 0) return false;
  c.Absorb(*gap);
  const int partial = c.Temp(PlainDesc({images * chunks_per_image, channels}));
  const int means = c.Define(gap->outputs[0], DenseLike(desc, {images, channels, 1, 1}));
  c.EmitHost(
      [images, channels, pixels, per_image, chunks_per_image](const std::unordered_map<int, dnnl::memory>& a) {
        float* y = static_cast<float*>(a.at(DNNL_ARG_DST).get_data_handle());
        const float* x = static_cast<const float*>(a.at(DNNL_ARG_SRC).get_data_handle());
        float* sums = static_cast<float*>(a.at(DNNL_ARG_WORKSPACE).get_data_handle());
        float* mean = static_cast<float*>(a.at(DNNL_ARG_DST_1).get_data_handle());
        const int64_t chunks = images * chunks_per_image;
        TESSERA_HOST_PARALLEL_FOR(chunks > 1)
        for (int64_t k = 0; k < chunks; ++k) {
          const int64_t base = (k / chunks_per_image) * per_image;
          const int64_t begin = base + (k % chunks_per_image) * kHostChunk;
          const int64_t end = std::min(base + per_image, begin + kHostChunk);
          // [begin, end): a partial first row, whole rows (in blocks that stay
          // in L1 between the SiLU and the sums), a partial last row.
          float* acc = sums + k * channels;
          std::fill(acc, acc + channels, 0.f);
          int64_t i = begin;
          const int64_t head = std::min(end, begin + (channels - (begin - base) % channels) % channels);
          cpu::SiluF32(x + i, y + i, head - i);
          for (; i < head; ++i) acc[(i - base) % channels] += y[i];
          const int64_t block = std::max<int64_t>(1, 2048 / channels);
          for (int64_t rows = (end - i) / channels; rows > 0;) {
            const int64_t r = std::min(block, rows);
            cpu::SiluF32(x + i, y + i, r * channels);
            cpu::AddRowsF32(y + i, r, channels, acc);
            i += r * channels;
            rows -= r;
          }
          cpu::SiluF32(x + i, y + i, end - i);
          for (; i < end; ++i) acc[(i - base) % channels] += y[i];
        }
        for (int64_t image = 0; image < images; ++image)
          for (int64_t ch = 0; ch < channels; ++ch) {
            double s = 0;
            for (int64_t k = 0; k < chunks_per_image; ++k) s += sums[(image * chunks_per_image + k) * channels + ch];
            mean[image * channels + ch] = static_cast<float>(s / static_cast<double>(pixels));
          }
      },
      {{DNNL_ARG_SRC, value}, {DNNL_ARG_DST, out}, {DNNL_ARG_WORKSPACE, partial}, {DNNL_ARG_DST_1, means}},
      label + " (SiLU) + " + gap->Label());
  return true;
}

}  // namespace

void EmitTrailingSilu(Compiler& c, const PostOpChain& chain, int value, const std::string& label) {
  if (chain.silu_output.empty()) return;
  // In place: the SiLU's Sigmoid and Mul were the value's only readers.
  int out = c.Alias(chain.silu_output, value, c.DescOf(value));
  if (EmitSiluWithChannelMeans(c, chain.silu_output, value, out, label)) return;
  c.EmitHost(ElementwiseHostStep(cpu::SiluF32), {{DNNL_ARG_SRC, value}, {DNNL_ARG_DST, out}}, label + " (SiLU)");
}

int SumDestination(Compiler& c, const std::string& output, const std::string& sum_input, const dnnl::memory::desc& dst) {
  // (Not when the producer also reads it: a convolution reads neighbours.)
  bool dies = c.DiesHere(sum_input) && !c.ReadByCurrent(sum_input);
  int in = c.Use(sum_input);
  int ready = c.As(in, dst);
  // Accumulate in place when nothing else reads the addend afterwards (or
  // it was just reordered into a buffer of its own); else into a copy.
  if (ready != in || dies) return c.Alias(output, ready, dst);
  int out = c.Define(output, dst);
  dnnl::reorder::primitive_desc pd(c.engine(), dst, c.engine(), dst, c.Attr());
  c.Emit(pd, dnnl::reorder(pd), {{DNNL_ARG_FROM, ready}, {DNNL_ARG_TO, out}}, "copy of " + sum_input + " for a fused Add");
  return out;
}

}  // namespace tessera::dnnl_ep
