// Where each node of a model runs, as a session would place it: the shared
// input of `tessera partition` (text, JSON, HTML map, Netron annotations) and
// `tessera doctor`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tessera/runtime/session.h"
#include "tessera/tools/cli.h"

namespace tessera::cli {

struct Plan {
  std::unique_ptr<Session> session;       // owns the placed (optimized) graph
  std::vector<NodePlacement> nodes;       // execution order
  std::vector<const Node*> graph_nodes;   // the same nodes in session->model().graph
  std::vector<std::vector<size_t>> partitions;  // node indices, runs of one provider
  struct CopyRow {
    std::string value, from, to, bytes;  // bytes: a number, or an expression of symbolic dims
  };
  std::vector<CopyRow> copies;
  // The memory space of each provider by name ("host" for the CPU).
  std::string MemorySpace(const std::string& provider) const;
};

// Creates a session (one thread, the compile options in args) and reads
// its placement. Throws what the session throws.
Plan MakePlan(const std::string& path, const std::vector<std::string>& providers, const Args& args);
// The one-line summary the text report ends with.
std::string Verdict(const Plan& plan);

}  // namespace tessera::cli
