#include "tessera/providers/opencl/opencl_families.h"

namespace tessera::opencl {

namespace {
// Helpers every family may use: N-d index arithmetic over up to 8 dims with
// 32-bit indices (the EP refuses tensors of 2^31 elements or more).
const char* const kCommonSource = R"CLC(
#define TS_MAX_RANK 8
typedef struct {
  int rank;
  int n;
  int dims[TS_MAX_RANK];
  int sa[TS_MAX_RANK];
  int sb[TS_MAX_RANK];
} ts_bcast;

/* Offsets into a and b of output element i under broadcasting. */
inline int2 ts_bcast_offsets(const ts_bcast* info, int i) {
  int oa = 0, ob = 0;
  for (int d = info->rank - 1; d >= 0; --d) {
    int dim = info->dims[d];
    int c = i % dim;
    i /= dim;
    oa += c * info->sa[d];
    ob += c * info->sb[d];
  }
  return (int2)(oa, ob);
}
)CLC";
}  // namespace

std::string ProgramSource() {
  std::string s = kCommonSource;
  for (const char* part : {kElementwiseSource, kShapeSource, kMatMulSource, kConvPoolSource, kReduceSource, kLayoutSource})
    s += part;
  return s;
}

}  // namespace tessera::opencl
