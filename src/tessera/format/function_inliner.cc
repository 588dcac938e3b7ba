// Expands calls of model-local functions (FunctionProto) into their bodies so
// later layers only ever see primitive operators.
#include <map>
#include <unordered_map>

#include "tessera/base/status.h"
#include "tessera/format/proto_convert.h"

namespace tessera::format_internal {

namespace {

struct FunctionDef {
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<Node> body;
  std::map<std::string, Attribute> defaults;  // attribute_proto entries
};

using FunctionKey = std::pair<std::string, std::string>;  // (domain, name)

void RenameInGraph(Graph* g, const std::unordered_map<std::string, std::string>& names) {
  for (auto& n : g->nodes) {
    for (auto& in : n.inputs) {
      auto it = names.find(in);
      if (it != names.end()) in = it->second;
    }
    for (auto& a : n.attributes) {
      if (a.g) RenameInGraph(a.g.get(), names);
      for (auto& sg : a.graphs) RenameInGraph(sg.get(), names);
    }
  }
  for (auto& o : g->outputs) {
    auto it = names.find(o.name);
    if (it != names.end()) o.name = it->second;
  }
}

class Inliner {
 public:
  Inliner(std::map<FunctionKey, FunctionDef> functions, std::string model_name)
      : functions_(std::move(functions)), model_name_(std::move(model_name)) {}

  void Run(Graph* graph, int depth) {
    if (depth > 64) TS_THROW(kInvalidModel, "model '", model_name_, "': model-local functions call each other recursively");
    std::vector<Node> out;
    bool changed = false;
    for (auto& node : graph->nodes) {
      for (auto& a : node.attributes) {
        if (a.g) Run(a.g.get(), depth);
        for (auto& sg : a.graphs) Run(sg.get(), depth);
      }
      auto it = functions_.find({node.domain, node.op_type});
      if (it == functions_.end()) {
        out.push_back(std::move(node));
        continue;
      }
      changed = true;
      Expand(node, it->second, &out);
    }
    graph->nodes = std::move(out);
    if (changed) Run(graph, depth + 1);  // bodies may call other functions
  }

 private:
  void Expand(const Node& call, const FunctionDef& fn, std::vector<Node>* out) {
    std::string prefix = call.name + "/" + std::to_string(counter_++) + "/";
    std::unordered_map<std::string, std::string> names;
    for (size_t i = 0; i < fn.inputs.size(); ++i)
      names[fn.inputs[i]] = i < call.inputs.size() ? call.inputs[i] : std::string();
    for (size_t i = 0; i < fn.outputs.size(); ++i)
      names[fn.outputs[i]] = i < call.outputs.size() && !call.outputs[i].empty() ? call.outputs[i] : prefix + fn.outputs[i];
    for (const auto& b : fn.body)
      for (const auto& o : b.outputs)
        if (!o.empty() && !names.count(o)) names[o] = prefix + o;
    for (const Node& b : fn.body) {
      Node n = b;
      n.name = prefix + b.name;
      for (auto& in : n.inputs) {
        auto it = names.find(in);
        if (it != names.end()) in = it->second;
      }
      for (auto& o : n.outputs) {
        auto it = names.find(o);
        if (it != names.end()) o = it->second;
      }
      std::vector<Attribute> attrs;
      for (auto& a : n.attributes) {
        if (a.g) RenameInGraph(a.g.get(), names);
        for (auto& sg : a.graphs) RenameInGraph(sg.get(), names);
        if (a.ref_attr_name.empty()) {
          attrs.push_back(a);
          continue;
        }
        const Attribute* given = call.FindAttribute(a.ref_attr_name);
        if (given == nullptr) {
          auto d = fn.defaults.find(a.ref_attr_name);
          if (d != fn.defaults.end()) given = &d->second;
        }
        if (given != nullptr) {
          Attribute copy = *given;
          copy.name = a.name;
          copy.ref_attr_name.clear();
          attrs.push_back(copy);
        }
      }
      n.attributes = std::move(attrs);
      out->push_back(std::move(n));
    }
  }

  std::map<FunctionKey, FunctionDef> functions_;
  std::string model_name_;
  int counter_ = 0;
};

}  // namespace

void InlineFunctions(const wire::Model& model, Graph* graph, const std::string& model_name) {
  std::map<FunctionKey, FunctionDef> functions;
  LoadContext ctx;
  ctx.model_name = model_name;
  for (const auto& f : model.functions()) {
    wire::Graph body;
    for (const auto& n : f.node()) *body.add_node() = n;
    body.set_name("function " + f.name());
    FunctionDef def;
    def.inputs.assign(f.input().begin(), f.input().end());
    def.outputs.assign(f.output().begin(), f.output().end());
    def.body = GraphFromWire(body, &ctx, 0)->nodes;
    // Loaded node names were made unique per body; keep the body's own names.
    for (const auto& a : f.attribute_proto()) {
      Attribute attr;
      wire::Graph holder;
      auto* n = holder.add_node();
      n->set_op_type("Holder");
      *n->add_attribute() = a;
      auto g = GraphFromWire(holder, &ctx, 0);
      def.defaults[a.name()] = g->nodes[0].attributes[0];
    }
    functions[{CanonicalDomain(f.domain()), f.name()}] = std::move(def);
  }
  Inliner(std::move(functions), model_name).Run(graph, 0);
}

}  // namespace tessera::format_internal
