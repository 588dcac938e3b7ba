#pragma once

#include <string>
#include <vector>

#include "tessera/base/logging.h"
#include "tessera/format/model_loader.h"
#include "tessera/optimizer/optimization_level.h"
#include "tessera/runtime/model_overrides.h"

namespace tessera {

struct SessionOptions {
  Severity log_severity_level = Severity::kWarning;
  std::string log_id = "tessera";
  // Threads for kernels: 0 = one per core. Every library a kernel calls
  // uses this pool too (OpenBLAS runs single-threaded and GEMMs split over
  // the pool), so this is the session's whole compute thread count.
  int intra_op_num_threads = 0;
  // Nodes of independent branches that may run at once (each then shares the
  // intra-op pool): 0 = as many as useful, 1 = one node at a time. Must be
  // >= 0. The executor runs nodes one at a time today, whatever the value.
  int inter_op_num_threads = 1;
  LoadLimits load_limits;
  // Symbolic input dimensions fixed at session creation, by dim_param or
  // by denotation (docs/python.md; model_overrides.h has the rules).
  std::vector<FreeDimensionOverride> free_dimension_overrides;
  // Initializers replaced by tensors the caller supplies (they may borrow
  // the caller's memory, which must then outlive the session).
  std::vector<InitializerOverride> initializer_overrides;
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
  // When set (a file name), the optimized model's initializers of at least
  // optimized_model_external_min_bytes go to that file next to it, as
  // external data (ORT's optimized_model_external_initializers_* entries).
  std::string optimized_model_external_file;
  size_t optimized_model_external_min_bytes = 1024;
  // 3x3 stride-1 convolutions on the oneDNN EP may use Winograd's algorithm
  // when oneDNN has a kernel for it on this machine (AVX-512): fewer
  // multiplies, other rounding. On the bench models the error against
  // PyTorch stays the direct method's order (docs/performance.md). Off:
  // direct convolution only.
  bool winograd_convolutions = true;
  // The highest instruction-set level kernels may use: "avx512", "avx2",
  // "sse4" or "scalar" (aarch64: "sve", "neon", "scalar"); empty = the
  // TESSERA_MAX_ISA environment variable, else the machine's best. The cap
  // is process-wide (docs/simd.md): a session asking for another cap than
  // the one in force fails, and so does a level the machine cannot run.
  std::string max_isa;
  // Memory planner (docs/memory.md): the tensors a run allocates come from
  // a per-run arena whose blocks are reused as values die, and elementwise
  // nodes may write into a dying input. Off: every tensor from the heap.
  bool enable_memory_arena = true;
  // Idle arenas kept (>= 1), each holding the blocks of one set of input
  // shapes; concurrent runs each use their own.
  int memory_pattern_cache = 2;
  // Checks the graph's structure after every optimizer pass (a failure names
  // the pass). On in debug builds; the conformance runner turns it on.
#ifdef NDEBUG
  bool validate_optimizer_passes = false;
#else
  bool validate_optimizer_passes = true;
#endif
};

}  // namespace tessera
