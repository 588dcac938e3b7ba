// What a session changes in its own copy of the model, at the user's request,
// before optimizing it: fixed sizes for symbolic input dimensions (ORT's
// free-dimension overrides) and initializers supplied from memory (ORT's
// AddInitializer / AddExternalInitializers). Fixing a batch size at session
// creation is what lets shape-dependent passes and static-shape providers
// take a model exported with dynamic axes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/base/logging.h"
#include "tessera/ir/graph.h"
#include "tessera/ir/tensor.h"

namespace tessera {

struct FreeDimensionOverride {
  enum class Match { kName, kDenotation };
  Match match = Match::kName;
  std::string key;  // the dim_param ("batch") or the denotation ("DATA_BATCH")
  int64_t value = 0;
};

struct InitializerOverride {
  std::string name;
  Tensor tensor;  // may borrow the caller's memory; the session keeps it alive
};

// Every graph input dimension whose symbol (kName) or denotation
// (kDenotation) matches gets the value; by name, the same symbol in the
// graph's outputs and value_info too, so all of them stay one dimension.
// Throws kInvalidArgument, naming the model and input, for a negative value,
// for a matched dimension already fixed at another size, and for two
// overrides of one key with different values. An override that matches
// nothing is logged as a warning and ignored, as ORT ignores it.
void ApplyFreeDimensionOverrides(Graph& graph, const std::vector<FreeDimensionOverride>& overrides,
                                 const std::string& model_name, const Logger& logger);

// Replaces initializers of the main graph. Throws kInvalidArgument, naming
// the model and initializer, when the name is no initializer of the graph or
// the tensor's element type or shape differs from the one it replaces.
void ApplyInitializerOverrides(Graph& graph, const std::vector<InitializerOverride>& overrides,
                               const std::string& model_name);

}  // namespace tessera
