#pragma once

#include <string>

#include "tessera/base/logging.h"
#include "tessera/format/model_loader.h"

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
  int max_partitions = 0;
  bool fallback_policy_fail = false;
  // Chrome-trace profiling: session phases and one event per executed node.
  bool enable_profiling = false;
  std::string profile_file_prefix = "tessera_profile";
};

}  // namespace tessera
