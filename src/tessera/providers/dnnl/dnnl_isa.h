// oneDNN's instruction set under Tessera's cap (base/cpu_isa.h). oneDNN fixes
// its ISA the first time it is asked for it, so the cap must reach it before
// the first primitive: the EP applies TESSERA_MAX_ISA when it is created, and
// a session's max_isa before it compiles anything.
#pragma once

#include <string>

#include "tessera/base/cpu_isa.h"

namespace tessera::dnnl_ep {

// Caps oneDNN at `level` (scalar: oneDNN's lowest, SSE4.1, since it has no
// scalar kernels of its own to cap at), process-wide. Throws kInvalidArgument
// when oneDNN already runs under another cap, or chose its ISA before a cap
// came.
void CapDnnlIsa(IsaLevel level);
// oneDNN's ISA now, as oneDNN names it ("avx2", "avx512_core_vnni").
std::string DnnlIsaInUse();

}  // namespace tessera::dnnl_ep
