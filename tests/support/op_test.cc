#include "support/op_test.h"

#include <algorithm>
#include <cstdio>

#include "tessera/api/providers.h"
#include "tessera/ops/kernel_table.h"
#include "tessera/providers/cpu/cpu_execution_provider.h"
#include "tessera/ir/tensor_compare.h"
#include "tessera/runtime/session.h"

namespace tessera::test {

namespace {
// The newest opset of `domain` that a CPU kernel row of `op` covers, capped
// at the newest opset Tessera knows (open-ended rows reach past it).
int64_t NewestImplementedOpset(const std::string& domain, const std::string& op) {
  const int64_t known = domain == kOnnxDomain ? kMaxOnnxOpset : domain == "ai.onnx.ml" ? kMaxOnnxMlOpset : 1;
  int64_t newest = 0;
  for (const auto& row : CpuKernelTable().rows())
    if (row.domain == domain && row.op_type == op) newest = std::max(newest, std::min(row.last_opset, known));
  return newest > 0 ? newest : known;
}

// The provider that ran `node` in `session`, with the reasons of those that
// declined it; empty when the optimizer rewrote the node away.
const NodePlacement* PlacementOf(const std::vector<NodePlacement>& placement, const std::string& node) {
  for (const auto& p : placement)
    if (p.node == node) return &p;
  return nullptr;
}

}  // namespace

OpTest::OpTest(std::string op_type, int64_t opset, std::string domain)
    : op_type_(std::move(op_type)), opset_(opset), domain_(CanonicalDomain(domain)) {
  if (opset_ == kNewestImplemented) opset_ = NewestImplementedOpset(domain_, op_type_);
  node_.name = op_type_ + "_under_test";
  node_.op_type = op_type_;
  node_.domain = domain_;
  providers_ = AvailableProviders();
}

OpTest& OpTest::Attr(Attribute a) {
  node_.attributes.push_back(std::move(a));
  return *this;
}
OpTest& OpTest::Attr(const std::string& name, int64_t v) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kInt;
  a.i = v;
  return Attr(a);
}
OpTest& OpTest::Attr(const std::string& name, float v) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kFloat;
  a.f = v;
  return Attr(a);
}
OpTest& OpTest::Attr(const std::string& name, const std::string& v) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kString;
  a.s = v;
  return Attr(a);
}
OpTest& OpTest::Attr(const std::string& name, const std::vector<int64_t>& v) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kInts;
  a.ints = v;
  return Attr(a);
}
OpTest& OpTest::Attr(const std::string& name, const std::vector<float>& v) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kFloats;
  a.floats = v;
  return Attr(a);
}
OpTest& OpTest::Attr(const std::string& name, const std::vector<std::string>& v) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kStrings;
  a.strings = v;
  return Attr(a);
}
OpTest& OpTest::Attr(const std::string& name, const Tensor& v) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kTensor;
  a.t = v;
  return Attr(a);
}

OpTest& OpTest::Input(const std::string& name, Value value) {
  node_.inputs.push_back(name);
  inputs_.push_back({name, TypeOfValue(value), ""});
  feeds_.emplace_back(name, std::move(value));
  return *this;
}
OpTest& OpTest::ConstantInput(const std::string& name, const Tensor& value) {
  node_.inputs.push_back(name);
  initializers_[name] = value;
  return *this;
}
OpTest& OpTest::OmittedInput() {
  node_.inputs.push_back("");
  return *this;
}
OpTest& OpTest::Output(const std::string& name, Value expected) {
  node_.outputs.push_back(name);
  outputs_.emplace_back(name, std::move(expected));
  return *this;
}
OpTest& OpTest::UncheckedOutput(const std::string& name) {
  node_.outputs.push_back(name);
  outputs_.emplace_back(name, std::nullopt);
  return *this;
}
OpTest& OpTest::OmittedOutput() {
  node_.outputs.push_back("");
  return *this;
}
OpTest& OpTest::Tolerance(double rtol, double atol) {
  rtol_ = rtol;
  atol_ = atol;
  return *this;
}
OpTest& OpTest::Providers(std::vector<std::string> providers) {
  providers_ = std::move(providers);
  return *this;
}

