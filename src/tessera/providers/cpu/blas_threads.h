// Threads and OpenBLAS. Debian's OpenBLAS (pthread build) keeps its own
// threads, sized from OPENBLAS_NUM_THREADS or the core count, whatever the
// session asked for; inside our pool's chunks they would multiply the thread
// count. So OpenBLAS always runs on one thread and large GEMMs are split over
// the session's pool instead (matmul_gemm.cc): one pool drives every core.
//
// openblas_set_num_threads is process-wide, which is why the single-thread
// setting is the only one we ever make: per-call counts would race between
// sessions with different intra_op_num_threads. Side effect: other users of
// the same libopenblas in the process (numpy in the Python module) run single
// threaded too once a session has run a GEMM.
#pragma once

namespace tessera::cpu {

// Puts OpenBLAS on one thread (again, if something else changed it). Cheap:
// call it before every cblas_* call.
void PinBlasToOneThread();

// OpenBLAS's current thread count (tests check it stays 1).
int BlasLibraryThreads();

}  // namespace tessera::cpu
