#include "tessera/tools/placement_plan.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <unordered_map>

#include "tessera/api/providers.h"

namespace tessera::cli {

std::string Plan::MemorySpace(const std::string& provider) const {
  for (const auto& p : session->providers())
    if (p->name() == provider) return p->memory_space();
  return "host";
}

Plan MakePlan(const std::string& path, const std::vector<std::string>& providers, const Args& args) {
  SessionOptions options;
  options.intra_op_num_threads = 1;
  ApplyCompileArgs(args, options);
  Plan plan;
  plan.session = Session::FromFile(path, options, MakeProviders(providers));
  plan.nodes = plan.session->Placement();
  // Placement names the nodes of the session's own (optimized) graph; node
  // names are unique there (the loader and the optimizer name every node).
  std::unordered_map<std::string, const Node*> by_name;
  for (const Node& n : plan.session->model().graph->nodes) by_name.emplace(n.name, &n);
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    auto it = by_name.find(plan.nodes[i].node);
    plan.graph_nodes.push_back(it == by_name.end() ? nullptr : it->second);
    size_t p = static_cast<size_t>(plan.nodes[i].partition);
    if (plan.partitions.size() <= p) plan.partitions.resize(p + 1);
    plan.partitions[p].push_back(i);
  }
  for (const auto& c : plan.session->Copies()) plan.copies.push_back({c.value, c.from, c.to, c.bytes});
  return plan;
}

std::string Verdict(const Plan& plan) {
  std::map<std::string, int> per;
  for (const auto& n : plan.nodes) per[n.provider]++;
  int64_t bytes = 0;
  bool symbolic = false;
  for (const auto& c : plan.copies) {
    if (!c.bytes.empty() && c.bytes.find_first_not_of("0123456789") == std::string::npos) bytes += std::stoll(c.bytes);
    else symbolic = true;
  }
  std::ostringstream os;
  bool first = true;
  for (const auto& [ep, n] : per) {
    os << (first ? "" : ", ") << ep << ": " << n << "/" << plan.nodes.size() << " nodes";
    first = false;
  }
  os << "; " << plan.partitions.size() << " partition(s), " << plan.copies.size() << " copies, ~"
     << static_cast<double>(bytes) / 1e6 << " MB per run" << (symbolic ? " plus symbolic sizes" : "");
  int64_t flops = 0, cpu_flops = 0;
  bool unknown = false;
  for (const auto& n : plan.nodes) {
    if (n.flops < 0) unknown = true;
    flops += std::max<int64_t>(0, n.flops);
    if (n.provider == "cpu") cpu_flops += std::max<int64_t>(0, n.flops);
  }
  if (per.size() > 1 && flops > 0)
    os << "; cpu runs " << static_cast<int>(100.0 * static_cast<double>(cpu_flops) / static_cast<double>(flops) + 0.5)
       << "% of ~" << static_cast<double>(flops) / 1e9 << " GFLOP" << (unknown ? " (some shapes dynamic)" : "");
  return os.str();
}

}  // namespace tessera::cli
