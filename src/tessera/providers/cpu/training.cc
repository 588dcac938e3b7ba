// Optimizer kernels of the ai.onnx.preview.training domain: Adagrad, Adam and
// Momentum (standard and Nesterov). Each takes a learning rate R, an update
// count T and groups of per-tensor state, and produces the updated groups.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {
namespace {

constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

// Reads the scalar learning rate R and update count T, and checks the variadic
// inputs split into `groups` equally sized groups whose tensors share shapes.
struct OptimizerArgs {
  double r = 0;
  int64_t t = 0;
  size_t n = 0;  // tensors optimized
};

OptimizerArgs ReadOptimizerArgs(const KernelContext& ctx, size_t groups, size_t out_groups) {
  OptimizerArgs a;
  if (ctx.num_inputs() < 2 + groups)
    ctx.Fail("expected R, T and ", groups, " groups of tensors, got ", ctx.num_inputs(), " inputs");
  const Tensor& r = ctx.input(0);
  const Tensor& t = ctx.input(1);
  if (r.numel() != 1) ctx.Fail("learning rate R must be a scalar, got ", r.Describe());
  if (r.dtype() != DataType::kFloat && r.dtype() != DataType::kDouble)
    ctx.Fail("learning rate R must be float or double, got ", DataTypeName(r.dtype()));
  if (t.numel() != 1) ctx.Fail("update count T must be a scalar, got ", t.Describe());
  if (t.dtype() != DataType::kInt64) ctx.Fail("update count T must be int64, got ", DataTypeName(t.dtype()));
  a.r = r.GetAsDouble(0);
  a.t = t.GetAsInt64(0);
  size_t rest = ctx.num_inputs() - 2;
  if (rest % groups != 0)
    ctx.Fail("expected R, T and ", groups, " equally sized groups of tensors, got ", ctx.num_inputs(), " inputs");
  a.n = rest / groups;
  if (ctx.num_outputs() > out_groups * a.n)
    ctx.Fail("expected at most ", out_groups * a.n, " outputs for ", a.n, " optimized tensors, got ",
             ctx.num_outputs());
  for (size_t i = 0; i < a.n; ++i) {
    const Tensor& x = ctx.input(2 + i);
    if (x.dtype() != DataType::kFloat && x.dtype() != DataType::kDouble)
      ctx.Fail("optimized tensor ", i, " must be float or double, got ", DataTypeName(x.dtype()));
    for (size_t g = 1; g < groups; ++g) {
      const Tensor& s = ctx.input(2 + g * a.n + i);
      if (s.dtype() != x.dtype())
        ctx.Fail("input ", 2 + g * a.n + i, " has type ", DataTypeName(s.dtype()), ", expected ",
                 DataTypeName(x.dtype()), " like its optimized tensor");
      if (s.shape() != x.shape())
        ctx.Fail("input ", 2 + g * a.n + i, " has shape ", ShapeToString(s.shape()), ", expected ",
                 ShapeToString(x.shape()), " like its optimized tensor");
    }
  }
  return a;
}

// Output o for optimized tensor i when requested, else nullptr.
template <typename T>
T* OutputOrNull(KernelContext& ctx, size_t o, const Tensor& like) {
  if (o >= ctx.num_outputs() || !ctx.output_requested(o)) return nullptr;
  return ctx.allocate_output(o, like.dtype(), like.shape()).data<T>();
}

template <typename T>
void DispatchOptimizerType(DataType dt, const KernelContext& ctx, T&& fn) {
  switch (dt) {
    case DataType::kFloat: fn.template operator()<float>(); return;
    case DataType::kDouble: fn.template operator()<double>(); return;
    default: ctx.Fail("element type ", DataTypeName(dt), " is not supported (expected float or double)");
  }
}

// Calls update.template operator()<T>(x, in, out) for each optimized tensor x:
// in(g) is its tensor in input group g (0 = x itself) and out(g) its tensor in
// output group g, or nullptr where that output is not requested.
template <typename Update>
void ForEachOptimizedTensor(KernelContext& ctx, const OptimizerArgs& a, Update&& update) {
  for (size_t i = 0; i < a.n; ++i) {
    const Tensor& x = ctx.input(2 + i);
    DispatchOptimizerType(x.dtype(), ctx, [&]<typename T>() {
      auto in = [&](size_t g) { return ctx.input(2 + g * a.n + i).data<T>(); };
      auto out = [&](size_t g) { return OutputOrNull<T>(ctx, g * a.n + i, x); };
      update.template operator()<T>(x, in, out);
    });
  }
}

class Adagrad final : public OpKernel {
 public:
  explicit Adagrad(const KernelInfo& info)
      : decay_(info.attr_float("decay_factor", 0.0f)),
        epsilon_(info.attr_float("epsilon", 0.0f)),
        norm_(info.attr_float("norm_coefficient", 0.0f)) {}

