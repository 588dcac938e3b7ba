// _tessera.OrtValue: one runtime value held from Python (onnxruntime's
// C-level OrtValue), made from numpy (sharing its memory), from a shape and
// element type, or from a raw pointer the caller owns (IOBinding).
#pragma once

#include <pybind11/pybind11.h>

namespace tessera {

void BindOrtValue(pybind11::module_& m);

}  // namespace tessera
