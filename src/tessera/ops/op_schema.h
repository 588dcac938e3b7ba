// What an op is, whichever provider runs it: the rule that types its
// outputs and the traits that passes and planners ask about. One entry per
// (domain, op, opset range), in the infer_<family>.cc tables; the kernels
// that run an op are declared apart, in each provider's kernel table.
//
// Shape inference, the flop estimate, constant folding and common
// subexpression elimination read these entries and keep no op lists of
// their own. Whether a kernel may write into its input's buffer is the
// kernel row's business (KernelRow::in_place_inputs), not the op's.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tessera/ops/shape_inference.h"

namespace tessera {

namespace op_trait {
inline constexpr uint32_t kShapePreserving = 1u << 0;   // output 0 has input 0's type and shape
inline constexpr uint32_t kDataMovement = 1u << 1;      // moves, views or describes data: no arithmetic
inline constexpr uint32_t kMayGrow = 1u << 2;           // output may be far larger than every input
inline constexpr uint32_t kNondeterministic = 1u << 3;  // samples random numbers
inline constexpr uint32_t kTakesNoInputs = 1u << 4;     // typed from attributes alone (Constant)
}  // namespace op_trait

// Output types from the input types and constants, kUnknown where they
// follow only from data. A rule never rejects a node: kernels do.
using OutputTypeRule = std::vector<TypeInfo> (*)(const InferenceInput& in);

struct OpSchema {
  std::string_view domain;
  std::string_view op_type;
  int64_t first_opset;  // model opsets [first_opset, last_opset] use this entry
  int64_t last_opset;
  OutputTypeRule infer;  // nullptr: outputs are typed by the kernel when it runs
  uint32_t traits = 0;

  bool Has(uint32_t trait) const { return (traits & trait) != 0; }
};

// The entry for (domain, op) at the model's opset for the domain (the
// newest entry when the opset is unknown, i.e. below 1); nullptr when
// Tessera does not know that op at that opset.
const OpSchema* FindOpSchema(std::string_view domain, std::string_view op_type, int64_t opset);

// The newest entry's traits include `trait`; false for unknown ops.
bool OpHasTrait(std::string_view domain, std::string_view op_type, uint32_t trait);
inline bool OpHasTrait(const Node& node, uint32_t trait) { return OpHasTrait(node.domain, node.op_type, trait); }

// Every entry, grouped by (domain, op) and ordered by opset. Overlapping
// ranges of one op are a programming error, reported when first read.
const std::vector<OpSchema>& AllOpSchemas();

}  // namespace tessera
