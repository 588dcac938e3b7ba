#include "tessera/providers/dnnl/dnnl_compiler.h"

#include <algorithm>
#include <cstring>

#include "tessera/base/status.h"
#include "tessera/providers/dnnl/dnnl_families.h"

namespace tessera::dnnl_ep {

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

Dims ToDims(const std::vector<int64_t>& shape) { return Dims(shape.begin(), shape.end()); }

Desc PlainDesc(const Dims& dims) {
  // Row-major strides: oneDNN's plain tags cover ranks 1-6 as a, ab, abc...
  Dims strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * std::max<dnnl::memory::dim>(dims[i], 1);
  return Desc(dims, dt::f32, strides);
}

int64_t PrimitiveFlops(const dnnl::primitive_desc_base& pd) {
  using kind = dnnl::primitive::kind;
  const kind k = pd.get_kind();
  if (k != kind::convolution && k != kind::deconvolution && k != kind::matmul && k != kind::inner_product) return -1;
  const Dims src = pd.src_desc().dims(), wei = pd.weights_desc().dims(), dst = pd.dst_desc().dims();
  auto product = [](const Dims& d, size_t from) {
    int64_t n = 1;
    for (size_t i = from; i < d.size(); ++i) n *= d[i];
    return n;
  };
  switch (k) {
    case kind::convolution: {
      // Weights [G,] OC, IC/G, spatial: one multiply-add per weight of an
      // output channel, for every output.
      const size_t per_output = wei.size() > src.size() ? 2 : 1;
      return 2 * product(dst, 0) * product(wei, per_output);
    }
    case kind::deconvolution: {
      // Every input scatters into OC/G outputs over the kernel window.
      const bool grouped = wei.size() > src.size();
      const size_t oc = grouped ? 1 : 0;
      return 2 * product(src, 0) * wei[oc] * product(wei, oc + 2);
    }
    case kind::matmul:
      return src.empty() ? -1 : 2 * product(dst, 0) * src.back();
    default:  // inner product: dst [N, OC], src [N, IC, spatial...]
      return 2 * product(dst, 0) * product(src, 1);
  }
}

Desc AnyDesc(const Dims& dims) { return Desc(dims, dt::f32, tag::any); }

Desc DenseLike(const Desc& like, const Dims& dims) {
  const auto& b = like.data.format_desc.blocking;
  if (like.data.format_kind != dnnl_blocked || b.inner_nblks != 0 || like.data.ndims != static_cast<int>(dims.size()))
    return PlainDesc(dims);
  // Outermost axis = largest stride.
  std::vector<int> order(dims.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return b.strides[x] > b.strides[y]; });
  Dims strides(dims.size());
  dnnl::memory::dim step = 1;
  for (size_t k = order.size(); k-- > 0;) {
    strides[static_cast<size_t>(order[k])] = step;
    step *= std::max<dnnl::memory::dim>(dims[static_cast<size_t>(order[k])], 1);
  }
  return Desc(dims, dt::f32, strides);
}

HostStep ElementwiseHostStep(void (*kernel)(const float* x, float* y, int64_t n)) {
  return [kernel](const std::unordered_map<int, dnnl::memory>& args) {
    const dnnl::memory& src = args.at(DNNL_ARG_SRC);
    const int64_t n = static_cast<int64_t>(src.get_desc().get_size() / sizeof(float));
    const float* x = static_cast<const float*>(src.get_data_handle());
    float* y = static_cast<float*>(args.at(DNNL_ARG_DST).get_data_handle());
    ForEachHostChunk(n, [&](int64_t begin, int64_t end) { kernel(x + begin, y + begin, end - begin); });
  };
}

bool IsChannelsLastDense(const Desc& d) {
  const auto& m = d.data;
  if (m.ndims != 4 || m.format_kind != dnnl_blocked || m.format_desc.blocking.inner_nblks != 0 || m.offset0 != 0)
    return false;
  for (int k = 0; k < 4; ++k)
    if (m.padded_dims[k] != m.dims[k]) return false;
  const auto* s = m.format_desc.blocking.strides;
  const int64_t c = m.dims[1], h = m.dims[2], w = m.dims[3];
  return s[1] == 1 && s[3] == c && s[2] == w * c && (m.dims[0] == 1 || s[0] == h * w * c);
}

