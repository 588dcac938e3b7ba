// doctor's provider checks: ops the requested providers will not take and
// what that costs, opsets their kernels do not cover, and the re-export line.
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "tessera/tools/doctor.h"

namespace tessera::cli {

const char* SeverityName(FindingSeverity s) {
  switch (s) {
    case FindingSeverity::kInfo: return "info";
    case FindingSeverity::kWarning: return "warning";
    case FindingSeverity::kError: return "error";
  }
  return "?";
}

FindingSeverity ParseSeverity(const std::string& s) {
  if (s == "info") return FindingSeverity::kInfo;
  if (s == "warning") return FindingSeverity::kWarning;
  if (s == "error") return FindingSeverity::kError;
  TS_THROW(kInvalidArgument, "--fail-on expects info, warning or error, got '", s, "'");
}

std::string NameList(const std::vector<std::string>& names, size_t limit) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < limit; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > limit) out += " and " + std::to_string(names.size() - limit) + " more";
  return out;
}

std::string OpHistogram(const std::vector<const Node*>& nodes, size_t limit) {
  std::map<std::string, int> count;
  for (const Node* n : nodes) count[n->op_type]++;
  std::vector<std::pair<std::string, int>> sorted(count.begin(), count.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (size_t i = 0; i < sorted.size() && i < limit; ++i)
    out += (i ? ", " : "") + sorted[i].first + " x" + std::to_string(sorted[i].second);
  if (sorted.size() > limit) out += ", ...";
  return out.empty() ? "none" : out;
}

namespace {

// The opset range a provider's kernels cover for an op: [first, last] over
// its rows, or nothing when it has no row for the op.
struct Coverage {
  bool any = false, covers = false;
  int64_t first = 0, last = 0;
};

Coverage CoverageOf(const ExecutionProvider& p, const std::string& domain, const std::string& op, int64_t opset) {
  Coverage c;
  for (const KernelRow& r : p.kernels().rows()) {
    if (r.domain != domain || r.op_type != op) continue;
    c.first = c.any ? std::min(c.first, r.first_opset) : r.first_opset;
    c.last = c.any ? std::max(c.last, r.last_opset) : r.last_opset;
    c.any = true;
    c.covers |= opset >= r.first_opset && opset <= r.last_opset;
  }
  return c;
}

std::string RangeText(const Coverage& c) {
  return std::to_string(c.first) + (c.last >= 1000 ? "+" : "-" + std::to_string(c.last));
}

}  // namespace

void CheckUnsupportedOps(const DoctorInput& in, std::vector<Finding>* out) {
  if (in.plan == nullptr || in.providers.size() < 2) return;
  const Plan& plan = *in.plan;
  const std::string preferred = in.providers.front()->name();
  // Fallen-back nodes by op type, and the values each placed node makes.
  std::map<std::string, std::vector<size_t>> fallen;
  std::unordered_map<std::string, size_t> producer;
  std::unordered_map<std::string, std::vector<size_t>> consumers;
  // "claimed, but ..." is the partitioner's own choice (a partition too
  // small to pay for itself), not something the export can change.
  auto chosen = [](const std::vector<std::string>& reasons) {
    for (const auto& r : reasons)
      if (r.find("claimed, but") == std::string::npos) return false;
    return true;
  };
  // Nodes a provider takes once the dims are fixed belong to the
  // dynamic-dims finding, which names the fix.
  std::unordered_set<std::string> static_fixes;
  if (in.static_plan != nullptr) {
    std::unordered_map<std::string, std::string> fixed;
    for (const auto& p : in.static_plan->nodes) fixed[p.node] = p.provider;
    for (const auto& p : plan.nodes) {
      auto it = fixed.find(p.node);
      if (it != fixed.end() && it->second != p.provider) static_fixes.insert(p.node);
    }
  }
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    if (!plan.nodes[i].declined.empty() && !chosen(plan.nodes[i].declined) && !static_fixes.count(plan.nodes[i].node))
      fallen[plan.nodes[i].op_type].push_back(i);
    if (plan.graph_nodes[i] == nullptr) continue;
    for (const auto& o : plan.graph_nodes[i]->outputs) producer[o] = i;
    for (const auto& v : plan.graph_nodes[i]->inputs) consumers[v].push_back(i);
  }
  for (const auto& [op, indices] : fallen) {
    std::set<size_t> mine(indices.begin(), indices.end());
    std::set<int> partitions;
    for (size_t i : indices) partitions.insert(plan.nodes[i].partition);
    int copies = 0;
    int64_t bytes = 0;
    bool dynamic = false;
    for (const auto& c : plan.copies) {
      bool touches = false;
      auto p = producer.find(c.value);
      if (p != producer.end() && mine.count(p->second)) touches = true;
      for (size_t k : consumers[c.value]) touches |= mine.count(k) > 0;
      if (!touches) continue;
      ++copies;
      if (!c.bytes.empty() && c.bytes.find_first_not_of("0123456789") == std::string::npos) bytes += std::stoll(c.bytes);
      else dynamic = true;
    }
    std::set<std::string> reasons;
    for (size_t i : indices)
      for (const auto& r : plan.nodes[i].declined) reasons.insert(r);
    std::vector<std::string> reason_list(reasons.begin(), reasons.end());
    Finding f;
    // Between providers that share host memory a fallback costs a partition
    // switch, no copy.
    f.severity = copies > 0 ? FindingSeverity::kWarning : FindingSeverity::kInfo;
    f.code = "unsupported-op";
    for (size_t i : indices) f.nodes.push_back(plan.nodes[i].node);
    std::ostringstream what;
    what << indices.size() << " " << op << " node(s) fall back to " << plan.nodes[indices.front()].provider << " ("
         << NameList(reason_list, 2) << "); they sit in " << partitions.size() << " of the " << plan.partitions.size()
         << " partitions and cost " << copies << " cop" << (copies == 1 ? "y" : "ies") << " (" << bytes << " bytes"
         << (dynamic ? " plus dynamic sizes" : "") << " per run)";
    f.what = what.str();
    f.why = "each boundary between providers is a partition switch and a copy between memory spaces on every run";
    bool opset_reason = false, shape_reason = false, no_kernel = false;
    for (const auto& r : reason_list) {
      no_kernel |= r.find("has no kernel") != std::string::npos;
      opset_reason |= r.find("opset") != std::string::npos;
      shape_reason |= r.find("shape") != std::string::npos || r.find("dynamic") != std::string::npos ||
                      r.find("static") != std::string::npos;
    }
    if (opset_reason) f.fix = "re-export at an opset " + preferred + " covers (see the opset finding for " + op + ")";
    else if (shape_reason) f.fix = "make the shapes static: re-export without dynamic_axes, or --free-dim NAME=SIZE";
    else if (no_kernel)
      f.fix = preferred + " has no kernel for " + op + " at all: keep it on " + plan.nodes[indices.front()].provider +
              " (the cost above), or express it in the source model with ops " + preferred + " takes";
    else
      f.fix = preferred + " has " + op + " but not for these operands (the reason above): keep it on " +
              plan.nodes[indices.front()].provider + ", or change the operands in the source model (element type, "
              "rank) to ones " + preferred + " takes";
    out->push_back(f);
  }
}

