// Copy insertion: wherever a value crosses memory spaces (a provider whose
// memory_space() is not "host"), a copy step is added, one per value per
// destination and shared by every consumer there; between two devices the
// copy goes through the host. Constants are uploaded once, at compile time,
// instead of being copied on every run.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tessera/ops/shape_inference.h"
#include "tessera/partition/execution_provider.h"
#include "tessera/partition/placed_step.h"

namespace tessera {

inline constexpr const char* kHostSpace = "host";

// What copy insertion adds to a compiled graph, owned by the graph.
struct CopySinks {
  std::vector<PlacedStep>& steps;                            // copy steps, in order
  std::vector<std::pair<int, Tensor>>& initializer_slots;    // uploaded constants
  std::deque<Node>& synthetic_nodes;                         // the copy steps' nodes (stable addresses)
  std::vector<MemoryCopy>& copies;                           // per-run copies
  std::vector<MemoryCopy>& uploads;                          // one-time uploads
};

class CopyInserter {
 public:
  // slot_of gives a value's frame slot, making one on first use.
  CopyInserter(const Graph& graph, const ProviderList& providers, const GraphTypes& types,
               std::function<int(const std::string&)> slot_of, CopySinks sinks);

  // The name of `value` in memory space `to`, adding the copy steps the
  // first time it is needed there; to_provider is the provider reading it.
  std::string Place(const std::string& value, const std::string& to, size_t to_provider);

  // Where a value lives; graph inputs, initializers and outer values are on
  // the host.
  std::string SpaceOf(const std::string& value) const;
  // Records that a node output stays in a device's memory.
  void SetSpace(const std::string& value, const std::string& space) { space_of_[value] = space; }

 private:
  bool IsConstant(const std::string& value) const;
  std::string Upload(const std::string& value, const std::string& to, size_t to_provider);
  std::string AddCopyStep(const std::string& value, const std::string& from, const std::string& to,
                          size_t to_provider);

  const Graph& graph_;
  const ProviderList& providers_;
  const GraphTypes& types_;
  std::function<int(const std::string&)> slot_of_;
  CopySinks sinks_;
  std::unordered_map<std::string, std::string> space_of_;
  std::map<std::pair<std::string, std::string>, std::string> copied_;  // (value, space) -> its copy's name
};

}  // namespace tessera
