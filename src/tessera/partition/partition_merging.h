// Partition merging: on providers that compile partitions (oneDNN), each
// run of consecutive node steps becomes one step whose kernel is the
// provider's compiled partition; copies into the provider's memory inside
// the run move ahead of it. Also the numbering of partitions: the runs of
// consecutive node steps on one provider, as placement reports and profiles
// show them.
#pragma once

#include <deque>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "tessera/ops/shape_inference.h"
#include "tessera/partition/execution_provider.h"
#include "tessera/partition/placed_step.h"

namespace tessera {

struct PartitionMergeInputs {
  const Model& model;
  const ProviderList& providers;
  const GraphTypes& types;
  const std::string& graph_name;
  int num_threads = 1;   // PartitionDef::num_threads
  bool winograd = true;  // PartitionDef::winograd
  std::vector<std::string> slot_names;  // slot -> value name
  std::vector<int> output_slots;        // the graph's outputs
};

// Called after each merged partition with every step that may still read
// an initializer, so the weights a partition copied into its own layout are
// freed at once rather than after the last partition.
using ReleaseUnreadFn = std::function<void(std::initializer_list<std::span<const PlacedStep>>)>;

// Replaces the runs in `steps`; the partitions' synthetic nodes go to
// `synthetic_nodes` (stable addresses).
void MergeCompiledPartitions(const PartitionMergeInputs& in, std::vector<PlacedStep>& steps,
                             std::deque<Node>& synthetic_nodes, const ReleaseUnreadFn& release_unread);

// Sets PlacedStep::partition of every node step.
void NumberPartitions(std::vector<PlacedStep>& steps);

}  // namespace tessera