namespace {

// Every node of the graph and of the graphs nested in its attributes
// (Loop/If/Scan bodies), which the session compiles too.
void ForEachNode(const Graph& g, const std::function<void(const Node&)>& fn) {
  for (const Node& n : g.nodes) {
    fn(n);
    for (const auto& a : n.attributes) {
      if (a.g) ForEachNode(*a.g, fn);
      for (const auto& sub : a.graphs)
        if (sub) ForEachNode(*sub, fn);
    }
  }
}

}  // namespace

void CheckMissingKernels(const DoctorInput& in, std::vector<Finding>* out) {
  std::map<std::string, std::vector<std::string>> missing;  // domain:op -> nodes
  ForEachNode(*in.model->graph, [&](const Node& n) {
    for (const auto& p : in.providers)
      if (p->kernels().HasOp(n.domain, n.op_type)) return;
    missing[n.domain + ":" + n.op_type].push_back(n.name);
  });
  for (const auto& [op, nodes] : missing) {
    Finding f;
    f.severity = FindingSeverity::kError;
    f.code = "no-kernel";
    f.nodes = nodes;
    f.what = std::to_string(nodes.size()) + " " + op + " node(s): no requested provider has a kernel for " + op +
             " at any opset";
    f.why = "the model does not load with these providers";
    f.fix = "export the operation as standard ONNX ops (a custom or contrib op needs a runtime that implements it; "
            "tessera ops lists what Tessera has)";
    out->push_back(f);
  }
}

