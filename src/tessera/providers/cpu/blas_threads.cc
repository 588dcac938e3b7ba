#include "tessera/providers/cpu/blas_threads.h"

#include <cblas.h>

namespace tessera::cpu {

void PinBlasToOneThread() {
  // A read of one global when already pinned; only the first call (or one
  // after another library raised the count) pays for the setter.
  if (openblas_get_num_threads() != 1) openblas_set_num_threads(1);
}

int BlasLibraryThreads() { return openblas_get_num_threads(); }

}  // namespace tessera::cpu
