// `tessera doctor`: an export lint. Each check reads the model as exported
// (and, where a session can be made, how the requested providers place it)
// and reports what will not deploy well, with the export change that fixes it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/ir/graph.h"
#include "tessera/partition/execution_provider.h"
#include "tessera/tools/placement_plan.h"

namespace tessera::cli {

enum class FindingSeverity { kInfo = 0, kWarning = 1, kError = 2 };
const char* SeverityName(FindingSeverity s);
FindingSeverity ParseSeverity(const std::string& s);

struct Finding {
  FindingSeverity severity = FindingSeverity::kInfo;
  std::string code;                // "constant-subgraph", "dynamic-dims", ...
  std::vector<std::string> nodes;  // node names (or input names for dims)
  std::string what;                // what was found, with counts
  std::string why;                 // why it matters for deployment
  std::string fix;                 // the change to the export that fixes it
};

struct DoctorInput {
  const Model* model = nullptr;        // as exported (not optimized)
  std::vector<std::string> provider_names;
  ProviderList providers;              // the requested providers, for capability questions
  const Plan* plan = nullptr;          // placement as given; null when no session could be made
  const Plan* static_plan = nullptr;   // placement with every named dim fixed; null when not made
  std::vector<FreeDimensionOverride> free_dims;  // --free-dim values given
  bool want_static = false;            // --static: the target needs static shapes
};

// Graph checks (doctor_graph.cc): foldable constants and shape computations,
// value-dependent control flow, dynamic dimensions.
void CheckConstants(const DoctorInput& in, std::vector<Finding>* out);
void CheckControlFlow(const DoctorInput& in, std::vector<Finding>* out);
void CheckDynamicDims(const DoctorInput& in, std::vector<Finding>* out);
// Provider checks (doctor_providers.cc): ops the providers will not take,
// opsets their kernels do not cover, and the re-export summary.
void CheckUnsupportedOps(const DoctorInput& in, std::vector<Finding>* out);
void CheckOpsets(const DoctorInput& in, std::vector<Finding>* out);
// Ops no requested provider has a kernel for, at any opset.
void CheckMissingKernels(const DoctorInput& in, std::vector<Finding>* out);
void AddReexportAdvice(const DoctorInput& in, std::vector<Finding>* out);

// "a, b, c and 4 more".
std::string NameList(const std::vector<std::string>& names, size_t limit = 5);
// "Conv x3, Relu x2", most frequent first.
std::string OpHistogram(const std::vector<const Node*>& nodes, size_t limit = 6);

}  // namespace tessera::cli
