// libFuzzer entry point; the harness is in inputs_harness.h.
#include "tests/fuzz/inputs_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tessera_fuzz::RunInputsHarness(data, size);
  return 0;
}