namespace {

std::string LayoutName(const Desc& d) {
  const auto& b = d.data.format_desc.blocking;
  if (d.data.format_kind != dnnl_blocked) return "opaque";
  std::string s;
  // Outer dims ordered by decreasing stride, then inner blocks: "abcd", "aBcd16b".
  std::vector<int> order(static_cast<size_t>(d.data.ndims));
  for (int i = 0; i < d.data.ndims; ++i) order[static_cast<size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return b.strides[x] > b.strides[y]; });
  std::vector<bool> blocked(static_cast<size_t>(d.data.ndims), false);
  for (int i = 0; i < b.inner_nblks; ++i) blocked[static_cast<size_t>(b.inner_idxs[i])] = true;
  for (int i : order) s += static_cast<char>((blocked[static_cast<size_t>(i)] ? 'A' : 'a') + i);
  for (int i = 0; i < b.inner_nblks; ++i) s += std::to_string(b.inner_blks[i]) + static_cast<char>('a' + b.inner_idxs[i]);
  return s;
}

}  // namespace

Compiler::Compiler(const PartitionDef& def, dnnl::engine engine) : def_(def), engine_(std::move(engine)) {
  plan_.engine = engine_;
  plan_.num_threads = def.num_threads;
  for (const auto& o : def.outputs) outputs_.insert(o);
  for (const Node* n : def.nodes)
    for (const auto& in : n->inputs)
      if (!in.empty()) {
        ++reads_left_[in];
        auto& c = consumers_[in];
        if (std::find(c.begin(), c.end(), n) == c.end()) c.push_back(n);
      }
}

int64_t Compiler::OpsetOf(const Node& node) const { return def_.model->OpsetFor(node.domain); }

const Tensor* Compiler::ConstantOf(const std::string& name) const {
  if (def_.types == nullptr || name.empty()) return nullptr;
  auto it = def_.types->constants.find(name);
  return it == def_.types->constants.end() ? nullptr : &it->second;
}

std::vector<int64_t> Compiler::ShapeOf(const std::string& name) const {
  if (def_.types != nullptr) {
    auto it = def_.types->types.find(name);
    if (it != def_.types->types.end())
      if (auto s = it->second.StaticShape()) return *s;
  }
  TS_THROW(kInternal, "oneDNN partition: value '", name, "' has no static shape");
}

bool Compiler::Available(const std::string& name) const {
  return named_.count(name) || ConstantOf(name) != nullptr ||
         std::find(def_.inputs.begin(), def_.inputs.end(), name) != def_.inputs.end();
}

std::vector<const Node*> Compiler::Consumers(const std::string& name) const {
  if (outputs_.count(name)) return {};
  auto it = consumers_.find(name);
  return it == consumers_.end() ? std::vector<const Node*>{} : it->second;
}

const Node* Compiler::SoleConsumer(const std::string& name) const {
  auto c = Consumers(name);
  if (c.size() != 1) return nullptr;
  // Read once: a node reading it twice (Mul(x, x)) is not a simple successor.
  size_t reads = std::count(c[0]->inputs.begin(), c[0]->inputs.end(), name);
  return reads == 1 ? c[0] : nullptr;
}

void Compiler::Absorb(const Node& node) {
  absorbed_.insert(&node);
  for (const auto& in : node.inputs)
    if (!in.empty()) --reads_left_[in];
}

bool Compiler::ReadByCurrent(const std::string& name) const {
  return current_ != nullptr && std::count(current_->inputs.begin(), current_->inputs.end(), name) > 0;
}

bool Compiler::DiesHere(const std::string& name) const {
  auto v = named_.find(name);
  if (v == named_.end() || outputs_.count(name)) return false;
  auto reads_left = [&](const std::string& n) {
    auto it = reads_left_.find(n);
    return it == reads_left_.end() ? 0 : it->second;
  };
  // Only the node being lowered still reads it (its reads count until it is done).
  size_t own = current_ ? std::count(current_->inputs.begin(), current_->inputs.end(), name) : 0;
  if (reads_left(name) != static_cast<int>(own)) return false;
  int b = values_[static_cast<size_t>(v->second)].buffer;
  if (plan_.buffers[static_cast<size_t>(b)].kind != PlanBuffer::Kind::kArena) return false;
  for (const auto& other : buffer_names_[static_cast<size_t>(b)]) {
    if (other == name) continue;
    size_t other_own = current_ ? std::count(current_->inputs.begin(), current_->inputs.end(), other) : 0;
    if (outputs_.count(other) || reads_left(other) > static_cast<int>(other_own)) return false;
  }
  return true;
}

int Compiler::NewBuffer(PlanBuffer::Kind kind, int index, size_t bytes) {
  PlanBuffer b;
  b.kind = kind;
  b.index = index;
  b.bytes = bytes;
  plan_.buffers.push_back(b);
  buffer_names_.emplace_back();
  return static_cast<int>(plan_.buffers.size()) - 1;
}

int Compiler::NewValue(const Desc& desc, int buffer) {
  plan_.values.push_back({desc, buffer});
  return static_cast<int>(plan_.values.size()) - 1;
}

