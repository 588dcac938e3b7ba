// Linear and kernel models of ai.onnx.ml: LinearClassifier, LinearRegressor,
// SVMClassifier, SVMRegressor (all opset 1).
#include <algorithm>
#include <cmath>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/ml_common.h"

namespace tessera::cpu::ml {
namespace {

// scores[k] = intercepts[k] (0 without intercepts) + x . coef row k, for the
// first `outputs` rows of the row-major `features`-wide coefficients.
inline void LinearScores(const double* x, const std::vector<double>& coef, const std::vector<double>& intercepts,
                         int64_t outputs, int64_t features, double* scores) {
  for (int64_t k = 0; k < outputs; ++k) {
    double acc = intercepts.empty() ? 0.0 : intercepts[static_cast<size_t>(k)];
    const double* w = coef.data() + k * features;
    for (int64_t j = 0; j < features; ++j) acc += x[j] * w[j];
    scores[k] = acc;
  }
}

// ---- LinearClassifier -------------------------------------------------------------
// scores = X . coefficients^T + intercepts. A model with one coefficient row
// and two class labels is binary: its scores become [-s, s]. The label is the
// arg max of the (post-transformed) scores.

class LinearClassifier final : public OpKernel {
 public:
  explicit LinearClassifier(const KernelInfo& info) {
    labels_ = ClassLabels::Parse(info, "classlabels_ints");
    if (labels_.size() == 0) info.Fail("classlabels_ints or classlabels_strings must be set");
    std::vector<float> c = info.attr_floats("coefficients");
    coef_.assign(c.begin(), c.end());
    std::vector<float> b = info.attr_floats("intercepts", {});
    intercepts_.assign(b.begin(), b.end());
    post_ = ParsePostTransform(info.attr_string("post_transform", "NONE"), info);
    if (coef_.empty()) info.Fail("coefficients must not be empty");
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t rows, cols;
    RowsCols(x, ctx, &rows, &cols);
    int64_t nc = labels_.size();
    // One coefficient row per class, or a single row for a binary model.
    if (cols <= 0 || coef_.size() % static_cast<size_t>(cols) != 0)
      ctx.Fail("X has ", cols, " features; the ", coef_.size(), " coefficients are not a multiple of it");
    const int64_t nrows = static_cast<int64_t>(coef_.size()) / cols, nfeat = cols;
    if (!(nrows == nc || (nrows == 1 && nc == 2)))
      ctx.Fail("the coefficients hold ", nrows, " rows of ", cols, " features but there are ", nc, " classes");
    if (!intercepts_.empty() && static_cast<int64_t>(intercepts_.size()) != nrows)
      ctx.Fail("intercepts has ", intercepts_.size(), " entries, expected ", nrows);
    std::vector<double> xv = ReadAsDouble(x, ctx);
    Tensor& y = labels_.Allocate(ctx, rows);
    Tensor& z = ctx.allocate_output(1, DataType::kFloat, Shape{rows, nc});
    float* zs = z.data<float>();
    ParallelFor(ctx.thread_pool(), rows, 64, [&](int64_t b, int64_t e) {
      std::vector<double> s(static_cast<size_t>(std::max<int64_t>(nc, nrows)));
      for (int64_t r = b; r < e; ++r) {
        const double* xr = xv.data() + r * cols;
        LinearScores(xr, coef_, intercepts_, nrows, nfeat, s.data());
        if (nrows == 1 && nc == 2) {
          s[1] = s[0];
          s[0] = -s[1];
        }
        ApplyPostTransform(post_, s.data(), nc);
        labels_.Write(y, r, ArgMax(s.data(), nc));
        for (int64_t c = 0; c < nc; ++c) zs[r * nc + c] = static_cast<float>(s[static_cast<size_t>(c)]);
      }
    });
  }

