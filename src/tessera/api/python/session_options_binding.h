// The session options table (api/session_option_table.h) seen from Python:
// _tessera.session_option_rows() describes every row, from which
// python/tessera/__init__.py declares SessionOptions' attributes, and a
// session applies the {name: value} dict those attributes hold.
#pragma once

#include <pybind11/pybind11.h>

#include "tessera/runtime/session_options.h"

namespace tessera {

void BindSessionOptionRows(pybind11::module_& m);

// Applies each {row name: Python value}; a name no row has, or a value of
// another type than its row's, is InvalidArgument.
void ApplyPythonSessionOptions(SessionOptions& options, const pybind11::dict& values);

}  // namespace tessera
