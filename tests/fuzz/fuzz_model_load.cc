// libFuzzer entry point; the harness is in load_harness.h.
#include "tests/fuzz/load_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tessera_fuzz::RunLoadHarness(data, size);
  return 0;
}
