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
  // Chrome-trace profiling: session phases and one event per executed node.
  bool enable_profiling = false;
  std::string profile_file_prefix = "tessera_profile";
};

}  // namespace tessera
