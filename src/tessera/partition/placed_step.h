// One step of a compiled graph's execution order, as node assignment, copy
// insertion and partition merging build it and the runtime executes it: a
// node's kernel, a copy between memory spaces, or a compiled partition, with
// the frame slots it reads and writes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/ir/graph.h"
#include "tessera/ops/kernel.h"

namespace tessera {

// A node a compiled partition took, and the providers that declined it.
struct PartitionMember {
  const Node* node;
  std::vector<std::string> declined;
};

struct PlacedStep {
  const Node* node = nullptr;  // for a compiled partition, its synthetic node
  std::unique_ptr<OpKernel> kernel;
  size_t provider = 0;
  std::vector<int> inputs;    // -1 = omitted
  std::vector<int> outputs;   // -1 = omitted
  std::vector<int> implicit;  // slots the node's subgraphs read
  std::vector<int> release;   // slots whose last reader is this step
  // Input slots dying here whose buffer the (elementwise) kernel may
  // write its output into, chosen among the inputs its kernel row allows
  // (KernelRow::in_place_inputs, copied here).
  std::vector<int> donors;
  uint32_t in_place_inputs = 0;
  bool is_copy = false;
  std::vector<std::string> declined;
  std::vector<PartitionMember> members;  // the nodes of a compiled partition
  int partition = -1;                    // node steps: the run of one provider they belong to
  int64_t flops = -1;                    // estimated per run (ops/flop_estimate.h); -1 = unknown or a copy
};

// A transfer inserted between memory spaces.
struct MemoryCopy {
  std::string value;  // the graph value copied
  std::string from;   // memory space
  std::string to;
  // Bytes per run: a number when the value's shape is static, a product of
  // symbolic dims ("batch*seq*4") otherwise, "?" when unknown.
  std::string bytes;
};

}  // namespace tessera
