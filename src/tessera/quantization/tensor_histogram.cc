#include "tessera/quantization/tensor_histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tessera/base/status.h"

namespace tessera::quant {

TensorHistogram::TensorHistogram(int bins) {
  TS_CHECK(bins >= 4 && bins % 2 == 0, kInvalidArgument, "histogram bins must be even and >= 4, got ", bins);
  bins_.assign(static_cast<size_t>(bins), 0.0);
}

void TensorHistogram::Widen(double absmax) {
  if (limit_ == 0) {
    limit_ = absmax;
    bins_[bins_.size() / 2] += static_cast<double>(zeros_);
    zeros_ = 0;
    return;
  }
  const size_t n = bins_.size();
  while (absmax > limit_) {
    // [-L, L] becomes the middle half of [-2L, 2L]: old bins 2k and 2k+1
    // are new bin n/4 + k. The outer quarters start empty.
    std::vector<double> wider(n, 0.0);
    for (size_t k = 0; k < n / 2; ++k) wider[n / 4 + k] = bins_[2 * k] + bins_[2 * k + 1];
    bins_.swap(wider);
    limit_ *= 2;
  }
}

void TensorHistogram::Add(const float* data, int64_t n) {
  double absmax = 0;
  bool any = false;
  for (int64_t i = 0; i < n; ++i) {
    const double v = data[i];
    if (!std::isfinite(v)) continue;
    if (!any && count_ == 0) min_ = max_ = v;
    any = true;
    min_ = std::min(min_, v);
    max_ = std::max(max_, v);
    absmax = std::max(absmax, std::fabs(v));
  }
  if (!any) return;
  if (absmax > limit_) Widen(absmax);
  const double nb = static_cast<double>(bins_.size());
  const int64_t last = static_cast<int64_t>(bins_.size()) - 1;
  for (int64_t i = 0; i < n; ++i) {
    const double v = data[i];
    if (!std::isfinite(v)) continue;
    ++count_;
    if (limit_ == 0) {
      ++zeros_;
      continue;
    }
    const int64_t b = static_cast<int64_t>(std::floor((v + limit_) / (2 * limit_) * nb));
    bins_[static_cast<size_t>(std::clamp<int64_t>(b, 0, last))] += 1;
  }
}

std::pair<double, double> TensorHistogram::PercentileRange(double percentile, bool symmetric) const {
  if (count_ == 0 || limit_ == 0) return {min_, max_};
  const size_t n = bins_.size();
  const double width = 2 * limit_ / static_cast<double>(n);
  const double total = static_cast<double>(count_);
  const double keep = std::clamp(percentile / 100.0, 0.0, 1.0);
  if (symmetric) {
    // |x| bins: the pair of signed bins at the same distance from 0.
    double seen = 0;
    for (size_t k = 0; k < n / 2; ++k) {
      seen += bins_[n / 2 + k] + bins_[n / 2 - 1 - k];
      if (seen >= keep * total) {
        const double t = std::min((static_cast<double>(k) + 1) * width, std::max(-min_, max_));
        return {-t, t};
      }
    }
    return {-limit_, limit_};
  }
  const double tail = (1.0 - keep) / 2.0 * total;
  double lower = min_, upper = max_, seen = 0;
  for (size_t b = 0; b < n; ++b) {
    seen += bins_[b];
    if (seen > tail) {
      lower = -limit_ + static_cast<double>(b) * width;
      break;
    }
  }
  seen = 0;
  for (size_t b = n; b-- > 0;) {
    seen += bins_[b];
    if (seen > tail) {
      upper = -limit_ + static_cast<double>(b + 1) * width;
      break;
    }
  }
  return {std::max(lower, min_), std::min(upper, max_)};
}

namespace {

// Adds eps to the empty bins of a distribution and takes it evenly from the
// others, so the divergence stays finite where one side has no mass.
bool Smooth(std::vector<double>& d, double eps = 1e-4) {
  size_t zeros = 0;
  for (double v : d) zeros += v == 0;
  const size_t nonzeros = d.size() - zeros;
  if (nonzeros == 0) return false;
  const double take = eps * static_cast<double>(zeros) / static_cast<double>(nonzeros);
  for (double& v : d) v = v == 0 ? eps : v - take;
  return true;
}

}  // namespace

double ClippedKlDivergence(const std::vector<double>& abs_bins, int i, int levels) {
  std::vector<double> p(abs_bins.begin(), abs_bins.begin() + i);
  for (size_t k = static_cast<size_t>(i); k < abs_bins.size(); ++k) p[static_cast<size_t>(i) - 1] += abs_bins[k];
  // q: the first i bins merged into `levels` groups, each group's count
  // spread evenly over the group's nonempty bins.
  std::vector<double> q(static_cast<size_t>(i), 0.0);
  for (int j = 0; j < levels; ++j) {
    const int start = static_cast<int>(static_cast<int64_t>(j) * i / levels);
    const int end = static_cast<int>(static_cast<int64_t>(j + 1) * i / levels);
    double sum = 0;
    int nonempty = 0;
    for (int k = start; k < end; ++k) {
      sum += abs_bins[static_cast<size_t>(k)];
      nonempty += abs_bins[static_cast<size_t>(k)] != 0;
    }
    if (nonempty == 0) continue;
    for (int k = start; k < end; ++k)
      if (abs_bins[static_cast<size_t>(k)] != 0) q[static_cast<size_t>(k)] = sum / nonempty;
  }
  double psum = 0, qsum = 0;
  for (double v : p) psum += v;
  for (double v : q) qsum += v;
  if (psum == 0 || qsum == 0) return std::numeric_limits<double>::infinity();
  for (double& v : p) v /= psum;
  for (double& v : q) v /= qsum;
  if (!Smooth(p) || !Smooth(q)) return std::numeric_limits<double>::infinity();
  double kl = 0;
  for (size_t k = 0; k < p.size(); ++k)
    if (p[k] > 0 && q[k] > 0) kl += p[k] * std::log(p[k] / q[k]);
  return kl;
}

std::pair<double, double> TensorHistogram::EntropyRange(int quantized_bins, bool symmetric) const {
  if (count_ == 0 || limit_ == 0) return {min_, max_};
  const size_t n = bins_.size(), half = n / 2;
  std::vector<double> abs_bins(half);
  for (size_t k = 0; k < half; ++k) abs_bins[k] = bins_[half + k] + bins_[half - 1 - k];
  const double width = limit_ / static_cast<double>(half);
  int best = static_cast<int>(half);
  double best_kl = std::numeric_limits<double>::infinity();
  for (int i = std::max(quantized_bins, 1); i <= static_cast<int>(half); ++i) {
    const double kl = ClippedKlDivergence(abs_bins, i, quantized_bins);
    if (kl < best_kl) {
      best_kl = kl;
      best = i;
    }
  }
  const double t = static_cast<double>(best) * width;
  if (symmetric) return {-t, t};
  return {std::max(-t, min_), std::min(t, max_)};
}

}  // namespace tessera::quant
