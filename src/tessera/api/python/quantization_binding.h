// _tessera.quantize: the native side of tessera.quantization.
#pragma once

#include <pybind11/pybind11.h>

#include <functional>
#include <string>

#include "tessera/ir/tensor.h"

namespace tessera {

// to_tensor converts one numpy array (as session feeds are converted).
void BindQuantization(pybind11::module_& m, std::function<Tensor(pybind11::object, const std::string&)> to_tensor);

}  // namespace tessera
