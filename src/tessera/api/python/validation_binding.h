// _tessera.OutputVerdict: tessera.validate()'s comparison, the one
// `tessera validate` uses (ir/output_verdict.h).
#pragma once

#include <pybind11/pybind11.h>

namespace tessera {

void BindValidation(pybind11::module_& m);

}  // namespace tessera
