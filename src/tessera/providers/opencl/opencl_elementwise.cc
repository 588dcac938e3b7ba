// Elementwise float kernels: unary math and activations, and binary
// arithmetic with numpy broadcasting (Add, Sub, Mul, Div, Pow, PRelu and the
// variadic Max, Min, Sum, Mean).
#include <cmath>

#include "tessera/providers/opencl/opencl_families.h"
#include "tessera/providers/opencl/opencl_kernel_util.h"

namespace tessera::opencl {

const char* const kElementwiseSource = R"CLC(
float ts_unary(int op, float v, float a, float b) {
  switch (op) {
    case 0: return v < 0.0f ? 0.0f : v;                       /* Relu */
    case 1: return 1.0f / (1.0f + exp(-v));                   /* Sigmoid */
    case 2: return tanh(v);
    case 3: return exp(v);
    case 4: return log(v);
    case 5: return sqrt(v);
    case 6: return fabs(v);
    case 7: return -v;
    case 8: return 1.0f / v;                                  /* Reciprocal */
    case 9: return floor(v);
    case 10: return ceil(v);
    case 11: return erf(v);
    case 12: return sin(v);
    case 13: return cos(v);
    case 14: return v > 0.0f ? v + log1p(exp(-v)) : log1p(exp(v)); /* Softplus */
    case 15: return v / (1.0f + fabs(v));                     /* Softsign */
    case 16: return v >= 0.0f ? v : a * v;                    /* LeakyRelu */
    case 17: return v > 0.0f ? v : a * (exp(v) - 1.0f);       /* Elu */
    case 18: return b * (v > 0.0f ? v : a * (exp(v) - 1.0f)); /* Selu (alpha, gamma) */
    case 19: return fmax(0.0f, fmin(1.0f, a * v + b));        /* HardSigmoid */
    case 20: return v * fmax(0.0f, fmin(1.0f, v / 6.0f + 0.5f)); /* HardSwish */
    case 21: { float r = v < a ? a : v; return r > b ? b : r; } /* Clip: min then max; NaN stays NaN */
    case 22: return 0.5f * v * (1.0f + erf(v * 0.70710678118654752f)); /* Gelu */
    case 23: return 0.5f * v * (1.0f + tanh(0.79788456080286536f * (v + 0.044715f * v * v * v))); /* Gelu tanh */
    case 24: return v * a;                                    /* scale (Mean) */
    case 25: return v;                                        /* copy */
    case 26: return v * (1.0f / (1.0f + exp(-a * v)));        /* Swish (alpha) */
    case 27: return v > a ? v : 0.0f;                         /* ThresholdedRelu */
    default: return NAN;
  }
}

__kernel void ts_unary_f32(__global const float* x, __global float* y, int n, int op, float a, float b) {
  int i = get_global_id(0);
  if (i < n) y[i] = ts_unary(op, x[i], a, b);
}

float ts_binary(int op, float a, float b) {
  switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / b;
    case 4: return pow(a, b);
    case 5: return (a > b || isnan(a)) ? a : b; /* Max: NaN propagates */
    case 6: return (a < b || isnan(a)) ? a : b; /* Min */
    case 7: return a < 0.0f ? a * b : a; /* PRelu */
    default: return NAN;
  }
}

__kernel void ts_binary_same_f32(__global const float* a, __global const float* b, __global float* y, int n, int op) {
  int i = get_global_id(0);
  if (i < n) y[i] = ts_binary(op, a[i], b[i]);
}

__kernel void ts_binary_bcast_f32(__global const float* a, __global const float* b, __global float* y, ts_bcast info,
                                  int op) {
  int i = get_global_id(0);
  if (i >= info.n) return;
  int2 o = ts_bcast_offsets(&info, i);
  y[i] = ts_binary(op, a[o.x], b[o.y]);
}
)CLC";

