// Conv and ConvTranspose kernels with an optional epilogue, for the fused
// ai.tessera:FusedConv kernel: the epilogue runs on each output channel's
// rows right after the bias is added.
#pragma once

#include <memory>

#include "tessera/ops/kernel.h"
#include "tessera/providers/cpu/epilogue.h"

namespace tessera::cpu {

std::unique_ptr<OpKernel> MakeConvKernel(const KernelInfo& info, bool transpose,
                                         std::shared_ptr<const Epilogue> epilogue);

}  // namespace tessera::cpu