  void Compute(KernelContext& ctx) const override {
    OptimizerArgs a = ReadOptimizerArgs(ctx, 3, 2);
    const double r = a.r / (1.0 + static_cast<double>(a.t) * decay_);
    ForEachOptimizedTensor(ctx, a, [&]<typename T>(const Tensor& x, auto&& in, auto&& out) {
      const T *xp = in(0), *gp = in(1), *hp = in(2);
      T *xo = out(0), *ho = out(1);
      const T norm = static_cast<T>(norm_), eps = static_cast<T>(epsilon_), rr = static_cast<T>(r);
      for (int64_t k = 0; k < x.numel(); ++k) {
        T g = norm * xp[k] + gp[k];
        T h = hp[k] + g * g;
        if (xo) xo[k] = xp[k] - rr * g / (std::sqrt(h) + eps);
        if (ho) ho[k] = h;
      }
    });
  }

 private:
  float decay_, epsilon_, norm_;
};

class Adam final : public OpKernel {
 public:
  explicit Adam(const KernelInfo& info)
      : alpha_(info.attr_float("alpha", 0.9f)),
        beta_(info.attr_float("beta", 0.999f)),
        epsilon_(info.attr_float("epsilon", 0.0f)),
        norm_(info.attr_float("norm_coefficient", 0.0f)),
        norm_post_(info.attr_float("norm_coefficient_post", 0.0f)) {}

  void Compute(KernelContext& ctx) const override {
    OptimizerArgs a = ReadOptimizerArgs(ctx, 4, 3);
    double r_adj = a.r;
    if (a.t > 0) {
      double td = static_cast<double>(a.t);
      r_adj = a.r * std::sqrt(1.0 - std::pow(static_cast<double>(beta_), td)) /
              (1.0 - std::pow(static_cast<double>(alpha_), td));
    }
    ForEachOptimizedTensor(ctx, a, [&]<typename T>(const Tensor& x, auto&& in, auto&& out) {
      const T *xp = in(0), *gp = in(1), *vp = in(2), *hp = in(3);
      T *xo = out(0), *vo = out(1), *ho = out(2);
      const T alpha = static_cast<T>(alpha_), beta = static_cast<T>(beta_), eps = static_cast<T>(epsilon_);
      const T norm = static_cast<T>(norm_), post = static_cast<T>(norm_post_), rr = static_cast<T>(r_adj);
      for (int64_t k = 0; k < x.numel(); ++k) {
        T g = norm * xp[k] + gp[k];
        T v = alpha * vp[k] + (T(1) - alpha) * g;
        T h = beta * hp[k] + (T(1) - beta) * g * g;
        T xn = xp[k] - rr * v / (std::sqrt(h) + eps);
        if (xo) xo[k] = (T(1) - post) * xn;
        if (vo) vo[k] = v;
        if (ho) ho[k] = h;
      }
    });
  }

 private:
  float alpha_, beta_, epsilon_, norm_, norm_post_;
};

class Momentum final : public OpKernel {
 public:
  explicit Momentum(const KernelInfo& info)
      : alpha_(info.attr_float("alpha")), beta_(info.attr_float("beta")), norm_(info.attr_float("norm_coefficient")) {
    std::string mode = info.attr_string("mode");
    if (mode == "nesterov")
      nesterov_ = true;
    else if (mode != "standard")
      info.Fail("mode must be 'standard' or 'nesterov', got '", mode, "'");
  }

  void Compute(KernelContext& ctx) const override {
    OptimizerArgs a = ReadOptimizerArgs(ctx, 3, 2);
    const double beta_adj = a.t > 0 ? beta_ : 1.0;
    ForEachOptimizedTensor(ctx, a, [&]<typename T>(const Tensor& x, auto&& in, auto&& out) {
      const T *xp = in(0), *gp = in(1), *vp = in(2);
      T *xo = out(0), *vo = out(1);
      const T alpha = static_cast<T>(alpha_), beta = static_cast<T>(beta_adj), norm = static_cast<T>(norm_);
      const T rr = static_cast<T>(a.r);
      for (int64_t k = 0; k < x.numel(); ++k) {
        T g = norm * xp[k] + gp[k];
        T v = alpha * vp[k] + beta * g;
        T xn = nesterov_ ? xp[k] - rr * (g + alpha * v) : xp[k] - rr * v;
        if (xo) xo[k] = xn;
        if (vo) vo[k] = v;
      }
    });
  }