 private:
  ClassLabels labels_;
  std::vector<double> coef_, intercepts_;
  PostTransform post_ = PostTransform::kNone;
};

// ---- LinearRegressor ---------------------------------------------------------------

class LinearRegressor final : public OpKernel {
 public:
  explicit LinearRegressor(const KernelInfo& info) {
    std::vector<float> c = info.attr_floats("coefficients", {});
    coef_.assign(c.begin(), c.end());
    std::vector<float> b = info.attr_floats("intercepts", {});
    intercepts_.assign(b.begin(), b.end());
    targets_ = info.attr_int("targets", 1);
    post_ = ParsePostTransform(info.attr_string("post_transform", "NONE"), info);
    if (targets_ < 1) info.Fail("targets must be >= 1");
    if (coef_.size() % static_cast<size_t>(targets_) != 0)
      info.Fail("coefficients has ", coef_.size(), " entries, not a multiple of targets = ", targets_);
    if (!intercepts_.empty() && static_cast<int64_t>(intercepts_.size()) != targets_)
      info.Fail("intercepts has ", intercepts_.size(), " entries, expected targets = ", targets_);
    features_ = static_cast<int64_t>(coef_.size()) / targets_;
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t rows;
    std::vector<double> xv = ReadFeatureRows(x, ctx, features_, "the coefficients expect", &rows);
    Tensor& y = ctx.allocate_output(0, DataType::kFloat, Shape{rows, targets_});
    float* ys = y.data<float>();
    ParallelFor(ctx.thread_pool(), rows, 64, [&](int64_t b, int64_t e) {
      std::vector<double> s(static_cast<size_t>(targets_));
      for (int64_t r = b; r < e; ++r) {
        const double* xr = xv.data() + r * features_;
        LinearScores(xr, coef_, intercepts_, targets_, features_, s.data());
        ApplyPostTransform(post_, s.data(), targets_);
        for (int64_t t = 0; t < targets_; ++t) ys[r * targets_ + t] = static_cast<float>(s[static_cast<size_t>(t)]);
      }
    });
  }

 private:
  std::vector<double> coef_, intercepts_;
  int64_t targets_ = 1, features_ = 0;
  PostTransform post_ = PostTransform::kNone;
};

// ---- SVM kernels ---------------------------------------------------------------------

enum class KernelType { kLinear, kPoly, kRbf, kSigmoid };

struct SvmKernel {
  KernelType type = KernelType::kLinear;
  double gamma = 0, coef0 = 0, degree = 0;

  void Parse(const KernelInfo& info) {
    std::string k = info.attr_string("kernel_type", "LINEAR");
    if (k == "LINEAR")
      type = KernelType::kLinear;
    else if (k == "POLY")
      type = KernelType::kPoly;
    else if (k == "RBF")
      type = KernelType::kRbf;
    else if (k == "SIGMOID")
      type = KernelType::kSigmoid;
    else
      info.Fail("kernel_type must be LINEAR, POLY, RBF or SIGMOID, got '", k, "'");
    std::vector<float> p = info.attr_floats("kernel_params", {});
    if (p.size() > 0) gamma = p[0];
    if (p.size() > 1) coef0 = p[1];
    if (p.size() > 2) degree = p[2];
  }

