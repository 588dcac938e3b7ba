#include "tessera/partition/partition_merging.h"

#include <unordered_set>

namespace tessera {

void MergeCompiledPartitions(const PartitionMergeInputs& in, std::vector<PlacedStep>& steps,
                             std::deque<Node>& synthetic_nodes, const ReleaseUnreadFn& release_unread) {
  const ProviderList& providers = in.providers;
  bool any = false;
  for (const auto& p : providers) any = any || p->CompilesPartitions();
  if (!any) return;
  const std::vector<std::string>& slot_names = in.slot_names;
  std::unordered_set<int> graph_outputs(in.output_slots.begin(), in.output_slots.end());
  std::vector<PlacedStep> merged;
  int partition_count = 0;
  for (size_t i = 0; i < steps.size();) {
    const size_t p = steps[i].provider;
    if (steps[i].is_copy || !providers[p]->CompilesPartitions()) {
      merged.push_back(std::move(steps[i++]));
      continue;
    }
    // Gather the run: member nodes of provider p, and copies into p's memory
    // (their sources come from before the run, so they move ahead of it).
    std::vector<PlacedStep> members, hoisted;
    std::unordered_set<int> produced;
    size_t j = i;
    for (; j < steps.size(); ++j) {
      PlacedStep& s = steps[j];
      if (!s.is_copy && s.provider == p) {
        for (int o : s.outputs)
          if (o >= 0) produced.insert(o);
        members.push_back(std::move(s));
        continue;
      }
      bool copy_in = s.is_copy && s.provider == p && s.node->op_type == "CopyFromHost" && !produced.count(s.inputs[0]);
      if (!copy_in) break;
      hoisted.push_back(std::move(s));
    }
    // Values read after the run (or returned) are the partition's outputs.
    std::unordered_set<int> read_later(graph_outputs);
    for (size_t k = j; k < steps.size(); ++k) {
      read_later.insert(steps[k].inputs.begin(), steps[k].inputs.end());
      read_later.insert(steps[k].implicit.begin(), steps[k].implicit.end());
    }
    PlacedStep group;
    group.provider = p;
    PartitionDef def;
    def.model = &in.model;
    def.types = &in.types;
    def.num_threads = in.num_threads;
    def.winograd = in.winograd;
    // Inputs are named as the member nodes read them (a copy's slot holds
    // the value the node knows under its own name).
    std::unordered_set<int> seen;
    for (auto& m : members) {
      for (size_t k = 0; k < m.inputs.size(); ++k) {
        int s = m.inputs[k];
        if (s < 0 || produced.count(s) || !seen.insert(s).second) continue;
        group.inputs.push_back(s);
        def.inputs.push_back(m.node->inputs[k]);
      }
      for (int s : m.implicit) {
        if (produced.count(s) || !seen.insert(s).second) continue;
        group.inputs.push_back(s);
        def.inputs.push_back(slot_names[static_cast<size_t>(s)]);
      }
      for (int s : m.outputs)
        if (s >= 0 && read_later.count(s)) group.outputs.push_back(s);
      def.nodes.push_back(m.node);
      group.members.push_back({m.node, std::move(m.declined)});
    }
    for (int s : group.outputs) def.outputs.push_back(slot_names[static_cast<size_t>(s)]);
    Node& node = synthetic_nodes.emplace_back();
    node.name = providers[p]->name() + " partition " + std::to_string(partition_count++) + " (" + in.graph_name + ")";
    node.op_type = "CompiledPartition";
    node.domain = kTesseraDomain;
    node.inputs = def.inputs;
    node.outputs = def.outputs;
    group.node = &node;
    group.kernel = providers[p]->CompilePartition(def);
    if (!group.kernel)
      TS_THROW(kInternal, "provider '", providers[p]->name(), "' did not compile its partition of ", def.nodes.size(),
               " node(s) starting at ", def.nodes.front()->Label());
    for (auto& h : hoisted) merged.push_back(std::move(h));
    merged.push_back(std::move(group));
    i = j;
    // Free the weights this partition copied into its own layout now, not
    // after the last one: otherwise every weight is briefly held twice.
    // (steps before j were moved into `merged`.)
    release_unread({merged, std::span<const PlacedStep>(steps).subspan(j)});
  }
  steps = std::move(merged);
}

void NumberPartitions(std::vector<PlacedStep>& steps) {
  int current = -1;
  size_t provider = 0;
  for (auto& step : steps) {
    if (step.is_copy) continue;
    if (current < 0 || step.provider != provider) ++current;
    provider = step.provider;
    step.partition = current;
  }
}

}  // namespace tessera
