// Node metadata_props on a serialized model, for `tessera partition
// --annotate`: the model is edited at the wire level so every other byte of
// the graph (initializers, external data references, fields Tessera does not
// read) stays as it was.
#include <google/protobuf/io/coded_stream.h>

#include <set>

#include "tessera/base/status.h"
#include "tessera/format/node_annotations.h"
#include "tessera/format/proto_convert.h"

namespace tessera {

namespace {

wire::Model ParseForAnnotation(const std::string& bytes) {
  if (bytes.size() > static_cast<size_t>(INT32_MAX))
    TS_THROW(kInvalidModel, "model protobuf is larger than 2 GB; store the weights as external data");
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                               static_cast<int>(bytes.size()));
  input.SetRecursionLimit(300);
  wire::Model proto;
  if (!proto.ParseFromCodedStream(&input) || !input.ConsumedEntireMessage())
    TS_THROW(kInvalidModel, "not a valid ONNX model: the protobuf could not be parsed");
  if (!proto.has_graph()) TS_THROW(kInvalidModel, "model has no graph");
  return proto;
}

// The name the loader gives the node (model_loader.cc names unnamed nodes
// "<op_type>_<index>").
std::string LoaderName(const wire::Node& n, int index) {
  return n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
}

void CollectLocations(const wire::Graph& g, std::set<std::string>* out) {
  for (const auto& t : g.initializer())
    for (const auto& kv : t.external_data())
      if (kv.key() == "location") out->insert(kv.value());
  for (const auto& s : g.sparse_initializer())
    for (const auto* t : {&s.values(), &s.indices()})
      for (const auto& kv : t->external_data())
        if (kv.key() == "location") out->insert(kv.value());
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      if (a.has_g()) CollectLocations(a.g(), out);
      for (const auto& sub : a.graphs()) CollectLocations(sub, out);
    }
}

}  // namespace

std::string AnnotateNodes(const std::string& model_bytes, const NodeAnnotations& annotations,
                          std::vector<std::string>* external_locations) {
  wire::Model proto = ParseForAnnotation(model_bytes);
  wire::Graph* g = proto.mutable_graph();
  for (int i = 0; i < g->node_size(); ++i) {
    wire::Node* n = g->mutable_node(i);
    auto it = annotations.find(LoaderName(*n, i));
    if (it == annotations.end()) continue;
    for (const auto& [key, value] : it->second) {
      wire::KeyValue* slot = nullptr;
      for (auto& kv : *n->mutable_metadata_props())
        if (kv.key() == key) slot = &kv;
      if (slot == nullptr) slot = n->add_metadata_props();
      slot->set_key(key);
      slot->set_value(value);
    }
  }
  if (external_locations != nullptr) {
    std::set<std::string> locations;
    CollectLocations(proto.graph(), &locations);
    external_locations->assign(locations.begin(), locations.end());
  }
  std::string out;
  if (!proto.SerializeToString(&out)) TS_THROW(kInternal, "could not serialize the annotated model");
  return out;
}

NodeAnnotations ReadNodeAnnotations(const std::string& model_bytes) {
  wire::Model proto = ParseForAnnotation(model_bytes);
  NodeAnnotations out;
  for (int i = 0; i < proto.graph().node_size(); ++i) {
    const wire::Node& n = proto.graph().node(i);
    if (n.metadata_props_size() == 0) continue;
    auto& props = out[LoaderName(n, i)];
    for (const auto& kv : n.metadata_props()) props.emplace_back(kv.key(), kv.value());
  }
  return out;
}

}  // namespace tessera
