// Which initializers the nodes of a graph still need while its kernels are
// created. A kernel that copied a constant input into its own layout (a
// packed GEMM weight: OpKernel::ReadsInput false) no longer needs it, and
// an initializer that no node needs any more is released at once. Released
// only at the end, every weight and its packed copy were held together:
// bert_base's peak RSS went from 448 to 761 MB.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tessera/ir/graph.h"
#include "tessera/ops/kernel.h"

namespace tessera {

class InitializerReaders {
 public:
  // Counts the nodes of `graph` reading each initializer. Graph inputs and
  // outputs, and the values subgraphs read, stay needed throughout.
  explicit InitializerReaders(const Graph& graph);

  // `node`'s kernel now exists (null: it runs inside a partition compiled
  // later, and keeps what it reads). Returns the initializers no node needs
  // from now on.
  std::vector<std::string> KernelCreated(const Node& node, const OpKernel* kernel);

 private:
  std::unordered_map<std::string, int> pending_;  // initializer -> nodes whose kernels are still to come
  std::unordered_set<std::string> kept_;          // read at run time, or from outside the nodes
};

}  // namespace tessera
