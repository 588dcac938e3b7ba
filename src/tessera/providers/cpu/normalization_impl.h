// The LayerNormalization / RMSNormalization kernel, shared with the
// opset-independent ai.tessera:LayerNormalization and RMSNormalization rows
// that the optimizer's normalization fusions produce.
#pragma once

#include <memory>

#include "tessera/ops/kernel.h"

namespace tessera::cpu {

std::unique_ptr<OpKernel> MakeLayerNormKernel(const KernelInfo& info, bool rms);

}  // namespace tessera::cpu
