#include "tessera/optimizer/fuse_util.h"

#include <algorithm>
#include <cmath>

#include "tessera/optimizer/pass_util.h"

namespace tessera {

FusionGraph::FusionGraph(Graph& graph, const std::vector<std::string>& outer_scope, const PassContext& ctx,
                         std::vector<std::string> providers)
    : editor_(graph, outer_scope), ctx_(ctx), providers_(std::move(providers)), outer_scope_(outer_scope) {}

bool FusionGraph::Is(int i, const char* op_type) const { return Is(i, kOnnxDomain, op_type); }

bool FusionGraph::Is(int i, const char* domain, const char* op_type) const {
  if (!live(i)) return false;
  const Node& n = editor_.node(i);
  return n.op_type == op_type && n.domain == domain;
}

int FusionGraph::ProducerOp(const std::string& value, const char* op_type) const {
  return ProducerOp(value, kOnnxDomain, op_type);
}

int FusionGraph::ProducerOp(const std::string& value, const char* domain, const char* op_type) const {
  if (value.empty()) return -1;
  int p = editor_.Producer(value);
  if (!live(p)) return -1;
  const Node& n = editor_.node(p);
  return n.op_type == op_type && n.domain == domain ? p : -1;
}

const Tensor* FusionGraph::Constant(const std::string& value) const {
  if (value.empty()) return nullptr;
  if (const Tensor* t = editor_.Constant(value)) return t;
  int p = ProducerOp(value, "Constant");
  if (p < 0) return nullptr;
  const Attribute* a = editor_.node(p).FindAttribute("value");
  return a && a->t.defined() ? &a->t : nullptr;
}

std::optional<double> FusionGraph::ScalarConstant(const std::string& value) const {
  const Tensor* t = Constant(value);
  if (!t || t->numel() != 1) return std::nullopt;
  switch (t->dtype()) {
    case DataType::kFloat:
    case DataType::kDouble:
    case DataType::kFloat16:
    case DataType::kInt32:
    case DataType::kInt64: return t->GetAsDouble(0);
    default: return std::nullopt;
  }
}

bool FusionGraph::IsScalar(const std::string& value, double expected, double rel_tol) const {
  auto v = ScalarConstant(value);
  return v && std::fabs(*v - expected) <= rel_tol * std::max(1.0, std::fabs(expected));
}

void FusionGraph::EnsureTypes() const {
  if (!types_) types_ = InferTrustedTypes(editor_.graph(), !outer_scope_.empty() || ctx_.in_subgraph, ctx_);
}

const TypeInfo* FusionGraph::Type(const std::string& value) const {
  EnsureTypes();
  auto it = types_->find(value);
  return it == types_->end() || !it->second.is_tensor() ? nullptr : &it->second;
}

DataType FusionGraph::ElemType(const std::string& value) const {
  if (const Tensor* t = Constant(value)) return t->dtype();
  const TypeInfo* t = Type(value);
  return t ? t->elem_type : DataType::kUndefined;
}

std::optional<int64_t> FusionGraph::Rank(const std::string& value) const {
  if (const Tensor* t = Constant(value)) return t->rank();
  const TypeInfo* t = Type(value);
  if (!t || !t->shape) return std::nullopt;
  return static_cast<int64_t>(t->shape->size());
}

bool FusionGraph::SingleUse(const std::string& value) const {
  return !value.empty() && editor_.UseCount(value) == 1 && !editor_.IsGraphOutput(value) &&
         editor_.Consumers(value).size() == 1 && !GraphEditor::HasSubgraphs(editor_.node(editor_.Consumers(value)[0]));
}

int FusionGraph::SoleConsumer(const std::string& value, const char* op_type) const {
  if (!SingleUse(value)) return -1;
  int c = editor_.Consumers(value)[0];
  return Is(c, op_type) ? c : -1;
}

bool FusionGraph::OnTarget(int i) const {
  if (providers_.empty()) return true;
  std::string p = ctx_.ProviderOf(editor_.node(i));
  return std::find(providers_.begin(), providers_.end(), p) != providers_.end();
}

int64_t FusionGraph::OnnxOpset() const { return ctx_.model ? ctx_.model->OpsetFor(kOnnxDomain) : -1; }

void FusionGraph::Remove(int i) {
  EnsureTypes();
  std::vector<std::string> inputs = editor_.node(i).inputs;
  editor_.RemoveNode(i);
  for (const auto& in : inputs) {
    int p = ProducerOp(in, "Constant");
    if (p >= 0 && editor_.UseCount(in) == 0) editor_.RemoveNode(p);
  }
}

namespace {
// An attribute with its name and type set, for the helpers below to fill in.
Attribute TypedAttr(const std::string& name, AttributeType type) {
  Attribute a;
  a.name = name;
  a.type = type;
  return a;
}
}  // namespace

Attribute IntAttr(const std::string& name, int64_t v) {
  Attribute a = TypedAttr(name, AttributeType::kInt);
  a.i = v;
  return a;
}

Attribute FloatAttr(const std::string& name, float v) {
  Attribute a = TypedAttr(name, AttributeType::kFloat);
  a.f = v;
  return a;
}

Attribute StringAttr(const std::string& name, const std::string& v) {
  Attribute a = TypedAttr(name, AttributeType::kString);
  a.s = v;
  return a;
}

Attribute FloatsAttr(const std::string& name, std::vector<float> v) {
  Attribute a = TypedAttr(name, AttributeType::kFloats);
  a.floats = std::move(v);
  return a;
}

Attribute IntsAttr(const std::string& name, std::vector<int64_t> v) {
  Attribute a = TypedAttr(name, AttributeType::kInts);
  a.ints = std::move(v);
  return a;
}

bool IsFloatOrDouble(DataType t) { return t == DataType::kFloat || t == DataType::kDouble; }

bool SameValues(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  for (int64_t i = 0; i < a.numel(); ++i)
    if (a.GetAsDouble(i) != b.GetAsDouble(i)) return false;
  return true;
}

int CpuGroupFusion::Apply(Graph& graph, const std::vector<std::string>& outer, const PassContext& ctx) const {
  FusionGraph fg(graph, outer, ctx, providers());
  if (min_opset_ > 0 && fg.OnnxOpset() < min_opset_) return 0;
  int fused = 0;
  for (int i = 0; i < static_cast<int>(fg.size()); ++i) {
    if (!IsTrigger(fg, i) || !fg.OnTarget(i)) continue;
    fused += FuseAt(fg, i, ctx);
  }
  if (fused) fg.Commit();
  return fused;
}

}  // namespace tessera
