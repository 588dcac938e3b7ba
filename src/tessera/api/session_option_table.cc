#include "tessera/api/session_option_table.h"

#include "tessera/base/status.h"
#include "tessera/optimizer/optimization_level.h"

namespace tessera {

namespace {

using Kind = SessionOptionRow::Kind;

int Int(const SessionOptionValue& v) { return static_cast<int>(v.number); }

}  // namespace

const std::vector<SessionOptionRow>& SessionOptionRows() {
  static const std::vector<SessionOptionRow> rows = {
      {"log_severity_level", Kind::kInt, "", {-1, ""},
       "Log severity: 0 verbose, 1 info, 2 warning, 3 error, 4 fatal; -1 = the default logger severity "
       "(set_default_logger_severity).",
       [](SessionOptions& o, const SessionOptionValue& v) {
         // -1 keeps what the session was given as the default severity.
         if (v.number == -1) return;
         if (v.number < 0 || v.number > 4)
           TS_THROW(kInvalidArgument, "log_severity_level must be 0..4, got ", v.number);
         o.log_severity_level = static_cast<Severity>(v.number);
       }},
      {"log_verbosity_level", Kind::kInt, "", {0, ""}, "Stored only: Tessera has no verbose-log levels.", nullptr},
      {"logid", Kind::kString, "", {0, ""}, "The log id that tags the session's log lines (\"\" = \"tessera\").",
       [](SessionOptions& o, const SessionOptionValue& v) {
         if (!v.text.empty()) o.log_id = v.text;
       }},
      {"enable_profiling", Kind::kBool, "", {0, ""},
       "Records a Chrome trace (session phases, one event per node); end_profiling() writes it.",
       [](SessionOptions& o, const SessionOptionValue& v) { o.enable_profiling = v.number != 0; }},
      {"profile_file_prefix", Kind::kString, "", {0, "tessera_profile"},
       "Where end_profiling() writes the trace: <prefix>_<timestamp>.json.",
       [](SessionOptions& o, const SessionOptionValue& v) { o.profile_file_prefix = v.text; }},
      {"graph_optimization_level", Kind::kEnum, "GraphOptimizationLevel", {99, ""},
       "How far the graph optimizer rewrites the model (docs/optimizer.md).",
       [](SessionOptions& o, const SessionOptionValue& v) {
         o.graph_optimization_level = ParseOptimizationLevel(std::to_string(v.number));
       }},
      {"intra_op_num_threads", Kind::kInt, "", {0, ""}, "Threads for kernels, >= 0 (0 = one per core).",
       [](SessionOptions& o, const SessionOptionValue& v) { o.intra_op_num_threads = Int(v); }},
      {"inter_op_num_threads", Kind::kInt, "", {0, ""},
       "Nodes of independent branches that may run at once, >= 0; nodes run one at a time today.",
       [](SessionOptions& o, const SessionOptionValue& v) { o.inter_op_num_threads = Int(v); }},
      {"execution_mode", Kind::kEnum, "ExecutionMode", {0, ""},
       "Stored only: nodes run in order, parallelism is inside kernels.", nullptr},
      {"execution_order", Kind::kEnum, "ExecutionOrder", {0, ""},
       "Stored only: Tessera always uses a topological order.", nullptr},
      {"optimized_model_filepath", Kind::kString, "", {0, ""},
       "When set, the optimized model is written there at session creation.",
       [](SessionOptions& o, const SessionOptionValue& v) { o.optimized_model_filepath = v.text; }},
      {"enable_cpu_mem_arena", Kind::kBool, "", {1, ""},
       "Run tensors come from a per-run arena reused as values die (docs/memory.md); off: from the heap.",
       [](SessionOptions& o, const SessionOptionValue& v) { o.enable_memory_arena = v.number != 0; }},
      {"enable_mem_pattern", Kind::kBool, "", {1, ""}, "Stored only (the arena plans memory either way).", nullptr},
      {"enable_mem_reuse", Kind::kBool, "", {1, ""}, "Stored only (the arena reuses memory either way).", nullptr},
      {"use_deterministic_compute", Kind::kBool, "", {0, ""},
       "Stored only.", nullptr},
  };
  return rows;
}

const SessionOptionRow* FindSessionOptionRow(std::string_view name) {
  for (const auto& row : SessionOptionRows())
    if (name == row.name) return &row;
  return nullptr;
}

void ApplySessionOption(SessionOptions& options, std::string_view name, const SessionOptionValue& value) {
  const SessionOptionRow* row = FindSessionOptionRow(name);
  if (!row) TS_THROW(kInvalidArgument, "'", std::string(name), "' is not a session option");
  if (row->apply) row->apply(options, value);
}

const char* SessionOptionKindName(SessionOptionRow::Kind kind) {
  switch (kind) {
    case Kind::kInt: return "int";
    case Kind::kBool: return "bool";
    case Kind::kString: return "str";
    case Kind::kEnum: return "enum";
  }
  return "int";
}

}  // namespace tessera