namespace {

enum UnaryOp {
  kRelu = 0, kSigmoid, kTanh, kExp, kLog, kSqrt, kAbs, kNeg, kReciprocal, kFloor, kCeil, kErf, kSin, kCos,
  kSoftplus, kSoftsign, kLeakyRelu, kElu, kSelu, kHardSigmoid, kHardSwish, kClip, kGelu, kGeluTanh, kScale, kCopy,
  kSwish, kThresholdedRelu
};
enum BinaryOp { kAdd = 0, kSub, kMul, kDiv, kPow, kMax, kMin, kPRelu };

void LaunchUnary(Runtime& rt, const Tensor& x, const Tensor& y, int op, float a, float b) {
  rt.Launch1D("ts_unary_f32", {MemOf(x), MemOf(y), KernelArg::Value(I32(x.numel())), KernelArg::Value(op),
                               KernelArg::Value(a), KernelArg::Value(b)},
              static_cast<size_t>(x.numel()));
}

Tensor LaunchBinary(const KernelContext& ctx, const std::shared_ptr<Runtime>& rt, const Tensor& a, const Tensor& b,
                    int op) {
  CheckIndexable(ctx, a);
  CheckIndexable(ctx, b);
  if (a.shape() == b.shape()) {
    Tensor y = NewDeviceTensor(rt, DataType::kFloat, a.shape());
    rt->Launch1D("ts_binary_same_f32", {MemOf(a), MemOf(b), MemOf(y), KernelArg::Value(I32(a.numel())),
                                        KernelArg::Value(op)},
                 static_cast<size_t>(a.numel()));
    return y;
  }
  Shape shape;
  BroadcastInfo info = MakeBroadcast(ctx, a.shape(), b.shape(), &shape);
  Tensor y = NewDeviceTensor(rt, DataType::kFloat, shape);
  rt->Launch1D("ts_binary_bcast_f32", {MemOf(a), MemOf(b), MemOf(y), KernelArg::Value(info), KernelArg::Value(op)},
               static_cast<size_t>(y.numel()));
  return y;
}

// A unary op with up to two float parameters taken from attributes.
class Unary final : public OpenClKernel {
 public:
  Unary(int op, float a, float b) : op_(op), a_(a), b_(b) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    CheckIndexable(ctx, x);
    Tensor y = NewOutput(ctx, 0, DataType::kFloat, x.shape());
    LaunchUnary(rt(), x, y, op_, a_, b_);
  }

 private:
  int op_;
  float a_, b_;
};

KernelFactory UnaryFactory(int op, const char* attr_a = nullptr, float default_a = 0, const char* attr_b = nullptr,
                           float default_b = 0) {
  return [=](const KernelInfo& info) -> std::unique_ptr<OpKernel> {
    float a = attr_a ? info.attr_float(attr_a, default_a) : default_a;
    float b = attr_b ? info.attr_float(attr_b, default_b) : default_b;
    return std::make_unique<Unary>(op, a, b);
  };
}

// Clip from opset 11: min and max are optional scalar inputs, read on the host.
class ClipInputs final : public OpenClKernel {
 public:
  explicit ClipInputs(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    CheckIndexable(ctx, x);
    float lo = -INFINITY, hi = INFINITY;
    if (ctx.has_input(1)) {
      if (ctx.input(1).numel() != 1) ctx.Fail("min must be a scalar, got ", ctx.input(1).Describe());
      lo = static_cast<float>(ctx.input(1).GetAsDouble(0));
    }
    if (ctx.has_input(2)) {
      if (ctx.input(2).numel() != 1) ctx.Fail("max must be a scalar, got ", ctx.input(2).Describe());
      hi = static_cast<float>(ctx.input(2).GetAsDouble(0));
    }
    Tensor y = NewOutput(ctx, 0, DataType::kFloat, x.shape());
    LaunchUnary(rt(), x, y, kClip, lo, hi);
  }
};

class Binary final : public OpenClKernel {
 public:
  explicit Binary(int op) : op_(op) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (op_ == kPRelu) {
      Shape s;
      MakeBroadcast(ctx, a.shape(), b.shape(), &s);
      if (s != a.shape())
        ctx.Fail("slope ", b.Describe(), " cannot be broadcast unidirectionally to X ", a.Describe());
    }
    ctx.set_output(0, LaunchBinary(ctx, runtime(), a, b, op_));
  }

 private:
  int op_;
};

// Max / Min / Sum / Mean over 1..N inputs, folded pairwise.
class Variadic final : public OpenClKernel {
 public:
  Variadic(int op, bool mean) : op_(op), mean_(mean) {}
  void Compute(KernelContext& ctx) const override {
    size_t n = ctx.num_inputs();
    if (n == 0) ctx.Fail("needs at least one input");
    Tensor acc = ctx.input(0);
    CheckIndexable(ctx, acc);
    if (n == 1) {
      Tensor y = NewDeviceTensor(runtime(), DataType::kFloat, acc.shape());
      LaunchUnary(rt(), acc, y, kCopy, 0, 0);
      acc = y;
    }
    for (size_t i = 1; i < n; ++i) acc = LaunchBinary(ctx, runtime(), acc, ctx.input(i), op_);
    if (mean_) LaunchUnary(rt(), acc, acc, kScale, 1.0f / static_cast<float>(n), 0);
    ctx.set_output(0, acc);
  }

 private:
  int op_;
  bool mean_;
};

