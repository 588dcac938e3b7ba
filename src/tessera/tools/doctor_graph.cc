// doctor's graph checks: what the exported graph computes at run time that
// it need not, control flow that depends on tensor values, dynamic shapes.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "tessera/ops/op_schema.h"
#include "tessera/tools/doctor.h"

namespace tessera::cli {

namespace {

bool Deterministic(const Node& n) { return !OpHasTrait(n, op_trait::kNondeterministic); }

bool HasSubgraph(const Node& n) {
  for (const auto& a : n.attributes)
    if (a.g || !a.graphs.empty()) return true;
  return false;
}

// Nodes in dependency order (the file's order when it has a cycle: the
// session will report that).
std::vector<const Node*> Ordered(const Graph& g, std::shared_ptr<Graph>* keep) {
  *keep = g.DeepCopy();
  try {
    (*keep)->SortTopologically();
  } catch (const Error&) {
    *keep = g.DeepCopy();
  }
  std::vector<const Node*> out;
  for (const Node& n : (*keep)->nodes) out.push_back(&n);
  return out;
}

// Values known before any input is fed: initializers a caller cannot
// override (not also graph inputs) and Constant outputs, plus everything
// computed from those alone.
struct ConstantAnalysis {
  std::unordered_set<std::string> constant;  // values
  std::unordered_set<std::string> shape;     // values computed from static shapes (and constants)
  std::vector<const Node*> foldable;         // runtime ops on constants only
  std::vector<const Node*> shape_nodes;      // runtime ops on static shapes
};

// The session's inferred type first: it has the --free-dim sizes applied.
const TypeInfo* TypeOf(const DoctorInput& in, const std::string& value) {
  const TypeInfo* inferred = in.plan ? in.plan->session->ValueType(value) : nullptr;
  if (inferred != nullptr && inferred->is_tensor() && inferred->shape) return inferred;
  const ValueInfo* v = in.model->graph->FindValueInfo(value);
  if (v != nullptr && v->type.is_tensor() && v->type.shape) return &v->type;
  return inferred;
}

bool StaticShape(const DoctorInput& in, const std::string& value) {
  const TypeInfo* t = TypeOf(in, value);
  return t != nullptr && t->StaticShape().has_value();
}

ConstantAnalysis AnalyzeConstants(const DoctorInput& in, const std::vector<const Node*>& nodes) {
  const Graph& g = *in.model->graph;
  ConstantAnalysis a;
  std::unordered_set<std::string> inputs;
  for (const auto& i : g.inputs) inputs.insert(i.name);
  for (const auto& [name, t] : g.initializers)
    if (!inputs.count(name)) a.constant.insert(name);
  for (const Node* n : nodes) {
    bool all_const = true, all_known = true, any_shape = false, any_input = false;
    for (const auto& v : n->inputs) {
      if (v.empty()) continue;
      any_input = true;
      bool c = a.constant.count(v) > 0, s = a.shape.count(v) > 0;
      all_const &= c;
      all_known &= c || s;
      any_shape |= s;
    }
    bool eligible = Deterministic(*n) && !HasSubgraph(*n);
    bool is_shape_of_static = (n->op_type == "Shape" || n->op_type == "Size") && !n->inputs.empty() &&
                              StaticShape(in, n->inputs[0]);
    if (n->op_type == "Constant" || (eligible && all_const && any_input)) {
      for (const auto& o : n->outputs) a.constant.insert(o);
      // Identity of a constant is an alias every runtime drops for free (torch
      // emits them for shared weights even with do_constant_folding=True);
      // Q/DQ pairs on weights are the QDQ format's way of storing int8.
      static const std::set<std::string> free_or_intended = {"Constant", "Identity", "DequantizeLinear",
                                                             "QuantizeLinear"};
      if (!free_or_intended.count(n->op_type)) a.foldable.push_back(n);
    } else if (eligible && (is_shape_of_static || (all_known && any_shape))) {
      for (const auto& o : n->outputs) a.shape.insert(o);
      a.shape_nodes.push_back(n);
    }
  }
  return a;
}

std::vector<std::string> Names(const std::vector<const Node*>& nodes) {
  std::vector<std::string> out;
  for (const Node* n : nodes) out.push_back(n->name);
  return out;
}

std::string Bytes(double b) {
  std::ostringstream os;
  os.precision(3);
  if (b >= 1e6) os << b / 1e6 << " MB";
  else if (b >= 1e3) os << b / 1e3 << " kB";
  else os << b << " B";
  return os.str();
}

int64_t OpsetOf(const Model& m, const Node& n) { return m.OpsetFor(n.domain); }

// Which requested providers refuse the node, with their reasons.
std::string Refusals(const DoctorInput& in, const Node& n) {
  std::string out;
  for (const auto& p : in.providers) {
    Claim c = p->Capability(n, OpsetOf(*in.model, n));
    if (!c.claimed()) out += (out.empty() ? "" : "; ") + p->name() + " refuses it (" + c.reason + ")";
  }
  return out.empty() ? "every requested provider takes it" : out;
}

}  // namespace

void CheckConstants(const DoctorInput& in, std::vector<Finding>* out) {
  std::shared_ptr<Graph> keep;
  std::vector<const Node*> nodes = Ordered(*in.model->graph, &keep);
  ConstantAnalysis a = AnalyzeConstants(in, nodes);
  if (!a.foldable.empty()) {
    // Initializers that only foldable nodes read disappear with them.
    std::unordered_set<const Node*> folded(a.foldable.begin(), a.foldable.end());
    std::unordered_map<std::string, bool> only_folded;
    for (const Node* n : nodes)
      for (const auto& v : n->inputs)
        if (in.model->graph->initializers.count(v)) {
          auto it = only_folded.emplace(v, true).first;
          it->second = it->second && folded.count(n) > 0;
        }
    double removed = 0;
    int removed_count = 0;
    for (const auto& [name, only] : only_folded)
      if (only) {
        removed += static_cast<double>(in.model->graph->initializers.at(name).nbytes());
        ++removed_count;
      }
    // What folding adds: the results the rest of the graph (or its outputs)
    // reads, where their shapes are known.
    std::unordered_set<std::string> graph_outputs;
    for (const auto& o : in.model->graph->outputs) graph_outputs.insert(o.name);
    std::unordered_set<std::string> read_outside;
    for (const Node* n : nodes)
      if (!folded.count(n))
        for (const auto& v : n->inputs) read_outside.insert(v);
    double added = 0;
    int results = 0;
    bool sizes_known = true;
    for (const Node* n : a.foldable)
      for (const auto& o : n->outputs) {
        if (o.empty() || (!read_outside.count(o) && !graph_outputs.count(o))) continue;
        ++results;
        const TypeInfo* t = TypeOf(in, o);
        auto shape = t ? t->StaticShape() : std::nullopt;
        if (!shape) {
          sizes_known = false;
          continue;
        }
        int64_t count = 1;
        for (int64_t d : *shape) count *= d;
        added += static_cast<double>(StorageBytes(t->elem_type, count));
      }
    Finding f;
    f.severity = FindingSeverity::kWarning;
    f.code = "constant-subgraph";
    f.nodes = Names(a.foldable);
    std::ostringstream what;
    what << a.foldable.size() << " node(s) compute from constants only (" << OpHistogram(a.foldable)
         << "); folding replaces them by their " << results << " result(s) (" << (sizes_known ? "" : "at least ")
         << Bytes(added) << ") and drops the " << removed_count << " initializer(s) (" << Bytes(removed)
         << ") only they read";
    f.what = what.str();
    f.why = "every run recomputes values fixed at export time, and providers that compile the graph ahead of time "
            "(or refuse these ops) see extra nodes and partitions";
    f.fix = "re-export with torch.onnx.export(..., do_constant_folding=True); where the export already had it "
            "(torch leaves some ops on parameters, such as Gather from an embedding table at constant indices), "
            "fold this file: tessera optimize MODEL OUT.onnx --level basic";
    out->push_back(f);
  }
  if (!a.shape_nodes.empty()) {
    Finding f;
    f.severity = FindingSeverity::kInfo;
    f.code = "shape-computation";
    f.nodes = Names(a.shape_nodes);
    f.what = std::to_string(a.shape_nodes.size()) + " node(s) compute from static tensor shapes only (" +
             OpHistogram(a.shape_nodes) + "); Tessera folds them when it loads the model";
    f.why = "the shapes are fixed, so these are constants; runtimes and compilers that do not fold shapes run them "
            "every time, often on the host between device partitions";
    f.fix = "export with static shapes and do_constant_folding=True (sizes taken from x.shape in the model code "
            "become Shape/Gather chains otherwise), or fold this file: tessera optimize MODEL OUT.onnx --level basic";
    out->push_back(f);
  }
}

void CheckControlFlow(const DoctorInput& in, std::vector<Finding>* out) {
  std::shared_ptr<Graph> keep;
  std::vector<const Node*> nodes = Ordered(*in.model->graph, &keep);
  ConstantAnalysis a = AnalyzeConstants(in, nodes);
  auto source = [&](const std::string& v) {
    if (v.empty()) return std::string("absent");
    if (a.constant.count(v)) return "the constant '" + v + "'";
    for (const auto& i : in.model->graph->inputs)
      if (i.name == v) return "the graph input '" + v + "'";
    return "the value '" + v + "', computed at run time";
  };
  for (const Node* n : nodes) {
    Finding f;
    f.severity = FindingSeverity::kWarning;
    f.nodes = {n->name};
    if (n->op_type == "If") {
      if (n->inputs.empty()) continue;
      if (a.constant.count(n->inputs[0])) {
        f.code = "constant-if";
        f.what = "If '" + n->name + "' branches on " + source(n->inputs[0]) + "; only one branch can ever run";
        f.why = "the untaken branch and the If itself stay in the graph; " + Refusals(in, *n);
        f.fix = "re-export with do_constant_folding=True, or make the choice in Python at export time (tracing keeps "
                "only the branch taken)";
      } else {
        f.code = "value-dependent-if";
        f.what = "If '" + n->name + "' branches on " + source(n->inputs[0]) + "; " + Refusals(in, *n);
        f.why = "which branch runs depends on tensor values, so the graph cannot be compiled ahead of time as one "
                "piece and accelerators split around it";
        f.fix = "compute both branches and select with Where, or take the decision in Python and export each case "
                "as its own model";
      }
    } else if (n->op_type == "Loop") {
      const Attribute* body_attr = n->FindAttribute("body");
      const Graph* body = body_attr ? body_attr->g.get() : nullptr;
      std::string trip = n->inputs.size() > 0 ? n->inputs[0] : "";
      std::string cond = n->inputs.size() > 1 ? n->inputs[1] : "";
      bool trip_const = !trip.empty() && a.constant.count(trip);
      bool cond_const = cond.empty() || a.constant.count(cond);
      bool body_cond_fixed = true;
      if (body != nullptr && body->outputs.size() > 0 && body->inputs.size() > 1) {
        const std::string& cond_out = body->outputs[0].name;
        body_cond_fixed = cond_out == body->inputs[1].name || body->initializers.count(cond_out);
        for (const Node& bn : body->nodes)
          for (const auto& o : bn.outputs)
            if (o == cond_out)
              body_cond_fixed = bn.op_type == "Constant" ||
                                (bn.op_type == "Identity" && !bn.inputs.empty() && bn.inputs[0] == body->inputs[1].name);
      }
      if (trip_const && cond_const && body_cond_fixed) continue;
      f.code = "value-dependent-loop";
      std::string how;
      if (!trip_const) how = "its trip count is " + source(trip);
      if (!cond_const || !body_cond_fixed)
        how += std::string(how.empty() ? "" : " and ") + "its condition is " +
               (!body_cond_fixed ? "recomputed in the body from loop-carried values" : source(cond));
      f.what = "Loop '" + n->name + "': " + how + "; " + Refusals(in, *n);
      f.why = "how many iterations run depends on tensor values: providers that compile static graphs cannot take "
              "the loop, and it runs one iteration at a time on the host";
      f.fix = "loop over a Python constant (range(N)) so the export unrolls it or gets a constant trip count; a "
              "scripted while-loop on tensor values exports as this Loop";
    } else if (n->op_type == "Scan") {
      const Attribute* num = n->FindAttribute("num_scan_inputs");
      const Attribute* axes = n->FindAttribute("scan_input_axes");
      if (num == nullptr) continue;
      size_t scans = static_cast<size_t>(std::max<int64_t>(0, num->i));
      if (scans > n->inputs.size()) continue;
      std::string dynamic;
      for (size_t k = 0; k < scans; ++k) {
        const std::string& v = n->inputs[n->inputs.size() - scans + k];
        int64_t axis = axes && k < axes->ints.size() ? axes->ints[k] : 0;
        const TypeInfo* t = TypeOf(in, v);
        if (t == nullptr || !t->shape) {
          dynamic = "'" + v + "' (rank unknown)";
          break;
        }
        int64_t rank = static_cast<int64_t>(t->shape->size());
        if (axis < 0) axis += rank;
        if (axis < 0 || axis >= rank) continue;
        const Dim& d = (*t->shape)[static_cast<size_t>(axis)];
        if (!d.known()) {
          dynamic = "dimension " + std::to_string(axis) + " of '" + v + "' (" + d.ToString() + ")";
          break;
        }
      }
      if (dynamic.empty()) continue;
      f.code = "dynamic-scan";
      f.what = "Scan '" + n->name + "' runs once per element of " + dynamic + ", known only when the model runs; " +
               Refusals(in, *n);
      f.why = "the trip count follows a dynamic dimension, so the scan cannot be unrolled or compiled ahead of time";
      f.fix = "export with that dimension fixed (drop it from dynamic_axes), or fix it when loading: --free-dim NAME=SIZE";
    } else {
      continue;
    }
    out->push_back(f);
  }
}

void CheckDynamicDims(const DoctorInput& in, std::vector<Finding>* out) {
  const Graph& g = *in.model->graph;
  std::set<std::string> fixed;
  for (const auto& o : in.free_dims) fixed.insert(o.key);
  // Symbol -> the inputs it appears in.
  std::map<std::string, std::vector<std::string>> symbols;
  std::vector<std::string> unnamed, unnamed_inputs;
  for (const auto& i : g.inputs) {
    if (g.initializers.count(i.name) || !i.type.is_tensor()) continue;
    if (!i.type.shape) {
      unnamed.push_back(i.name + " (rank unknown)");
      unnamed_inputs.push_back(i.name);
      continue;
    }
    for (size_t d = 0; d < i.type.shape->size(); ++d) {
      const Dim& dim = (*i.type.shape)[d];
      if (dim.known()) continue;
      if (dim.param.empty()) {
        unnamed.push_back(i.name + "[" + std::to_string(d) + "]");
        unnamed_inputs.push_back(i.name);
      }
      else if (!fixed.count(dim.param)) {
        auto& list = symbols[dim.param];
        if (std::find(list.begin(), list.end(), i.name) == list.end()) list.push_back(i.name);
      }
    }
  }
  if (symbols.empty() && unnamed.empty()) return;
  // The ops the dynamic inputs reach (Shape/Size end the path: their
  // outputs are small host values).
  std::shared_ptr<Graph> keep;
  std::vector<const Node*> nodes = Ordered(g, &keep);
  std::unordered_set<std::string> tainted;
  for (const auto& [sym, inputs] : symbols) tainted.insert(inputs.begin(), inputs.end());
  tainted.insert(unnamed_inputs.begin(), unnamed_inputs.end());
  std::vector<const Node*> reached;
  for (const Node* n : nodes) {
    bool hit = false;
    for (const auto& v : n->inputs) hit |= !v.empty() && tainted.count(v) > 0;
    if (!hit) continue;
    reached.push_back(n);
    if (n->op_type != "Shape" && n->op_type != "Size")
      for (const auto& o : n->outputs) tainted.insert(o);
  }
  // Which requested providers take more of the graph once the dims are fixed.
  std::string gains;
  if (in.plan && in.static_plan) {
    std::map<std::string, int> more;
    std::unordered_map<std::string, std::string> before;
    for (const auto& p : in.plan->nodes) before[p.node] = p.provider;
    for (const auto& p : in.static_plan->nodes) {
      auto it = before.find(p.node);
      if (it != before.end() && it->second != p.provider) more[p.provider]++;
    }
    for (const auto& [ep, n] : more)
      gains += (gains.empty() ? "" : ", ") + ep + " takes " + std::to_string(n) + " more node(s)";
  }
  Finding f;
  f.code = "dynamic-dims";
  f.severity = in.want_static ? FindingSeverity::kError : gains.empty() ? FindingSeverity::kInfo : FindingSeverity::kWarning;
  std::ostringstream what, fix;
  what << "dynamic input dimensions:";
  for (const auto& [sym, inputs] : symbols) what << " '" << sym << "' (" << NameList(inputs) << ")";
  if (!unnamed.empty()) what << (symbols.empty() ? " " : "; ") << "unnamed: " << NameList(unnamed);
  what << "; they reach " << reached.size() << " op(s) (" << OpHistogram(reached) << ")";
  if (!gains.empty()) what << "; with them fixed " << gains;
  for (const auto& [sym, inputs] : symbols) f.nodes.insert(f.nodes.end(), inputs.begin(), inputs.end());
  for (const auto& name : unnamed_inputs)
    if (std::find(f.nodes.begin(), f.nodes.end(), name) == f.nodes.end()) f.nodes.push_back(name);
  f.what = what.str();
  f.why = in.want_static ? "the target needs static shapes: every shape must be known before the first run"
                         : "shapes known only at run time keep shape-dependent passes, memory planning and static-shape "
                           "providers from taking those ops";
  if (!symbols.empty()) {
    fix << "fix them when loading with";
    for (const auto& [sym, inputs] : symbols) fix << " --free-dim " << sym << "=SIZE";
    fix << " (SessionOptions::free_dimension_overrides; SIZE = the size you deploy with, e.g. 1 for a batch)";
  }
  if (!unnamed.empty())
    fix << (symbols.empty() ? "" : "; ") << "unnamed dimensions cannot be fixed by name: re-export them with a fixed "
        << "size, or name them in dynamic_axes";
  if (!symbols.empty()) fix << "; or re-export without dynamic_axes for them";
  f.fix = fix.str();
  out->push_back(f);
}

}  // namespace tessera::cli