int Compiler::Use(const std::string& name) {
  auto it = named_.find(name);
  if (it != named_.end()) return it->second;
  if (const Tensor* c = ConstantOf(name)) {
    Desc d = PlainDesc(c->shape().empty() ? Dims{1} : ToDims(c->shape()));
    return named_[name] = Constant(*c, d, d);
  }
  auto in = std::find(def_.inputs.begin(), def_.inputs.end(), name);
  if (in == def_.inputs.end()) TS_THROW(kInternal, "oneDNN partition: value '", name, "' is read before it is made");
  int index = static_cast<int>(in - def_.inputs.begin());
  plan_.input_read[static_cast<size_t>(index)] = true;
  std::vector<int64_t> shape = ShapeOf(name);
  Desc d = PlainDesc(shape.empty() ? Dims{1} : ToDims(shape));
  return named_[name] = NewValue(d, NewBuffer(PlanBuffer::Kind::kInput, index, d.get_size()));
}

int Compiler::Define(const std::string& name, const Desc& desc) {
  int v = NewValue(desc, NewBuffer(PlanBuffer::Kind::kArena, 0, desc.get_size()));
  if (!name.empty()) {
    named_[name] = v;
    buffer_names_.back().push_back(name);
  }
  return v;
}

int Compiler::Temp(const Desc& desc) { return Define("", desc); }

int Compiler::Alias(const std::string& name, int of, const Desc& desc) {
  int b = values_[static_cast<size_t>(of)].buffer;
  int v = NewValue(desc, b);
  if (!name.empty()) {
    named_[name] = v;
    buffer_names_[static_cast<size_t>(b)].push_back(name);
  }
  return v;
}

int Compiler::Constant(const Tensor& host, const Desc& host_desc, const Desc& want) {
  if (host.dtype() != DataType::kFloat)
    TS_THROW(kInternal, "oneDNN partition: constant of type ", DataTypeName(host.dtype()), " where float was expected");
  size_t bytes = want.get_size();
  std::shared_ptr<void> storage;
  if (host_desc == want && host.on_host()) {
    // Already in the wanted layout: share the initializer's buffer instead
    // of holding the weights twice.
    storage = std::shared_ptr<void>(host.buffer(), const_cast<void*>(host.raw_data()));
  } else {
    // Reserved now (untouched pages cost no memory), filled at the first run.
    storage = std::shared_ptr<void>(std::aligned_alloc(64, (bytes + 63) / 64 * 64), std::free);
    if (!storage) TS_THROW(kResourceExhausted, "oneDNN partition: out of memory for a ", bytes, "-byte constant");
    plan_.pending_constants.push_back({host, host_desc, want, static_cast<int>(plan_.constants.size())});
  }
  plan_.constants.push_back(std::move(storage));
  int b = NewBuffer(PlanBuffer::Kind::kConstant, static_cast<int>(plan_.constants.size()) - 1, bytes);
  return NewValue(want, b);
}

int Compiler::As(int value, const Desc& wanted) {
  // Copies: Temp() grows values_, which either may point into.
  const Desc have = DescOf(value), want = wanted;
  if (have == want) return value;
  // A value read by several nodes in one layout is converted once (the input
  // of parallel branches, say). The copy is reused while nothing else views
  // its buffer: a view could have been overwritten in place since.
  auto& copies = converted_[value];
  for (const auto& [desc, copy] : copies) {
    if (!(desc == want)) continue;
    const int b = values_[static_cast<size_t>(copy)].buffer;
    if (std::count_if(values_.begin(), values_.end(), [&](const PlanValue& v) { return v.buffer == b; }) == 1)
      return copy;
  }
  int out = Temp(want);
  converted_[value].push_back({want, out});
  dnnl::reorder::primitive_desc pd(engine_, have, engine_, want, Attr());
  plan_.reorders.push_back(LayoutName(have) + " -> " + LayoutName(want) + " (" + std::to_string(want.get_size()) +
                           " bytes)");
  Emit(pd, dnnl::reorder(pd), {{DNNL_ARG_FROM, value}, {DNNL_ARG_TO, out}},
       "reorder " + LayoutName(have) + " -> " + LayoutName(want));
  return out;
}

int Compiler::AsPlain(int value) { return As(value, PlainDesc(DescOf(value).dims())); }

