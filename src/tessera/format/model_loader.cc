// ModelProto -> Model.
#include "tessera/format/model_loader.h"

#include <google/protobuf/io/coded_stream.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "tessera/base/mapped_file.h"
#include "tessera/base/status.h"
#include "tessera/format/proto_convert.h"

namespace tessera {
namespace format_internal {

namespace {

constexpr int64_t kMinIrVersion = 3;
constexpr int64_t kMaxIrVersion = 13;

std::vector<Dim> ShapeFromWire(const wire::Shape& s) {
  std::vector<Dim> dims;
  for (const auto& d : s.dim()) {
    if (d.has_dim_value()) dims.push_back(Dim::Known(d.dim_value()));
    else if (d.has_dim_param()) dims.push_back(Dim::Symbol(d.dim_param()));
    else dims.push_back(Dim{});
    if (d.has_denotation()) dims.back().denotation = d.denotation();
  }
  return dims;
}

Attribute AttributeFromWire(const wire::Attr& a, LoadContext* ctx, int depth, const std::string& node_label) {
  Attribute out;
  out.name = a.name();
  out.ref_attr_name = a.ref_attr_name();
  std::string what = "attribute '" + a.name() + "' of node " + node_label;
  AttributeType type = static_cast<AttributeType>(a.type());
  if (!a.has_type() || a.type() == 0) {
    // IR < 3 writers left `type` unset; infer it from the field present.
    if (a.has_f()) type = AttributeType::kFloat;
    else if (a.has_i()) type = AttributeType::kInt;
    else if (a.has_s()) type = AttributeType::kString;
    else if (a.has_t()) type = AttributeType::kTensor;
    else if (a.has_g()) type = AttributeType::kGraph;
    else if (a.floats_size()) type = AttributeType::kFloats;
    else if (a.ints_size()) type = AttributeType::kInts;
    else if (a.strings_size()) type = AttributeType::kStrings;
    else if (a.tensors_size()) type = AttributeType::kTensors;
    else if (a.graphs_size()) type = AttributeType::kGraphs;
    else if (a.has_sparse_tensor()) type = AttributeType::kSparseTensor;
    else if (a.has_tp()) type = AttributeType::kTypeProto;
  }
  out.type = type;
  switch (type) {
    case AttributeType::kFloat: out.f = a.f(); break;
    case AttributeType::kInt: out.i = a.i(); break;
    case AttributeType::kString: out.s = a.s(); break;
    case AttributeType::kTensor: out.t = TensorFromWire(a.t(), ctx, what); break;
    case AttributeType::kSparseTensor:
      out.t = SparseTensorFromWire(a.sparse_tensor(), ctx, what);
      out.type = AttributeType::kTensor;
      break;
    case AttributeType::kGraph: out.g = GraphFromWire(a.g(), ctx, depth + 1); break;
    case AttributeType::kFloats: out.floats.assign(a.floats().begin(), a.floats().end()); break;
    case AttributeType::kInts: out.ints.assign(a.ints().begin(), a.ints().end()); break;
    case AttributeType::kStrings: out.strings.assign(a.strings().begin(), a.strings().end()); break;
    case AttributeType::kTensors:
      for (const auto& t : a.tensors()) out.tensors.push_back(TensorFromWire(t, ctx, what));
      break;
    case AttributeType::kSparseTensors:
      for (const auto& t : a.sparse_tensors()) out.tensors.push_back(SparseTensorFromWire(t, ctx, what));
      out.type = AttributeType::kTensors;
      break;
    case AttributeType::kGraphs:
      for (const auto& g : a.graphs()) out.graphs.push_back(GraphFromWire(g, ctx, depth + 1));
      break;
    case AttributeType::kTypeProto: out.tp = TypeFromWire(a.tp()); break;
    case AttributeType::kTypeProtos:
      for (const auto& t : a.type_protos()) out.type_protos.push_back(TypeFromWire(t));
      break;
    case AttributeType::kUndefined:
      if (out.ref_attr_name.empty()) TS_THROW(kInvalidModel, what, " has no value");
      break;
    default: TS_THROW(kInvalidModel, what, " has unknown type ", a.type());
  }
  return out;
}

ValueInfo ValueInfoFromWire(const wire::ValueInfo& v) {
  ValueInfo out;
  out.name = v.name();
  out.doc_string = v.doc_string();
  if (v.has_type()) out.type = TypeFromWire(v.type());
  return out;
}

}  // namespace

TypeInfo TypeFromWire(const wire::Type& t) {
  TypeInfo out;
  switch (t.value_case()) {
    case wire::Type::kTensorType:
      out.kind = TypeInfo::Kind::kTensor;
      out.elem_type = static_cast<DataType>(t.tensor_type().elem_type());
      if (t.tensor_type().has_shape()) out.shape = ShapeFromWire(t.tensor_type().shape());
      break;
    case wire::Type::kSparseTensorType:
      out.kind = TypeInfo::Kind::kSparseTensor;
      out.elem_type = static_cast<DataType>(t.sparse_tensor_type().elem_type());
      if (t.sparse_tensor_type().has_shape()) out.shape = ShapeFromWire(t.sparse_tensor_type().shape());
      break;
    case wire::Type::kSequenceType:
      out.kind = TypeInfo::Kind::kSequence;
      out.inner = std::make_shared<TypeInfo>(TypeFromWire(t.sequence_type().elem_type()));
      break;
    case wire::Type::kOptionalType:
      out.kind = TypeInfo::Kind::kOptional;
      out.inner = std::make_shared<TypeInfo>(TypeFromWire(t.optional_type().elem_type()));
      break;
    case wire::Type::kMapType:
      out.kind = TypeInfo::Kind::kMap;
      out.elem_type = static_cast<DataType>(t.map_type().key_type());
      out.inner = std::make_shared<TypeInfo>(TypeFromWire(t.map_type().value_type()));
      break;
    case wire::Type::kOpaqueType: out.kind = TypeInfo::Kind::kOpaque; break;
    case wire::Type::VALUE_NOT_SET: break;
  }
  return out;
}

std::shared_ptr<Graph> GraphFromWire(const wire::Graph& g, LoadContext* ctx, int depth) {
  if (depth > ctx->limits.max_graph_nesting)
    TS_THROW(kResourceExhausted, "model '", ctx->model_name, "': subgraphs nested deeper than ",
             ctx->limits.max_graph_nesting, " levels");
  auto graph = std::make_shared<Graph>();
  graph->name = g.name();
  graph->doc_string = g.doc_string();
  for (const auto& v : g.input()) graph->inputs.push_back(ValueInfoFromWire(v));
  for (const auto& v : g.output()) graph->outputs.push_back(ValueInfoFromWire(v));
  for (const auto& v : g.value_info()) graph->value_info.push_back(ValueInfoFromWire(v));
  for (const auto& t : g.initializer()) {
    if (t.name().empty()) TS_THROW(kInvalidModel, "graph '", g.name(), "': an initializer has no name");
    if (graph->initializers.count(t.name()))
      TS_THROW(kInvalidModel, "graph '", g.name(), "': initializer '", t.name(), "' is defined twice");
    graph->initializers[t.name()] = TensorFromWire(t, ctx, "initializer '" + t.name() + "'");
  }
  for (const auto& st : g.sparse_initializer()) {
    std::string name = st.values().name();
    if (graph->initializers.count(name))
      TS_THROW(kInvalidModel, "graph '", g.name(), "': initializer '", name, "' is defined twice");
    graph->initializers[name] = SparseTensorFromWire(st, ctx, "sparse initializer '" + name + "'");
  }
  ctx->total_nodes += g.node_size();
  if (ctx->total_nodes > ctx->limits.max_nodes)
    TS_THROW(kResourceExhausted, "model '", ctx->model_name, "': more than ", ctx->limits.max_nodes, " nodes");
  int index = 0;
  for (const auto& n : g.node()) {
    Node node;
    node.name = n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
    ++index;
    node.op_type = n.op_type();
    node.domain = CanonicalDomain(n.domain());
    node.doc_string = n.doc_string();
    if (node.op_type.empty()) TS_THROW(kInvalidModel, "graph '", g.name(), "': node '", node.name, "' has no op_type");
    node.inputs.assign(n.input().begin(), n.input().end());
    node.outputs.assign(n.output().begin(), n.output().end());
    std::set<std::string> seen;
    for (const auto& a : n.attribute()) {
      if (!seen.insert(a.name()).second)
        TS_THROW(kInvalidModel, "node ", node.Label(), " has attribute '", a.name(), "' twice");
      node.attributes.push_back(AttributeFromWire(a, ctx, depth, node.Label()));
    }
    graph->nodes.push_back(std::move(node));
  }
  return graph;
}

Value ValueFromSequence(const wire::Sequence& s) {
  SequenceValue seq;
  for (const auto& t : s.tensor_values()) seq.items.emplace_back(TensorFromWire(t, nullptr, "sequence element"));
  for (const auto& v : s.sequence_values()) seq.items.push_back(ValueFromSequence(v));
  for (const auto& v : s.map_values()) seq.items.push_back(ValueFromMap(v));
  for (const auto& v : s.optional_values()) seq.items.push_back(ValueFromOptional(v));
  if (!seq.items.empty() && seq.items[0].is_tensor())
    seq.elem_type = TypeInfo::Tensor(seq.items[0].tensor().dtype());
  return Value::Sequence(std::move(seq));
}

Value ValueFromOptional(const wire::Optional& o) {
  switch (o.elem_type()) {
    case 1: return Value(TensorFromWire(o.tensor_value(), nullptr, "optional element"));
    case 3: return ValueFromSequence(o.sequence_value());
    case 4: return ValueFromMap(o.map_value());
    case 5: return ValueFromOptional(o.optional_value());
    default: return Value::None(TypeInfo{});
  }
}

Value ValueFromMap(const wire::Map& m) {
  MapValue map;
  map.key_type = static_cast<DataType>(m.key_type());
  map.int_keys.assign(m.keys().begin(), m.keys().end());
  map.string_keys.assign(m.string_keys().begin(), m.string_keys().end());
  map.values = std::make_shared<Value>(ValueFromSequence(m.values()));
  return Value::Map(std::move(map));
}

}  // namespace format_internal

using namespace format_internal;

namespace {

// from_mapping: `data` is a private mapping of the model file, owned by the
// caller and unused after loading.
Model LoadModel(const void* data, size_t size, const std::string& base_dir, const LoadLimits& limits,
                bool from_mapping, const InMemoryFiles& files) {
  return [&] {
    LoadContext ctx;
    ctx.in_memory_files = files.empty() ? nullptr : &files;
    ctx.drop_payload_pages = from_mapping;
    ctx.base_dir = base_dir;
    ctx.limits = limits;
    ctx.model_name = base_dir.empty() ? "<model bytes>" : base_dir;
    if (size == 0) TS_THROW(kInvalidModel, "model is empty (0 bytes)");
    if (size > static_cast<size_t>(INT32_MAX))
      TS_THROW(kInvalidModel, "model protobuf is larger than 2 GB; store the weights as external data");
    // Each subgraph level costs three protobuf levels (graph, node,
    // attribute); the headroom (protobuf's default limit) lets a model some
    // way past max_graph_nesting parse, so it gets the clear nesting error
    // rather than a parse failure.
    int recursion_limit = 3 * std::max(limits.max_graph_nesting, 0) + 100;
    google::protobuf::io::CodedInputStream input(static_cast<const uint8_t*>(data), static_cast<int>(size));
    input.SetRecursionLimit(recursion_limit);
    wire::Model proto;
    bool parsed = ParseModelSplittingPayloads(static_cast<const uint8_t*>(data), size, recursion_limit, &proto,
                                              &ctx.payloads);
    if (!parsed) {
      // Whatever the split parse stumbled on, the plain parse decides (and
      // words the error).
      proto.Clear();
      ctx.payloads.clear();
      parsed = proto.ParseFromCodedStream(&input) && input.ConsumedEntireMessage();
    }
    if (!parsed)
      TS_THROW(kInvalidModel, "not a valid ONNX model: the protobuf could not be parsed (truncated, not an .onnx "
               "file, or messages nested more than ", recursion_limit, " deep)");
    Model model;
    model.ir_version = proto.ir_version();
    if (model.ir_version < kMinIrVersion || model.ir_version > kMaxIrVersion)
      TS_THROW(kInvalidModel, "model IR version ", model.ir_version, " is not supported (Tessera reads IR versions ",
               kMinIrVersion, " to ", kMaxIrVersion, ")");
    if (!proto.has_graph()) TS_THROW(kInvalidModel, "model has no graph");
    model.producer_name = proto.producer_name();
    model.producer_version = proto.producer_version();
    model.domain = proto.domain();
    model.model_version = proto.model_version();
    model.doc_string = proto.doc_string();
    for (const auto& kv : proto.metadata_props()) model.metadata[kv.key()] = kv.value();
    for (const auto& o : proto.opset_import()) {
      OpsetImport imp{CanonicalDomain(o.domain()), o.version()};
      for (const auto& existing : model.opset_imports)
        if (existing.domain == imp.domain)
          TS_THROW(kInvalidModel, "model imports domain '", imp.domain, "' twice");
      model.opset_imports.push_back(imp);
    }
    if (model.opset_imports.empty()) TS_THROW(kInvalidModel, "model has no opset_import");
    model.graph = GraphFromWire(proto.graph(), &ctx, 0);
    if (proto.functions_size() > 0) InlineFunctions(proto, model.graph.get(), ctx.model_name);
    return model;
  }();
}

}  // namespace

Model LoadModelFromBytes(const void* data, size_t size, const std::string& base_dir, const LoadLimits& limits,
                         const InMemoryFiles& files) {
  return LoadModel(data, size, base_dir, limits, false, files);
}

Model LoadModelFromFile(const std::string& path, const LoadLimits& limits, const InMemoryFiles& files) {
  auto file = MappedFile::Open(path);
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  try {
    Model m = LoadModel(file->data(), file->size(), dir, limits, true, files);
    m.path = path;
    return m;
  } catch (const Error& e) {
    throw Error(e.code(), "model '" + path + "': " + e.what());
  }
}

Tensor ParseTensorBytes(const void* data, size_t size) {
  wire::Tensor t;
  if (!t.ParseFromArray(data, static_cast<int>(size))) TS_THROW(kInvalidArgument, "not a valid serialized tensor");
  return TensorFromWire(t, nullptr, "tensor '" + t.name() + "'");
}

Tensor LoadTensorFile(const std::string& path) {
  std::string bytes = ReadFileToString(path);
  try {
    return ParseTensorBytes(bytes.data(), bytes.size());
  } catch (const Error& e) {
    throw Error(e.code(), path + ": " + e.what());
  }
}

Value LoadValueFile(const std::string& path, const TypeInfo& expected) {
  std::string bytes = ReadFileToString(path);
  auto fail = [&] { TS_THROW(kInvalidArgument, path, ": cannot parse as ", expected.TypeString()); };
  switch (expected.kind) {
    case TypeInfo::Kind::kSequence: {
      wire::Sequence s;
      if (!s.ParseFromString(bytes)) fail();
      Value v = ValueFromSequence(s);
      if (v.sequence().items.empty() && expected.inner) {
        SequenceValue seq;
        seq.elem_type = *expected.inner;
        return Value::Sequence(seq);
      }
      return v;
    }
    case TypeInfo::Kind::kOptional: {
      wire::Optional o;
      if (!o.ParseFromString(bytes)) fail();
      Value v = ValueFromOptional(o);
      if (v.is_none() && expected.inner) return Value::None(*expected.inner);
      return v;
    }
    case TypeInfo::Kind::kMap: {
      wire::Map m;
      if (!m.ParseFromString(bytes)) fail();
      return ValueFromMap(m);
    }
    default: return Value(LoadTensorFile(path));
  }
}

}  // namespace tessera