void CheckOpsets(const DoctorInput& in, std::vector<Finding>* out) {
  const Model& m = *in.model;
  // (provider, domain:op) -> the nodes outside that provider's range.
  struct Gap {
    std::string provider, domain, op;
    int64_t opset;
    Coverage cov;
    bool last_resort;  // the final provider: nothing else can run it
    std::vector<std::string> nodes;
  };
  std::map<std::string, Gap> gaps;
  ForEachNode(*m.graph, [&](const Node& n) {
    int64_t opset = m.OpsetFor(n.domain);
    for (size_t p = 0; p < in.providers.size(); ++p) {
      Coverage c = CoverageOf(*in.providers[p], n.domain, n.op_type, opset);
      if (!c.any || c.covers) continue;
      std::string key = in.providers[p]->name() + "|" + n.domain + "|" + n.op_type;
      auto it = gaps.find(key);
      if (it == gaps.end())
        it = gaps.emplace(key, Gap{in.providers[p]->name(), n.domain, n.op_type, opset, c, p + 1 == in.providers.size(), {}})
                 .first;
      it->second.nodes.push_back(n.name);
    }
  });
  for (const auto& [key, gap] : gaps) {
    Finding f;
    f.code = "opset-gap";
    f.nodes = gap.nodes;
    bool older = gap.opset < gap.cov.first;
    int64_t target = older ? gap.cov.first : gap.cov.last;
    f.severity = gap.last_resort ? FindingSeverity::kError : FindingSeverity::kWarning;
    std::string domain = gap.domain == kOnnxDomain ? "" : gap.domain + " ";
    f.what = std::to_string(gap.nodes.size()) + " " + gap.op + " node(s) at " + domain + "opset " +
             std::to_string(gap.opset) + ", " + (older ? "older than" : "newer than") + " the opsets " + gap.provider +
             "'s kernels cover for " + gap.op + " (" + RangeText(gap.cov) + ")";
    f.why = gap.last_resort ? gap.provider + " is the last provider: the model does not load"
                            : gap.provider + " refuses these nodes, so they fall back and split the graph";
    f.fix = "re-export with opset_version=" + std::to_string(target) + (older ? " or newer" : " or older") +
            " (torch.onnx.export(..., opset_version=" + std::to_string(target) + "))";
    out->push_back(f);
  }
}

void AddReexportAdvice(const DoctorInput& in, std::vector<Finding>* out) {
  (void)in;
  bool fold = false;
  int64_t opset = 0;
  std::vector<std::string> nodes;
  for (const auto& f : *out) {
    if (f.code == "constant-subgraph" || f.code == "constant-if") fold = true;
    if (f.code == "opset-gap") {
      size_t at = f.fix.find("opset_version=");
      opset = std::max<int64_t>(opset, std::stoll(f.fix.substr(at + 14)));
    }
  }
  if (!fold && opset == 0) return;
  Finding f;
  f.severity = FindingSeverity::kInfo;
  f.code = "re-export";
  std::string args;
  if (fold) args += "do_constant_folding=True";
  if (opset > 0) args += std::string(args.empty() ? "" : ", ") + "opset_version=" + std::to_string(opset);
  f.what = "the findings above are export settings";
  f.why = "fixing them in the export fixes them for every runtime, not just this one";
  f.fix = "re-export with torch.onnx.export(..., " + args + ")";
  out->push_back(f);
}

}  // namespace tessera::cli
