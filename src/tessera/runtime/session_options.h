#pragma once

#include <string>
#include <vector>

#include "tessera/base/logging.h"
#include "tessera/format/model_loader.h"
#include "tessera/optimizer/optimization_level.h"

namespace tessera {

struct SessionOptions {
  Severity log_severity_level = Severity::kWarning;
  std::string log_id = "tessera";
  // Threads for kernels: 0 = one per core.
  int intra_op_num_threads = 0;
  LoadLimits load_limits;
  // Session creation fails, listing every such node and why each provider
  // declined it, when a node would fall back to the CPU provider while other
  // providers come before it.
  bool disable_cpu_fallback = false;
  // Fallback policy: when more than this share of nodes falls back to the
  // CPU provider, or the graph splits into more than max_partitions runs of
  // one provider (0 = no limit), warn, or fail when fallback_policy_fail.
  double max_cpu_fallback_share = 1.0;
  // The same for the share of estimated FLOPs (multiply-adds of Conv, MatMul
  // and Gemm from static shapes; other nodes count one per output element).
  double max_cpu_fallback_flops_share = 1.0;
  int max_partitions = 0;
  bool fallback_policy_fail = false;
  // Chrome-trace profiling: session phases and one event per executed node.
  bool enable_profiling = false;
  std::string profile_file_prefix = "tessera_profile";
  // Graph optimizer (docs/optimizer.md): every pass of each level up to
  // this one rewrites the session's copy of the graph before it is compiled.
  OptimizationLevel graph_optimization_level = OptimizationLevel::kAll;
  // Pass names not to run ("ConstantFolding"...); an unknown name fails
  // session creation with the list of valid names.
  std::vector<std::string> disabled_optimizers;
  // When set, the optimized model is written there (ONNX; fused nodes in the
  // ai.tessera domain) and can be loaded and run like any other model.
  std::string optimized_model_filepath;
  // Checks the graph's structure after every optimizer pass (a failure names
  // the pass). On in debug builds; the conformance runner turns it on.
#ifdef NDEBUG
  bool validate_optimizer_passes = false;
#else
  bool validate_optimizer_passes = true;
#endif
};

}  // namespace tessera
