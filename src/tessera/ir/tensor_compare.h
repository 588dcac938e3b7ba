// Numerical comparison of runtime values, with the ONNX backend-test rules:
// |actual - expected| <= atol + rtol * |expected|, NaN matches NaN, infinities
// must match exactly, integers / bools / strings exactly, dtype and shape too.
#pragma once

#include <string>

#include "tessera/ir/value.h"

namespace tessera {

struct CompareResult {
  bool match = true;
  double max_abs_error = 0;
  double max_rel_error = 0;
  int64_t mismatches = 0;
  std::string message;  // first problem, human readable
};

CompareResult CompareValues(const Value& actual, const Value& expected, double rtol = 1e-3, double atol = 1e-7);
CompareResult CompareTensors(const Tensor& actual, const Tensor& expected, double rtol = 1e-3, double atol = 1e-7);

// Elements of a value: a tensor's, summed over a sequence's items; 1 else.
int64_t ElementCount(const Value& v);
// Elements of `expected` the comparison found wrong: a failure that names no
// element (dtype, shape, structure) counts every one.
int64_t MismatchedElements(const CompareResult& r, const Value& expected);

// Element i as double for any float kind (float8, float4 and e8m0 included).
double ElementAsDouble(const Tensor& t, int64_t i);

}  // namespace tessera
