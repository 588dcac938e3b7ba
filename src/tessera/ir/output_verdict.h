// The verdict on one model output over the reference sets of a validation
// (`tessera validate` and tessera.validate() in Python share it, so both
// count, measure and word a mismatch the same way).
#pragma once

#include <cstdint>
#include <string>

#include "tessera/ir/value.h"

namespace tessera {

struct OutputVerdict {
  std::string name;
  bool checked = false;  // some reference set had an expected value for it
  int64_t elements = 0;
  int64_t mismatched = 0;
  double max_abs_error = 0;
  double max_rel_error = 0;
  bool passed = true;
  std::string message;  // the first mismatch, prefixed by its set's label

  // Compares one reference set's value with CompareValues (tensor_compare.h)
  // and folds the result in. A dtype, shape or structure problem counts
  // every expected element as mismatched. `label` (may be empty) names the
  // set in the message.
  void Add(const Value& actual, const Value& expected, double rtol, double atol, const std::string& label);

  // mismatched / elements; 1 when a failed output had no elements.
  double mismatch_fraction() const;
};

}  // namespace tessera