 private:
  float alpha_, beta_, norm_;
  bool nesterov_ = false;
};

// ---- Gradient -------------------------------------------------------------------------
// Differentiates y w.r.t. the tensors named in `xs` by reverse mode over the
// nodes of the owning graph that compute y from xs and zs. The forward values
// are recomputed here, in double, from the Gradient node's own inputs (which
// may differ from the values flowing through the graph). A small set of
// differentiable ops is supported; others fail at session creation.

// The owning graph (needed to find y's subgraph).
const Graph* OwnerGraphOf(const KernelInfo& info) { return info.owner_graph(); }

struct DTensor {
  Shape shape;
  std::vector<double> v;
};

DTensor ToDouble(const Tensor& t) {
  DTensor d{t.shape(), std::vector<double>(static_cast<size_t>(t.numel()))};
  switch (t.dtype()) {
    case DataType::kFloat:
      for (int64_t i = 0; i < t.numel(); ++i) d.v[static_cast<size_t>(i)] = t.data<float>()[i];
      break;
    case DataType::kDouble: std::copy(t.data<double>(), t.data<double>() + t.numel(), d.v.begin()); break;
    case DataType::kFloat16:
      for (int64_t i = 0; i < t.numel(); ++i) d.v[static_cast<size_t>(i)] = Load(t.data<Float16>()[i]);
      break;
    case DataType::kBFloat16:
      for (int64_t i = 0; i < t.numel(); ++i) d.v[static_cast<size_t>(i)] = Load(t.data<BFloat16>()[i]);
      break;
    default:
      for (int64_t i = 0; i < t.numel(); ++i) d.v[static_cast<size_t>(i)] = t.GetAsDouble(i);
  }
  return d;
}

int64_t NumelOf(const Shape& s) { return SizeFromDim(s, 0); }

// Numpy broadcast of two shapes; false when incompatible.
bool Broadcast2(const Shape& a, const Shape& b, Shape* out) {
  size_t r = std::max(a.size(), b.size());
  out->assign(r, 1);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    (*out)[i] = da == 1 ? db : da;
  }
  return true;
}

// For each flat index of `out`, the flat index into a tensor of shape `in`
// broadcast to it.
std::vector<int64_t> BroadcastMap(const Shape& in, const Shape& out) {
  const size_t r = out.size(), off = r - in.size();
  std::vector<int64_t> in_strides(r, 0);
  int64_t st = 1;
  for (size_t i = in.size(); i-- > 0;) {
    in_strides[i + off] = in[i] == 1 ? 0 : st;
    st *= in[i];
  }
  const int64_t n = NumelOf(out);
  std::vector<int64_t> map(static_cast<size_t>(n));
  std::vector<int64_t> idx(r, 0);
  int64_t cur = 0;
  for (int64_t k = 0; k < n; ++k) {
    map[static_cast<size_t>(k)] = cur;
    for (size_t d = r; d-- > 0;) {
      cur += in_strides[d];
      if (++idx[d] < out[d]) break;
      cur -= in_strides[d] * out[d];
      idx[d] = 0;
    }
  }
  return map;
}

// Sums a gradient of shape `out` down to the broadcast input shape `in`.
DTensor ReduceTo(const DTensor& g, const Shape& in) {
  if (g.shape == in) return g;
  DTensor r{in, std::vector<double>(static_cast<size_t>(NumelOf(in)), 0.0)};
  std::vector<int64_t> map = BroadcastMap(in, g.shape);
  for (size_t k = 0; k < g.v.size(); ++k) r.v[static_cast<size_t>(map[k])] += g.v[k];
  return r;
}