  double operator()(const double* a, const double* b, int64_t n) const {
    if (type == KernelType::kRbf) {
      double d = 0;
      for (int64_t i = 0; i < n; ++i) d += (a[i] - b[i]) * (a[i] - b[i]);
      return std::exp(-gamma * d);
    }
    double dot = 0;
    for (int64_t i = 0; i < n; ++i) dot += a[i] * b[i];
    switch (type) {
      case KernelType::kPoly: return std::pow(gamma * dot + coef0, degree);
      case KernelType::kSigmoid: return std::tanh(gamma * dot + coef0);
      default: return dot;
    }
  }
};

std::vector<double> Doubles(const std::vector<float>& f) { return std::vector<double>(f.begin(), f.end()); }

// libsvm's pairwise coupling: class probabilities from pairwise ones r[i][j].
void MulticlassProbability(int64_t k, const std::vector<double>& r, double* p) {
  std::vector<double> q(static_cast<size_t>(k * k)), qp(static_cast<size_t>(k));
  auto R = [&](int64_t i, int64_t j) { return r[static_cast<size_t>(i * k + j)]; };
  auto Q = [&](int64_t i, int64_t j) -> double& { return q[static_cast<size_t>(i * k + j)]; };
  for (int64_t t = 0; t < k; ++t) {
    p[t] = 1.0 / static_cast<double>(k);
    Q(t, t) = 0;
    for (int64_t j = 0; j < t; ++j) {
      Q(t, t) += R(j, t) * R(j, t);
      Q(t, j) = Q(j, t);
    }
    for (int64_t j = t + 1; j < k; ++j) {
      Q(t, t) += R(j, t) * R(j, t);
      Q(t, j) = -R(j, t) * R(t, j);
    }
  }
  const double eps = 0.005 / static_cast<double>(k);
  int64_t max_iter = std::max<int64_t>(100, k);
  for (int64_t it = 0; it < max_iter; ++it) {
    double pqp = 0;
    for (int64_t t = 0; t < k; ++t) {
      qp[static_cast<size_t>(t)] = 0;
      for (int64_t j = 0; j < k; ++j) qp[static_cast<size_t>(t)] += Q(t, j) * p[j];
      pqp += p[t] * qp[static_cast<size_t>(t)];
    }
    double max_error = 0;
    for (int64_t t = 0; t < k; ++t) max_error = std::max(max_error, std::fabs(qp[static_cast<size_t>(t)] - pqp));
    if (max_error < eps) break;
    for (int64_t t = 0; t < k; ++t) {
      double diff = (-qp[static_cast<size_t>(t)] + pqp) / Q(t, t);
      p[t] += diff;
      pqp = (pqp + diff * (diff * Q(t, t) + 2 * qp[static_cast<size_t>(t)])) / (1 + diff) / (1 + diff);
      for (int64_t j = 0; j < k; ++j) {
        qp[static_cast<size_t>(j)] = (qp[static_cast<size_t>(j)] + diff * Q(t, j)) / (1 + diff);
        p[j] /= (1 + diff);
      }
    }
  }
}

// ---- SVMClassifier -------------------------------------------------------------------
// With vectors_per_class (SVC): one-vs-one decision values
//   d(i,j) = sum_{v in i} coef[j-1][v] K(x, v) + sum_{v in j} coef[i][v] K(x, v) + rho[p]
// vote for i when d > 0, else for j. Without prob_a/prob_b the scores are the
// decision values (binary: [-d, d]) and the label the most voted class; with
// them, Platt-scaled pairwise probabilities are coupled into class
// probabilities, which give scores and label.
// Without support vectors (linear SVM): score_c = K(x, coef_c) + rho[0], label = arg max.

class SVMClassifier final : public OpKernel {
 public:
  explicit SVMClassifier(const KernelInfo& info) {
    labels_ = ClassLabels::Parse(info, "classlabels_ints");
    kernel_.Parse(info);
    post_ = ParsePostTransform(info.attr_string("post_transform", "NONE"), info);
    coef_ = Doubles(info.attr_floats("coefficients", {}));
    sv_ = Doubles(info.attr_floats("support_vectors", {}));
    rho_ = Doubles(info.attr_floats("rho", {}));
    prob_a_ = Doubles(info.attr_floats("prob_a", {}));
    prob_b_ = Doubles(info.attr_floats("prob_b", {}));
    per_class_ = info.attr_ints("vectors_per_class", {});
    if (prob_a_.size() != prob_b_.size()) info.Fail("prob_a and prob_b must have the same length");
    if (rho_.empty()) info.Fail("rho must be set");
    svc_ = !per_class_.empty() && !sv_.empty();
    if (svc_) {
      classes_ = static_cast<int64_t>(per_class_.size());
      if (classes_ < 2) info.Fail("vectors_per_class needs at least two classes");
      for (int64_t v : per_class_) {
        if (v < 0) info.Fail("vectors_per_class entries must be >= 0");
        starts_.push_back(vectors_);
        vectors_ += v;
      }
      if (vectors_ == 0 || sv_.size() % static_cast<size_t>(vectors_) != 0)
        info.Fail("support_vectors has ", sv_.size(), " values, not a multiple of ", vectors_, " vectors");
      features_ = static_cast<int64_t>(sv_.size()) / vectors_;
      if (static_cast<int64_t>(coef_.size()) != (classes_ - 1) * vectors_)
        info.Fail("coefficients must hold (classes - 1) x vectors = ", (classes_ - 1) * vectors_, " values, got ",
                  coef_.size());
      int64_t pairs = classes_ * (classes_ - 1) / 2;
      if (static_cast<int64_t>(rho_.size()) < pairs) info.Fail("rho needs one value per class pair (", pairs, ")");
      if (!prob_a_.empty() && static_cast<int64_t>(prob_a_.size()) < pairs)
        info.Fail("prob_a needs one value per class pair (", pairs, ")");
    } else {
      classes_ = labels_.size();
      if (classes_ < 1 || coef_.empty() || coef_.size() % static_cast<size_t>(classes_) != 0)
        info.Fail("coefficients has ", coef_.size(), " values, not a multiple of the ", classes_, " classes");
      features_ = static_cast<int64_t>(coef_.size()) / classes_;
    }
    if (labels_.size() != classes_)
      info.Fail("the model has ", classes_, " classes but ", labels_.size(), " class labels");
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t rows;
    std::vector<double> xv = ReadFeatureRows(x, ctx, features_, "the model expects", &rows);
    bool proba = svc_ && !prob_a_.empty();
    int64_t pairs = classes_ * (classes_ - 1) / 2;
    int64_t nscores = (svc_ && !proba) ? (classes_ == 2 ? 2 : pairs) : classes_;
    Tensor& y = labels_.Allocate(ctx, rows);
    Tensor& z = ctx.allocate_output(1, DataType::kFloat, Shape{rows, nscores});
    float* zs = z.data<float>();
    ParallelFor(ctx.thread_pool(), rows, 16, [&](int64_t b, int64_t e) {
      std::vector<double> kern(static_cast<size_t>(vectors_)), dec(static_cast<size_t>(pairs));
      std::vector<double> s(static_cast<size_t>(std::max(nscores, classes_)));
      std::vector<int64_t> votes(static_cast<size_t>(classes_));
      std::vector<double> r(static_cast<size_t>(classes_ * classes_));
      for (int64_t row = b; row < e; ++row) {
        const double* xr = xv.data() + row * features_;
        int64_t label = 0;
        if (!svc_) {
          for (int64_t c = 0; c < classes_; ++c) s[static_cast<size_t>(c)] = kernel_(xr, coef_.data() + c * features_, features_) + rho_[0];
          ApplyPostTransform(post_, s.data(), classes_);
          label = ArgMax(s.data(), classes_);
        } else {
          for (int64_t v = 0; v < vectors_; ++v) kern[static_cast<size_t>(v)] = kernel_(xr, sv_.data() + v * features_, features_);
          std::fill(votes.begin(), votes.end(), 0);
          int64_t p = 0;
          for (int64_t i = 0; i < classes_; ++i) {
            for (int64_t j = i + 1; j < classes_; ++j, ++p) {
              double d = rho_[static_cast<size_t>(p)];
              for (int64_t v = 0; v < per_class_[static_cast<size_t>(i)]; ++v) {
                int64_t sv = starts_[static_cast<size_t>(i)] + v;
                d += coef_[static_cast<size_t>((j - 1) * vectors_ + sv)] * kern[static_cast<size_t>(sv)];
              }
              for (int64_t v = 0; v < per_class_[static_cast<size_t>(j)]; ++v) {
                int64_t sv = starts_[static_cast<size_t>(j)] + v;
                d += coef_[static_cast<size_t>(i * vectors_ + sv)] * kern[static_cast<size_t>(sv)];
              }
              dec[static_cast<size_t>(p)] = d;
              ++votes[static_cast<size_t>(d > 0 ? i : j)];
            }
          }
          if (proba) {
            p = 0;
            for (int64_t i = 0; i < classes_; ++i) {
              for (int64_t j = i + 1; j < classes_; ++j, ++p) {
                double v = dec[static_cast<size_t>(p)] * prob_a_[static_cast<size_t>(p)] + prob_b_[static_cast<size_t>(p)];
                double pr = 1.0 / (1.0 + std::exp(v));
                pr = std::min(std::max(pr, 1e-7), 1 - 1e-7);
                r[static_cast<size_t>(i * classes_ + j)] = pr;
                r[static_cast<size_t>(j * classes_ + i)] = 1 - pr;
              }
            }
            MulticlassProbability(classes_, r, s.data());
            ApplyPostTransform(post_, s.data(), classes_);
            label = ArgMax(s.data(), classes_);
          } else {
            if (classes_ == 2) {
              s[0] = -dec[0];
              s[1] = dec[0];
            } else {
              std::copy(dec.begin(), dec.end(), s.begin());
            }
            ApplyPostTransform(post_, s.data(), nscores);
            label = 0;
            for (int64_t c = 1; c < classes_; ++c)
              if (votes[static_cast<size_t>(c)] > votes[static_cast<size_t>(label)]) label = c;
          }
        }
        labels_.Write(y, row, label);
        for (int64_t c = 0; c < nscores; ++c) zs[row * nscores + c] = static_cast<float>(s[static_cast<size_t>(c)]);
      }
    });
  }

