// _tessera.Session and _tessera.SessionConfig: a loaded model and its
// session, run from Python with numpy feeds or OrtValues (bound outputs
// included, for IOBinding).
#pragma once

#include <pybind11/pybind11.h>

namespace tessera {

void BindSession(pybind11::module_& m);

}  // namespace tessera