class Gradient final : public OpKernel {
 public:
  explicit Gradient(const KernelInfo& info) {
    const Graph* g = OwnerGraphOf(info);
    if (!g) info.Fail("Gradient needs the owning graph, which this runtime does not expose to kernels");
    xs_ = info.attr_strings("xs");
    // An empty list carries no element type; writers often store it as ints.
    const Attribute* zs = info.node().FindAttribute("zs");
    bool empty_list = zs && zs->type != AttributeType::kStrings && zs->ints.empty() && zs->floats.empty() &&
                      zs->strings.empty() && zs->tensors.empty() && zs->graphs.empty();
    if (!empty_list) zs_ = info.attr_strings("zs", {});
    y_ = info.attr_string("y");
    if (info.num_inputs() != xs_.size() + zs_.size())
      info.Fail("expected ", xs_.size() + zs_.size(), " inputs (xs followed by zs), got ", info.num_inputs());
    if (info.num_outputs() > xs_.size())
      info.Fail("expected at most ", xs_.size(), " outputs (one per xs), got ", info.num_outputs());
    std::map<std::string, size_t> leaves;  // name -> Gradient input index
    for (size_t i = 0; i < xs_.size(); ++i) leaves.emplace(xs_[i], i);
    for (size_t i = 0; i < zs_.size(); ++i) leaves.emplace(zs_[i], xs_.size() + i);
    std::map<std::string, const Node*> producer;
    for (const Node& n : g->nodes)
      for (const auto& o : n.outputs)
        if (!o.empty()) producer[o] = &n;
    // Backward slice from y, stopping at the leaves.
    std::set<const Node*> needed;
    std::vector<std::string> stack = {y_};
    std::set<std::string> seen;
    while (!stack.empty()) {
      std::string name = stack.back();
      stack.pop_back();
      if (name.empty() || !seen.insert(name).second || leaves.count(name)) continue;
      auto it = producer.find(name);
      if (it == producer.end()) {
        auto init = g->initializers.find(name);
        bool overridable = false;
        for (const auto& in : g->inputs) overridable |= in.name == name;
        if (init == g->initializers.end() || overridable)
          info.Fail("value '", name, "' needed to compute '", y_,
                    "' is neither in xs/zs nor a constant initializer");
        constants_[name] = ToDouble(init->second);
        continue;
      }
      if (it->second == &info.node()) info.Fail("y '", y_, "' depends on the Gradient node itself");
      if (needed.insert(it->second).second)
        for (const auto& in : it->second->inputs) stack.push_back(in);
    }
    // Keep the graph's order (it is topologically sorted) for the slice.
    for (const Node& n : g->nodes)
      if (needed.count(&n)) {
        if (!Supported(n)) info.Fail("Gradient cannot differentiate ", n.Label());
        nodes_.push_back(n);
      }
  }