OpenClRow Row(const char* op, int64_t first, int64_t last, KernelFactory f, std::vector<size_t> host_inputs = {}) {
  return OpenClRow{KernelRow{kOnnxDomain, op, first, last, {DataType::kFloat}, std::move(f)}, std::move(host_inputs), {},
                   [](const NodeQuery& q) { return FloatInputs(q); }};
}

}  // namespace

std::vector<OpenClRow> ElementwiseRows() {
  // Rows start where the float semantics took their current form (opset 6
  // dropped the legacy consumed_inputs attribute; opset 7 brought numpy
  // broadcasting to binary ops). Newer versions only added element types.
  std::vector<OpenClRow> rows;
  struct U { const char* op; int64_t first; int code; };
  for (U u : {U{"Relu", 6, kRelu}, U{"Sigmoid", 6, kSigmoid}, U{"Tanh", 6, kTanh}, U{"Exp", 6, kExp},
              U{"Log", 6, kLog}, U{"Sqrt", 6, kSqrt}, U{"Abs", 6, kAbs}, U{"Neg", 6, kNeg},
              U{"Reciprocal", 6, kReciprocal}, U{"Floor", 6, kFloor}, U{"Ceil", 6, kCeil}, U{"Erf", 9, kErf},
              U{"Sin", 7, kSin}, U{"Cos", 7, kCos}, U{"Softplus", 1, kSoftplus}, U{"Softsign", 1, kSoftsign},
              U{"HardSwish", 14, kHardSwish}})
    rows.push_back(Row(u.op, u.first, kMaxOnnxOpset, UnaryFactory(u.code)));
  rows.push_back(Row("LeakyRelu", 6, kMaxOnnxOpset, UnaryFactory(kLeakyRelu, "alpha", 0.01f)));
  rows.push_back(Row("Elu", 6, kMaxOnnxOpset, UnaryFactory(kElu, "alpha", 1.0f)));
  rows.push_back(Row("Selu", 6, kMaxOnnxOpset, UnaryFactory(kSelu, "alpha", 1.67326319217681884765625f, "gamma",
                                                            1.05070102214813232421875f)));
  rows.push_back(Row("HardSigmoid", 6, kMaxOnnxOpset, UnaryFactory(kHardSigmoid, "alpha", 0.2f, "beta", 0.5f)));
  rows.push_back(Row("ThresholdedRelu", 10, kMaxOnnxOpset, UnaryFactory(kThresholdedRelu, "alpha", 1.0f)));
  rows.push_back(Row("Swish", 24, kMaxOnnxOpset, UnaryFactory(kSwish, "alpha", 1.0f)));
  rows.push_back(Row("Gelu", 20, kMaxOnnxOpset, [](const KernelInfo& info) -> std::unique_ptr<OpKernel> {
    std::string approx = info.attr_string("approximate", "none");
    if (approx != "none" && approx != "tanh") info.Fail("approximate must be 'none' or 'tanh', got '", approx, "'");
    return std::make_unique<Unary>(approx == "tanh" ? kGeluTanh : kGelu, 0.0f, 0.0f);
  }));
  rows.push_back(Row("Clip", 6, 10, UnaryFactory(kClip, "min", -INFINITY, "max", INFINITY)));
  auto clip = Row("Clip", 11, kMaxOnnxOpset, Make<ClipInputs>(), {1, 2});
  clip.check = [](const NodeQuery& q) {
    const TypeInfo* t = q.input_type(0);
    return t && t->is_tensor() && t->elem_type == DataType::kFloat ? std::string() : std::string("input 0 is not float");
  };
  rows.push_back(std::move(clip));
  struct B { const char* op; int64_t first; int code; };
  for (B b : {B{"Add", 7, kAdd}, B{"Sub", 7, kSub}, B{"Mul", 7, kMul}, B{"Div", 7, kDiv}, B{"Pow", 7, kPow},
              B{"PRelu", 9, kPRelu}})
    rows.push_back(Row(b.op, b.first, kMaxOnnxOpset, [code = b.code](const KernelInfo&) -> std::unique_ptr<OpKernel> {
      return std::make_unique<Binary>(code);
    }));
  struct V { const char* op; int code; bool mean; };
  for (V v : {V{"Max", kMax, false}, V{"Min", kMin, false}, V{"Sum", kAdd, false}, V{"Mean", kAdd, true}})
    rows.push_back(Row(v.op, 8, kMaxOnnxOpset, [v](const KernelInfo&) -> std::unique_ptr<OpKernel> {
      return std::make_unique<Variadic>(v.code, v.mean);
    }));
  return rows;
}

}  // namespace tessera::opencl
