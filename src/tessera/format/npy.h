// NumPy .npy files (format version 1.0-3.0) <-> tensors.
#pragma once

#include <string>

#include "tessera/ir/tensor.h"

namespace tessera {

Tensor LoadNpyFile(const std::string& path);
Tensor ParseNpy(const std::string& bytes, const std::string& what = "npy data");
std::string SerializeNpy(const Tensor& tensor);

}  // namespace tessera