 private:
  ClassLabels labels_;
  SvmKernel kernel_;
  PostTransform post_ = PostTransform::kNone;
  std::vector<double> coef_, sv_, rho_, prob_a_, prob_b_;
  std::vector<int64_t> per_class_, starts_;
  bool svc_ = false;
  int64_t classes_ = 0, vectors_ = 0, features_ = 0;
};

// ---- SVMRegressor ---------------------------------------------------------------------
// y = sum_v coef[v] K(x, sv_v) + rho[0] (one_class: +1 when > 0, else -1);
// without support vectors y = K(x, coefficients) + rho[0].

class SVMRegressor final : public OpKernel {
 public:
  explicit SVMRegressor(const KernelInfo& info) {
    kernel_.Parse(info);
    post_ = ParsePostTransform(info.attr_string("post_transform", "NONE"), info);
    coef_ = Doubles(info.attr_floats("coefficients", {}));
    sv_ = Doubles(info.attr_floats("support_vectors", {}));
    rho_ = Doubles(info.attr_floats("rho", {}));
    n_supports_ = info.attr_int("n_supports", 0);
    one_class_ = info.attr_int("one_class", 0) != 0;
    if (rho_.empty()) info.Fail("rho must be set");
    if (n_supports_ < 0) info.Fail("n_supports must be >= 0");
    if (n_supports_ > 0) {
      if (sv_.size() % static_cast<size_t>(n_supports_) != 0)
        info.Fail("support_vectors has ", sv_.size(), " values, not a multiple of n_supports = ", n_supports_);
      if (static_cast<int64_t>(coef_.size()) != n_supports_)
        info.Fail("coefficients must hold n_supports = ", n_supports_, " values, got ", coef_.size());
      features_ = static_cast<int64_t>(sv_.size()) / n_supports_;
    } else {
      features_ = static_cast<int64_t>(coef_.size());
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t rows;
    std::vector<double> xv = ReadFeatureRows(x, ctx, features_, "the model expects", &rows);
    Tensor& y = ctx.allocate_output(0, DataType::kFloat, Shape{rows, 1});
    float* ys = y.data<float>();
    ParallelFor(ctx.thread_pool(), rows, 16, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const double* xr = xv.data() + r * features_;
        double s = rho_[0];
        if (n_supports_ > 0) {
          for (int64_t v = 0; v < n_supports_; ++v) s += coef_[static_cast<size_t>(v)] * kernel_(xr, sv_.data() + v * features_, features_);
          if (one_class_) s = s > 0 ? 1.0 : -1.0;
        } else {
          s += kernel_(xr, coef_.data(), features_);
        }
        ApplyPostTransform(post_, &s, 1);
        ys[r] = static_cast<float>(s);
      }
    });
  }

 private:
  SvmKernel kernel_;
  PostTransform post_ = PostTransform::kNone;
  std::vector<double> coef_, sv_, rho_;
  int64_t n_supports_ = 0, features_ = 0;
  bool one_class_ = false;
};

}  // namespace

std::vector<KernelRow> MlLinearKernels() {
  const std::vector<DataType> numeric = {DataType::kFloat, DataType::kDouble, DataType::kInt64, DataType::kInt32};
  return {
      {"ai.onnx.ml", "LinearClassifier", 1, kMaxOnnxMlOpset, numeric, Make<LinearClassifier>()},
      {"ai.onnx.ml", "LinearRegressor", 1, kMaxOnnxMlOpset, numeric, Make<LinearRegressor>()},
      {"ai.onnx.ml", "SVMClassifier", 1, kMaxOnnxMlOpset, numeric, Make<SVMClassifier>()},
      {"ai.onnx.ml", "SVMRegressor", 1, kMaxOnnxMlOpset, numeric, Make<SVMRegressor>()},
  };
}

}  // namespace tessera::cpu::ml
