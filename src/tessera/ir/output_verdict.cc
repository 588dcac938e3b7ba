#include "tessera/ir/output_verdict.h"

#include <algorithm>

#include "tessera/ir/tensor_compare.h"

namespace tessera {

void OutputVerdict::Add(const Value& actual, const Value& expected, double rtol, double atol,
                        const std::string& label) {
  CompareResult c = CompareValues(actual, expected, rtol, atol);
  checked = true;
  elements += ElementCount(expected);
  max_abs_error = std::max(max_abs_error, c.max_abs_error);
  max_rel_error = std::max(max_rel_error, c.max_rel_error);
  mismatched += MismatchedElements(c, expected);
  if (!c.match && passed) {
    passed = false;
    message = (label.empty() ? std::string() : label + ": ") + c.message;
  }
}

double OutputVerdict::mismatch_fraction() const {
  return elements ? static_cast<double>(mismatched) / static_cast<double>(elements) : (passed ? 0.0 : 1.0);
}

}  // namespace tessera