  void Compute(KernelContext& ctx) const override {
    std::map<std::string, DTensor> val(constants_.begin(), constants_.end());
    for (size_t i = 0; i < xs_.size(); ++i) val[xs_[i]] = ToDouble(ctx.input(i));
    for (size_t i = 0; i < zs_.size(); ++i) val[zs_[i]] = ToDouble(ctx.input(xs_.size() + i));
    for (const Node& n : nodes_) Forward(ctx, n, val);
    auto yit = val.find(y_);
    if (yit == val.end()) ctx.Fail("y '", y_, "' was not computed");
    std::map<std::string, DTensor> grad;
    grad[y_] = DTensor{yit->second.shape, std::vector<double>(yit->second.v.size(), 1.0)};
    for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) Backward(ctx, *it, val, grad);
    for (size_t i = 0; i < xs_.size() && i < ctx.num_outputs(); ++i) {
      if (!ctx.output_requested(i)) continue;
      const Tensor& x = ctx.input(i);
      DataType dt = IsFloatingPoint(x.dtype()) ? x.dtype() : DataType::kFloat;
      Tensor& out = ctx.allocate_output(i, dt, x.shape());
      auto g = grad.find(xs_[i]);
      DispatchFloat(dt, ctx, [&]<typename T>() {
        T* o = out.data<T>();
        for (int64_t k = 0; k < x.numel(); ++k)
          o[k] = StoreAs<T>(g == grad.end() ? 0.0 : g->second.v[static_cast<size_t>(k)]);
      });
    }
  }

 private:
  static bool Supported(const Node& n) {
    static const std::set<std::string> ops = {"Add",  "Sub",  "Mul",     "Div",        "Neg",  "Identity",
                                              "Relu", "Exp",  "Log",     "Sqrt",       "Tanh", "Sigmoid",
                                              "Abs",  "Pow",  "MatMul",  "Reciprocal", "Sum"};
    return n.domain == kOnnxDomain && ops.count(n.op_type) > 0;
  }

  static const DTensor& In(const KernelContext& ctx, const Node& n, size_t i,
                           const std::map<std::string, DTensor>& val) {
    if (i >= n.inputs.size() || n.inputs[i].empty()) ctx.Fail("Gradient: ", n.Label(), " lacks input ", i);
    auto it = val.find(n.inputs[i]);
    if (it == val.end()) ctx.Fail("Gradient: value '", n.inputs[i], "' is not available");
    return it->second;
  }

  static DTensor Binary(const KernelContext& ctx, const Node& n, const DTensor& a, const DTensor& b,
                        double (*f)(double, double)) {
    DTensor r;
    if (!Broadcast2(a.shape, b.shape, &r.shape))
      ctx.Fail("Gradient: ", n.Label(), " cannot broadcast ", ShapeToString(a.shape), " and ",
               ShapeToString(b.shape));
    std::vector<int64_t> ma = BroadcastMap(a.shape, r.shape), mb = BroadcastMap(b.shape, r.shape);
    r.v.resize(ma.size());
    for (size_t k = 0; k < ma.size(); ++k)
      r.v[k] = f(a.v[static_cast<size_t>(ma[k])], b.v[static_cast<size_t>(mb[k])]);
    return r;
  }

  static void CheckMatMul(const KernelContext& ctx, const Node& n, const DTensor& a, const DTensor& b) {
    if (a.shape.size() != 2 || b.shape.size() != 2 || a.shape[1] != b.shape[0])
      ctx.Fail("Gradient: ", n.Label(), " supports 2-D MatMul with matching inner dims only, got ",
               ShapeToString(a.shape), " x ", ShapeToString(b.shape));
  }

  // C[m,n] = sum_k A[m,k] B[k,n], with optional transposes of A and B.
  static DTensor MatMul2(const DTensor& a, bool ta, const DTensor& b, bool tb) {
    int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
    int64_t n = tb ? b.shape[0] : b.shape[1];
    DTensor c{{m, n}, std::vector<double>(static_cast<size_t>(m * n), 0.0)};
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p) {
        double av = ta ? a.v[static_cast<size_t>(p * a.shape[1] + i)] : a.v[static_cast<size_t>(i * k + p)];
        for (int64_t j = 0; j < n; ++j)
          c.v[static_cast<size_t>(i * n + j)] +=
              av * (tb ? b.v[static_cast<size_t>(j * b.shape[1] + p)] : b.v[static_cast<size_t>(p * n + j)]);
      }
    return c;
  }

  static void Forward(const KernelContext& ctx, const Node& n, std::map<std::string, DTensor>& val) {
    const std::string& op = n.op_type;
    DTensor r;
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow") {
      if (n.inputs.size() != 2) ctx.Fail("Gradient: ", n.Label(), " must have two inputs");
      const DTensor& a = In(ctx, n, 0, val);
      const DTensor& b = In(ctx, n, 1, val);
      double (*f)(double, double) =
          op == "Add"   ? +[](double x, double y) { return x + y; }
          : op == "Sub" ? +[](double x, double y) { return x - y; }
          : op == "Mul" ? +[](double x, double y) { return x * y; }
          : op == "Div" ? +[](double x, double y) { return x / y; }
                        : +[](double x, double y) { return std::pow(x, y); };
      r = Binary(ctx, n, a, b, f);
    } else if (op == "Sum") {
      r = In(ctx, n, 0, val);
      for (size_t i = 1; i < n.inputs.size(); ++i)
        r = Binary(ctx, n, r, In(ctx, n, i, val), +[](double x, double y) { return x + y; });
    } else if (op == "MatMul") {
      const DTensor& a = In(ctx, n, 0, val);
      const DTensor& b = In(ctx, n, 1, val);
      CheckMatMul(ctx, n, a, b);
      r = MatMul2(a, false, b, false);
    } else {
      r = In(ctx, n, 0, val);
      for (double& x : r.v) {
        if (op == "Neg") x = -x;
        else if (op == "Relu") x = x > 0 ? x : 0;
        else if (op == "Exp") x = std::exp(x);
        else if (op == "Log") x = std::log(x);
        else if (op == "Sqrt") x = std::sqrt(x);
        else if (op == "Tanh") x = std::tanh(x);
        else if (op == "Sigmoid") x = 1 / (1 + std::exp(-x));
        else if (op == "Abs") x = std::fabs(x);
        else if (op == "Reciprocal") x = 1 / x;
        // Identity: unchanged
      }
    }
    if (n.outputs.empty() || n.outputs[0].empty()) return;
    val[n.outputs[0]] = std::move(r);
  }

  static void Accumulate(std::map<std::string, DTensor>& grad, const std::string& name, DTensor g) {
    if (name.empty()) return;
    auto it = grad.find(name);
    if (it == grad.end()) {
      grad.emplace(name, std::move(g));
      return;
    }
    for (size_t k = 0; k < g.v.size(); ++k) it->second.v[k] += g.v[k];
  }

  static void Backward(const KernelContext& ctx, const Node& n, const std::map<std::string, DTensor>& val,
                       std::map<std::string, DTensor>& grad) {
    if (n.outputs.empty()) return;
    auto git = grad.find(n.outputs[0]);
    if (git == grad.end()) return;  // y does not depend on this node's output
    const DTensor gy = git->second;
    const DTensor& y = val.at(n.outputs[0]);
    const std::string& op = n.op_type;
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow" || op == "Sum") {
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        const DTensor& a = In(ctx, n, i, val);
        if (op == "Add" || op == "Sum") {
          Accumulate(grad, n.inputs[i], ReduceTo(gy, a.shape));
          continue;
        }
        if (op == "Sub") {
          DTensor g = gy;
          if (i == 1)
            for (double& x : g.v) x = -x;
          Accumulate(grad, n.inputs[i], ReduceTo(g, a.shape));
          continue;
        }
        const DTensor& other = In(ctx, n, 1 - i, val);
        std::vector<int64_t> ma = BroadcastMap(a.shape, gy.shape), mo = BroadcastMap(other.shape, gy.shape);
        DTensor g{gy.shape, std::vector<double>(gy.v.size())};
        for (size_t k = 0; k < gy.v.size(); ++k) {
          double av = a.v[static_cast<size_t>(ma[k])], ov = other.v[static_cast<size_t>(mo[k])], d;
          if (op == "Mul") d = ov;
          else if (op == "Div") d = i == 0 ? 1 / ov : -ov / (av * av);
          else d = i == 0 ? ov * std::pow(av, ov - 1) : y.v[k] * std::log(ov);
          g.v[k] = gy.v[k] * d;
        }
        Accumulate(grad, n.inputs[i], ReduceTo(g, a.shape));
      }
      return;
    }
    if (op == "MatMul") {
      const DTensor& a = In(ctx, n, 0, val);
      const DTensor& b = In(ctx, n, 1, val);
      Accumulate(grad, n.inputs[0], MatMul2(gy, false, b, true));  // dA = dY B^T
      Accumulate(grad, n.inputs[1], MatMul2(a, true, gy, false));  // dB = A^T dY
      return;
    }
    const DTensor& x = In(ctx, n, 0, val);
    DTensor g{x.shape, std::vector<double>(x.v.size())};
    for (size_t k = 0; k < x.v.size(); ++k) {
      double xv = x.v[k], yv = y.v[k], d = 1;
      if (op == "Neg") d = -1;
      else if (op == "Relu") d = xv > 0 ? 1 : 0;
      else if (op == "Exp") d = yv;
      else if (op == "Log") d = 1 / xv;
      else if (op == "Sqrt") d = 0.5 / yv;
      else if (op == "Tanh") d = 1 - yv * yv;
      else if (op == "Sigmoid") d = yv * (1 - yv);
      else if (op == "Abs") d = xv > 0 ? 1 : xv < 0 ? -1 : 0;
      else if (op == "Reciprocal") d = -yv * yv;
      g.v[k] = gy.v[k] * d;
    }
    Accumulate(grad, n.inputs[0], std::move(g));
  }

  std::vector<std::string> xs_, zs_;
  std::string y_;
  std::map<std::string, DTensor> constants_;
  std::vector<Node> nodes_;  // the slice computing y, in topological order
};

}  // namespace

std::vector<KernelRow> TrainingKernels() {
  const std::vector<DataType> r_types = {DataType::kFloat, DataType::kDouble};
  return {
      {kTrainingDomain, "Adagrad", 1, 1, r_types, Make<Adagrad>()},
      {kTrainingDomain, "Adam", 1, 1, r_types, Make<Adam>()},
      {kTrainingDomain, "Momentum", 1, 1, r_types, Make<Momentum>()},
      {kTrainingDomain, "Gradient", 1, 1, {}, Make<Gradient>()},
  };
}

}  // namespace tessera::cpu
