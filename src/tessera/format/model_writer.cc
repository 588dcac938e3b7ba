// Model -> ModelProto bytes, for optimized models and test data.
#include "tessera/base/status.h"
#include "tessera/format/proto_convert.h"

namespace tessera {
namespace format_internal {

namespace {

void ShapeToWire(const std::vector<Dim>& dims, wire::Shape* out) {
  for (const Dim& d : dims) {
    auto* w = out->add_dim();
    if (d.known()) w->set_dim_value(d.value);
    else if (!d.param.empty()) w->set_dim_param(d.param);
    if (!d.denotation.empty()) w->set_denotation(d.denotation);
  }
}

void ValueInfoToWire(const ValueInfo& v, wire::ValueInfo* out) {
  out->set_name(v.name);
  if (!v.doc_string.empty()) out->set_doc_string(v.doc_string);
  if (v.type.kind != TypeInfo::Kind::kUnknown) TypeToWire(v.type, out->mutable_type());
}

void AttributeToWire(const Attribute& a, wire::Attr* out) {
  out->set_name(a.name);
  out->set_type(static_cast<int32_t>(a.type));
  if (!a.ref_attr_name.empty()) out->set_ref_attr_name(a.ref_attr_name);
  switch (a.type) {
    case AttributeType::kFloat: out->set_f(a.f); break;
    case AttributeType::kInt: out->set_i(a.i); break;
    case AttributeType::kString: out->set_s(a.s); break;
    case AttributeType::kTensor: TensorToWire(a.t, out->mutable_t()); break;
    case AttributeType::kGraph: GraphToWire(*a.g, out->mutable_g()); break;
    case AttributeType::kFloats: for (float f : a.floats) out->add_floats(f); break;
    case AttributeType::kInts: for (int64_t i : a.ints) out->add_ints(i); break;
    case AttributeType::kStrings: for (const auto& s : a.strings) out->add_strings(s); break;
    case AttributeType::kTensors: for (const auto& t : a.tensors) TensorToWire(t, out->add_tensors()); break;
    case AttributeType::kGraphs: for (const auto& g : a.graphs) GraphToWire(*g, out->add_graphs()); break;
    case AttributeType::kTypeProto: TypeToWire(a.tp, out->mutable_tp()); break;
    case AttributeType::kTypeProtos: for (const auto& t : a.type_protos) TypeToWire(t, out->add_type_protos()); break;
    default: break;
  }
}

}  // namespace

void TypeToWire(const TypeInfo& t, wire::Type* out) {
  switch (t.kind) {
    case TypeInfo::Kind::kTensor: {
      auto* tt = out->mutable_tensor_type();
      tt->set_elem_type(static_cast<int32_t>(t.elem_type));
      if (t.shape) ShapeToWire(*t.shape, tt->mutable_shape());
      break;
    }
    case TypeInfo::Kind::kSparseTensor: {
      auto* tt = out->mutable_sparse_tensor_type();
      tt->set_elem_type(static_cast<int32_t>(t.elem_type));
      if (t.shape) ShapeToWire(*t.shape, tt->mutable_shape());
      break;
    }
    case TypeInfo::Kind::kSequence:
      if (t.inner) TypeToWire(*t.inner, out->mutable_sequence_type()->mutable_elem_type());
      else out->mutable_sequence_type();
      break;
    case TypeInfo::Kind::kOptional:
      if (t.inner) TypeToWire(*t.inner, out->mutable_optional_type()->mutable_elem_type());
      else out->mutable_optional_type();
      break;
    case TypeInfo::Kind::kMap:
      out->mutable_map_type()->set_key_type(static_cast<int32_t>(t.elem_type));
      if (t.inner) TypeToWire(*t.inner, out->mutable_map_type()->mutable_value_type());
      break;
    case TypeInfo::Kind::kOpaque: out->mutable_opaque_type(); break;
    case TypeInfo::Kind::kUnknown: break;
  }
}

void GraphToWire(const Graph& g, wire::Graph* out) {
  out->set_name(g.name);
  if (!g.doc_string.empty()) out->set_doc_string(g.doc_string);
  for (const auto& v : g.inputs) ValueInfoToWire(v, out->add_input());
  for (const auto& v : g.outputs) ValueInfoToWire(v, out->add_output());
  for (const auto& v : g.value_info) ValueInfoToWire(v, out->add_value_info());
  for (const auto& [name, t] : g.initializers) {
    auto* w = out->add_initializer();
    TensorToWire(t, w);
    w->set_name(name);
  }
  for (const auto& n : g.nodes) {
    auto* w = out->add_node();
    w->set_name(n.name);
    w->set_op_type(n.op_type);
    if (n.domain != kOnnxDomain) w->set_domain(n.domain);
    for (const auto& i : n.inputs) w->add_input(i);
    for (const auto& o : n.outputs) w->add_output(o);
    for (const auto& a : n.attributes) AttributeToWire(a, w->add_attribute());
    if (!n.doc_string.empty()) w->set_doc_string(n.doc_string);
  }
}

}  // namespace format_internal

using namespace format_internal;

namespace {
void ModelToWire(const Model& model, wire::Model& m) {
  m.set_ir_version(model.ir_version);
  if (!model.producer_name.empty()) m.set_producer_name(model.producer_name);
  if (!model.producer_version.empty()) m.set_producer_version(model.producer_version);
  if (!model.domain.empty()) m.set_domain(model.domain);
  if (model.model_version) m.set_model_version(model.model_version);
  if (!model.doc_string.empty()) m.set_doc_string(model.doc_string);
  for (const auto& o : model.opset_imports) {
    auto* w = m.add_opset_import();
    w->set_domain(o.domain == kOnnxDomain ? "" : o.domain);
    w->set_version(o.version);
  }
  for (const auto& [k, v] : model.metadata) {
    auto* kv = m.add_metadata_props();
    kv->set_key(k);
    kv->set_value(v);
  }
  if (model.graph) GraphToWire(*model.graph, m.mutable_graph());
}
}  // namespace


std::string SerializeModel(const Model& model) {
  wire::Model m;
  ModelToWire(model, m);
  return m.SerializeAsString();
}

std::string SerializeModelWithExternalData(const Model& model, const std::string& location, std::string* data,
                                           size_t min_bytes) {
  wire::Model m;
  ModelToWire(model, m);
  data->clear();
  for (auto& t : *m.mutable_graph()->mutable_initializer()) {
    if (!t.has_raw_data() || t.raw_data().size() < min_bytes) continue;
    // 64-byte offsets: the loader maps aligned external data in place.
    data->resize((data->size() + 63) / 64 * 64, '\0');
    const size_t offset = data->size();
    data->append(t.raw_data());
    t.clear_raw_data();
    t.set_data_location(1);
    const std::pair<const char*, std::string> entries[] = {
        {"location", location}, {"offset", std::to_string(offset)}, {"length", std::to_string(data->size() - offset)}};
    for (const auto& [k, v] : entries) {
      auto* kv = t.add_external_data();
      kv->set_key(k);
      kv->set_value(v);
    }
  }
  return m.SerializeAsString();
}

std::string SerializeTensor(const Tensor& tensor, const std::string& name) {
  wire::Tensor t;
  TensorToWire(tensor, &t);
  if (!name.empty()) t.set_name(name);
  return t.SerializeAsString();
}

namespace {
void SequenceToWire(const SequenceValue& s, wire::Sequence* out);
void OptionalToWire(const Value& v, wire::Optional* out) {
  if (v.is_none()) {
    out->set_elem_type(0);
  } else if (v.is_tensor()) {
    out->set_elem_type(1);
    TensorToWire(v.tensor(), out->mutable_tensor_value());
  } else if (v.is_sequence()) {
    out->set_elem_type(3);
    SequenceToWire(v.sequence(), out->mutable_sequence_value());
  }
}
void SequenceToWire(const SequenceValue& s, wire::Sequence* out) {
  out->set_elem_type(1);
  for (const auto& item : s.items) {
    if (item.is_tensor()) TensorToWire(item.tensor(), out->add_tensor_values());
    else if (item.is_sequence()) {
      out->set_elem_type(3);
      SequenceToWire(item.sequence(), out->add_sequence_values());
    }
  }
}
}  // namespace

std::string SerializeValue(const Value& value, const std::string& name) {
  if (value.is_tensor()) return SerializeTensor(value.tensor(), name);
  if (value.is_sequence()) {
    wire::Sequence s;
    SequenceToWire(value.sequence(), &s);
    s.set_name(name);
    return s.SerializeAsString();
  }
  wire::Optional o;
  OptionalToWire(value, &o);
  o.set_name(name);
  return o.SerializeAsString();
}

}  // namespace tessera
