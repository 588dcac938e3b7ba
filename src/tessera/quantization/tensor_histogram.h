// The value statistics calibration keeps per tensor: the exact min and max,
// and a histogram over [-limit, limit] whose limit doubles (merging bin
// pairs, so no count moves across a bin edge) when a batch reaches past it.
// The range methods read it: MinMax, Percentile and Entropy.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace tessera::quant {

class TensorHistogram {
 public:
  // bins: even and at least 4 (the two halves meet at 0).
  explicit TensorHistogram(int bins = 2048);

  // NaN and infinities are skipped.
  void Add(const float* data, int64_t n);

  int64_t count() const { return count_; }
  double min() const { return min_; }
  double max() const { return max_; }
  double limit() const { return limit_; }
  const std::vector<double>& bins() const { return bins_; }

  // [lower, upper] holding all but (100 - percentile)% of the values: the
  // tails split evenly, or with `symmetric` the threshold of |x| that many
  // values stay under, as [-t, t]. Clipped to the observed [min, max]
  // (except for the symmetric form).
  std::pair<double, double> PercentileRange(double percentile, bool symmetric) const;
  // The |x| threshold whose clipped distribution, quantized to
  // `quantized_bins` levels, is closest to the original in KL divergence
  // (the search TensorRT describes for int8 calibration), as a range
  // clipped to [min, max]; [-t, t] with `symmetric`.
  std::pair<double, double> EntropyRange(int quantized_bins, bool symmetric) const;

 private:
  void Widen(double absmax);

  std::vector<double> bins_;
  double limit_ = 0;     // 0 until a nonzero value arrives
  int64_t zeros_ = 0;    // zeros seen before the limit was set
  int64_t count_ = 0;
  double min_ = 0, max_ = 0;
};

// The KL divergence the entropy search minimizes: reference histogram
// `p` (the first `i` bins with the outliers in the last) against its
// quantization to `levels` levels, expanded back over p's nonzero bins.
double ClippedKlDivergence(const std::vector<double>& abs_bins, int i, int levels);

}  // namespace tessera::quant