OpTest& OpTest::ExceptProvider(const std::string& provider, const std::string& why) {
  EXPECT_FALSE(why.empty()) << "say why " << provider << " is left out";
  providers_.erase(std::remove(providers_.begin(), providers_.end(), provider), providers_.end());
  return *this;
}

Model OpTest::BuildModel() const {
  Model m;
  m.ir_version = 10;
  m.opset_imports.push_back({kOnnxDomain, domain_ == kOnnxDomain ? opset_ : kMaxOnnxOpset});
  if (domain_ != kOnnxDomain) m.opset_imports.push_back({domain_, opset_});
  m.graph = std::make_shared<Graph>();
  m.graph->name = "op_test_" + op_type_;
  m.graph->nodes.push_back(node_);
  m.graph->inputs = inputs_;
  m.graph->initializers = initializers_;
  for (const auto& [name, expected] : outputs_) {
    ValueInfo vi;
    vi.name = name;
    if (expected) vi.type = TypeOfValue(*expected);
    // Declared output shapes are not checked by the runtime; keep the type only.
    if (vi.type.is_tensor()) vi.type.shape.reset();
    m.graph->outputs.push_back(vi);
  }
  return m;
}

OpTest& OpTest::Threads(int n) {
  threads_ = n;
  return *this;
}

void OpTest::Run() {
  // The CPU provider first: its result is the reference for every other.
  std::vector<std::string> order = providers_;
  std::stable_partition(order.begin(), order.end(), [](const std::string& p) { return p == "cpu"; });
  std::vector<Value> cpu_result;
  for (const auto& provider : order) {
    SCOPED_TRACE("provider " + provider);
    std::vector<Value> result;
    std::vector<NodePlacement> placement;
    Status st = CatchStatus([&] {
      SessionOptions opts;
      opts.intra_op_num_threads = threads_;
      Session session(BuildModel(), opts, MakeProviders({provider}));
      placement = session.Placement();
      result = session.Run(feeds_);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_EQ(result.size(), outputs_.size());
    const NodePlacement* ran = PlacementOf(placement, node_.name);
    const bool on_provider = ran != nullptr && ran->provider == provider;
    if (!on_provider) {
      std::string why = ran == nullptr ? "the optimizer rewrote the node" : "ran on " + ran->provider;
      if (ran != nullptr)
        for (const auto& d : ran->declined) why += "; " + d;
      std::printf("[ declined ] %s (%s opset %lld) on %s: %s\n", node_.name.c_str(), op_type_.c_str(),
                  static_cast<long long>(opset_), provider.c_str(), why.c_str());
    }
    for (size_t i = 0; i < outputs_.size(); ++i) {
      if (!outputs_[i].second) continue;
      CompareResult c = CompareValues(result[i], *outputs_[i].second, rtol_, atol_);
      EXPECT_TRUE(c.match) << "output '" << outputs_[i].first << "': " << c.message;
      if (provider != "cpu" && on_provider && !cpu_result.empty()) {
        CompareResult vs_cpu = CompareValues(result[i], cpu_result[i], rtol_, atol_);
        EXPECT_TRUE(vs_cpu.match) << "output '" << outputs_[i].first << "' differs from cpu: " << vs_cpu.message;
      }
    }
    if (provider == "cpu") cpu_result = result;
  }
}

void OpTest::ExpectFailure(const std::string& substring) {
  for (const auto& provider : providers_) {
    SCOPED_TRACE("provider " + provider);
    Status st = CatchStatus([&] {
      SessionOptions opts;
      opts.intra_op_num_threads = threads_;
      Session session(BuildModel(), opts, MakeProviders({provider}));
      session.Run(feeds_);
    });
    ASSERT_FALSE(st.ok()) << "expected a failure containing '" << substring << "'";
    EXPECT_NE(st.message().find(substring), std::string::npos) << st.ToString();
  }
}

}  // namespace tessera::test
