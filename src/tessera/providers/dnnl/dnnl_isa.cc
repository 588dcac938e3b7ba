#include "tessera/providers/dnnl/dnnl_isa.h"

#include <dnnl.hpp>

#include <mutex>
#include <optional>

#include "tessera/base/status.h"

namespace tessera::dnnl_ep {
namespace {

#if defined(__x86_64__)
dnnl::cpu_isa DnnlCapOf(IsaLevel level) {
  switch (level) {
    case IsaLevel::kAvx2: return dnnl::cpu_isa::avx2;
    case IsaLevel::kSse4:
    case IsaLevel::kScalar: return dnnl::cpu_isa::sse41;
    default: return dnnl::cpu_isa::all;
  }
}
#endif

std::mutex cap_mu;
std::optional<IsaLevel> cap;

}  // namespace

// TESSERA_MAX_ISA reaches oneDNN before main, ahead of anything that could
// ask oneDNN for its ISA (and so fix it) before an EP exists. A bad value is
// left for session creation to report.
static const bool kEnvironmentCapApplied = [] {
  try {
    if (auto level = IsaCapFromEnvironment()) CapDnnlIsa(*level);
    return true;
  } catch (const Error&) {
    return false;
  }
}();

std::string DnnlIsaInUse() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return "generic";
  }
}

void CapDnnlIsa(IsaLevel level) {
  std::lock_guard<std::mutex> lock(cap_mu);
  if (cap == level) return;
  if (cap)
    TS_THROW(kInvalidArgument, "oneDNN already runs under the instruction-set cap ", IsaLevelName(*cap),
             "; a session cannot ask for ", IsaLevelName(level), " in the same process");
#if defined(__x86_64__)
  // The top level caps nothing; below it oneDNN takes the cap only before it
  // has dispatched anything.
  if (level != IsaLevel::kAvx512 && dnnl::set_max_cpu_isa(DnnlCapOf(level)) != dnnl::status::success)
    TS_THROW(kInvalidArgument, "oneDNN chose its instruction set (", DnnlIsaInUse(), ") before the cap ",
             IsaLevelName(level), " reached it: set TESSERA_MAX_ISA before the process starts");
#endif
  cap = level;
}

}  // namespace tessera::dnnl_ep
