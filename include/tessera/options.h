// How a session is created: providers, threads, optimization, logging.
// Every field has a working default; SessionOptions{} runs any model on the
// default providers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::v1 {

enum class LogLevel { kVerbose = 0, kInfo = 1, kWarning = 2, kError = 3, kFatal = 4 };

// Graph optimizer levels (docs/optimizer.md): a session runs every pass of
// each level up to the one chosen.
enum class OptimizationLevel { kDisabled = 0, kBasic = 1, kExtended = 2, kLayout = 3, kAll = 4 };

// A symbolic input dimension fixed when the session is created:
// {"batch", 4} makes every dimension named "batch" 4.
struct DimensionOverride {
  std::string name;
  int64_t value = 0;
};

struct SessionOptions {
  // Providers in priority order ("dnnl", "cpu"...); empty = DefaultProviders().
  // "cpu" is appended when missing so every node has somewhere to run.
  std::vector<std::string> providers;
  // Kernel threads: 0 = one per core.
  int intra_op_threads = 0;
  OptimizationLevel optimization_level = OptimizationLevel::kAll;
  LogLevel log_level = LogLevel::kWarning;
  std::string log_id = "tessera";
  std::vector<DimensionOverride> dimension_overrides;
  // Fail session creation, naming the nodes, when a node would fall back
  // to the CPU provider while other providers were asked for first.
  bool disable_cpu_fallback = false;
  // Per-run arenas for intermediate tensors (docs/memory.md).
  bool enable_memory_arena = true;
  // Chrome-trace profiling; Session::EndProfiling writes the file.
  bool enable_profiling = false;
  std::string profile_file_prefix = "tessera_profile";
  // When set, the optimized model is written there as ONNX.
  std::string optimized_model_path;
};

}  // namespace tessera::v1
