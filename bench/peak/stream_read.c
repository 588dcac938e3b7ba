/* Read bandwidth of one core (or of several copies run at once) from the
 * cache level a buffer of a given size fits: the ceiling of kernels that
 * stream weights they cannot keep in cache, as the LSTM recurrence does
 * (hidden 512: 4 MiB of R read once per step), next to the FMA ceiling of
 * ../shared/bench/peak/peak_fma.c.
 *
 *   gcc -O2 -march=native -o /tmp/stream_read bench/peak/stream_read.c
 *   /tmp/stream_read 0.5 1 4 64          # MiB: L2, L2 edge, L3, DRAM
 *   /tmp/stream_read 2 & /tmp/stream_read 2; wait   # two cores at once
 *
 * Each size is read 2000 / MiB times (at least 10) with four independent
 * vector sums; prints the best and the mean GB/s (1e9 bytes/s). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* One vector register's width: a 64-byte vector type on a host without
 * AVX-512 is split by gcc through the stack, which read 15 GB/s from L2 on
 * an AVX2 Zen 3 (compute-bound, not a read ceiling). */
#if defined(__AVX512F__)
typedef float v16 __attribute__((vector_size(64), aligned(64)));
#else
typedef float v16 __attribute__((vector_size(32), aligned(64)));
#endif

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void measure(double mib) {
  const size_t vectors = (size_t)(mib * 1024 * 1024) / sizeof(v16) / 4 * 4;
  if (vectors == 0) {
    fprintf(stderr, "stream_read: %g MiB is too small\n", mib);
    exit(2);
  }
  v16 *buffer = aligned_alloc(64, vectors * sizeof(v16));
  if (buffer == NULL) {
    fprintf(stderr, "stream_read: cannot allocate %g MiB\n", mib);
    exit(2);
  }
  for (size_t i = 0; i < vectors; ++i)
    for (int l = 0; l < (int)(sizeof(v16) / sizeof(float)); ++l)
      buffer[i][l] = (float)((i * 16 + (size_t)l) % 1000) * 1e-6f;
  int reps = (int)(2000 / mib);
  if (reps < 10) reps = 10;
  v16 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
  double best = 1e30, total = 0;
  for (int r = 0; r < reps; ++r) {
    double t = seconds();
    for (size_t i = 0; i < vectors; i += 4) {
      s0 += buffer[i];
      s1 += buffer[i + 1];
      s2 += buffer[i + 2];
      s3 += buffer[i + 3];
    }
    t = seconds() - t;
    total += t;
    if (t < best) best = t;
  }
  const v16 s = s0 + s1 + s2 + s3;
  const double bytes = (double)(vectors * sizeof(v16));
  /* The sum is printed so that the reads cannot be optimized away. */
  printf("%8.2f MiB: best %6.1f GB/s, mean %6.1f GB/s  (checksum %g)\n", mib, bytes / best / 1e9,
         bytes * reps / total / 1e9, (double)s[0]);
  free(buffer);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: stream_read MIB...\n");
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    char *end = NULL;
    const double mib = strtod(argv[i], &end);
    if (*end != '\0' || !(mib > 0)) {
      fprintf(stderr, "stream_read: '%s' is not a size in MiB\n", argv[i]);
      return 2;
    }
    measure(mib);
  }
  return 0;
}