dnnl::primitive_attr Compiler::Attr() const {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

void Compiler::Emit(const dnnl::primitive_desc_base& pd, dnnl::primitive primitive,
                    std::vector<std::pair<int, int>> args, std::string label) {
  PlanStep step;
  step.primitive = std::move(primitive);
  step.args = std::move(args);
  step.label = std::move(label);
  step.implementation = pd.impl_info_str();
  step.scratchpad = pd.scratchpad_desc();
  step.flops = PrimitiveFlops(pd);
  plan_.scratchpad_bytes = std::max(plan_.scratchpad_bytes, step.scratchpad.get_size());
  plan_.steps.push_back(std::move(step));
}

void Compiler::EmitHost(HostStep host, std::vector<std::pair<int, int>> args, std::string label, int64_t flops) {
  PlanStep step;
  step.host = std::move(host);
  step.args = std::move(args);
  step.label = std::move(label);
  step.implementation = "host";
  step.flops = flops;
  plan_.steps.push_back(std::move(step));
}

void Compiler::Fail(const Node& node, const std::string& why) const {
  TS_THROW(kInternal, "oneDNN partition: node ", node.Label(), ": ", why);
}

void Compiler::PlanArena() {
  const int steps = static_cast<int>(plan_.steps.size());
  for (int s = 0; s < steps; ++s)
    for (const auto& [arg, v] : plan_.steps[static_cast<size_t>(s)].args) {
      PlanBuffer& b = plan_.buffers[static_cast<size_t>(values_[static_cast<size_t>(v)].buffer)];
      if (b.first_step < 0) b.first_step = s;
      b.last_step = s;
    }
  // Largest first, each at the lowest offset that overlaps no live buffer.
  std::vector<PlanBuffer*> order;
  for (auto& b : plan_.buffers)
    if (b.kind == PlanBuffer::Kind::kArena && b.first_step >= 0) order.push_back(&b);
  std::stable_sort(order.begin(), order.end(), [](const PlanBuffer* a, const PlanBuffer* b) { return a->bytes > b->bytes; });
  std::vector<const PlanBuffer*> placed;
  for (PlanBuffer* b : order) {
    std::vector<std::pair<size_t, size_t>> busy;
    for (const PlanBuffer* p : placed)
      if (p->first_step <= b->last_step && b->first_step <= p->last_step) busy.emplace_back(p->offset, p->offset + p->bytes);
    std::sort(busy.begin(), busy.end());
    size_t offset = 0;
    for (const auto& [lo, hi] : busy) {
      if (offset + b->bytes <= lo) break;
      offset = std::max(offset, (hi + 63) / 64 * 64);
    }
    b->offset = offset;
    plan_.arena_bytes = std::max(plan_.arena_bytes, offset + b->bytes);
    placed.push_back(b);
  }
}

Plan Compiler::Compile() {
  plan_.input_read.assign(def_.inputs.size(), false);
  // Shapes of inputs the plan reads (Use() marks them); shape and axes
  // operands may have none.
  for (const auto& in : def_.inputs) {
    std::optional<std::vector<int64_t>> shape;
    if (def_.types != nullptr) {
      auto it = def_.types->types.find(in);
      if (it != def_.types->types.end()) shape = it->second.StaticShape();
    }
    plan_.input_shapes.push_back(shape.value_or(std::vector<int64_t>{}));
  }
  for (const Node* n : def_.nodes) {
    if (absorbed_.count(n)) continue;
    current_ = n;
    Lower(*this, *n);
    for (const auto& in : n->inputs)
      if (!in.empty()) --reads_left_[in];
    current_ = nullptr;
  }
  // Outputs: plain, written straight into the caller's tensor when the
  // producing step already writes that layout into a buffer of its own.
  std::unordered_set<int> bound;
  for (size_t k = 0; k < def_.outputs.size(); ++k) {
    const std::string& name = def_.outputs[k];
    std::vector<int64_t> shape = ShapeOf(name);
    plan_.output_shapes.push_back(shape);
    Desc plain = PlainDesc(ToDims(shape));
    int v = named_.at(name);
    PlanBuffer& b = plan_.buffers[static_cast<size_t>(values_[static_cast<size_t>(v)].buffer)];
    // Earlier values sharing the buffer are dead by now, so the caller's
    // tensor may serve as their storage too.
    if (DescOf(v) == plain && b.kind == PlanBuffer::Kind::kArena && bound.insert(values_[static_cast<size_t>(v)].buffer).second) {
      b.kind = PlanBuffer::Kind::kOutput;
      b.index = static_cast<int>(k);
      plan_.output_values.push_back(v);
      continue;
    }
    int out = NewValue(plain, NewBuffer(PlanBuffer::Kind::kOutput, static_cast<int>(k), plain.get_size()));
    dnnl::reorder::primitive_desc pd(engine_, DescOf(v), engine_, plain, Attr());
    if (!(DescOf(v) == plain))
      plan_.reorders.push_back(LayoutName(DescOf(v)) + " -> " + LayoutName(plain) + " (" +
                               std::to_string(plain.get_size()) + " bytes, output '" + name + "')");
    Emit(pd, dnnl::reorder(pd), {{DNNL_ARG_FROM, v}, {DNNL_ARG_TO, out}}, "output " + name);
    plan_.output_values.push_back(out);
  }
  PlanArena();
  return std::move(plan_);
}

}  // namespace tessera::dnnl_ep
