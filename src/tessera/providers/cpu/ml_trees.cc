// Tree ensembles of ai.onnx.ml: TreeEnsemble (5), TreeEnsembleRegressor and
// TreeEnsembleClassifier (1, 3, 5). Both attribute encodings are compiled into
// one flat model: interior nodes with child references that point either at
// another interior node or at a leaf, and leaves holding (target, weight) votes.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <set>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/ml_common.h"

namespace tessera::cpu::ml {
namespace {

enum Mode : uint8_t { kLeq = 0, kLt = 1, kGte = 2, kGt = 3, kEq = 4, kNeq = 5, kMember = 6, kLeaf = 7 };
enum Aggregate { kAverage = 0, kSum = 1, kMin = 2, kMax = 3 };

struct Child {
  bool leaf = false;
  int64_t idx = 0;
};

struct TreeNode {
  int64_t feature = 0;
  uint8_t mode = kLeq;
  double value = 0;
  bool missing_true = false;
  int64_t set_begin = 0, set_end = 0;  // membership values (sorted) for kMember
  Child t, f;
};

struct TreeModel {
  std::vector<TreeNode> nodes;
  std::vector<double> sets;
  std::vector<int64_t> leaf_begin{0};  // votes of leaf l: [leaf_begin[l], leaf_begin[l+1])
  std::vector<int64_t> vote_target;
  std::vector<double> vote_weight;
  std::vector<Child> roots;
  int64_t n_targets = 1;
  int aggregate = kSum;
  int64_t max_feature = -1;

  int64_t num_leaves() const { return static_cast<int64_t>(leaf_begin.size()) - 1; }

  void AddLeaf(const std::vector<std::pair<int64_t, double>>& votes) {
    for (const auto& [t, w] : votes) {
      vote_target.push_back(t);
      vote_weight.push_back(w);
    }
    leaf_begin.push_back(static_cast<int64_t>(vote_target.size()));
  }

  void Finish(const KernelInfo& info) {
    for (const auto& n : nodes) {
      max_feature = std::max(max_feature, n.feature);
      if (n.feature < 0) info.Fail("nodes_featureids must be >= 0");
      for (const Child& c : {n.t, n.f}) {
        int64_t limit = c.leaf ? num_leaves() : static_cast<int64_t>(nodes.size());
        if (c.idx < 0 || c.idx >= limit) info.Fail("a tree node refers to a missing ", c.leaf ? "leaf" : "node");
      }
    }
    for (const Child& c : roots) {
      int64_t limit = c.leaf ? num_leaves() : static_cast<int64_t>(nodes.size());
      if (c.idx < 0 || c.idx >= limit) info.Fail("a tree root refers to a missing node");
    }
    for (int64_t t : vote_target)
      if (t < 0 || t >= n_targets) info.Fail("leaf target/class id ", t, " is out of range [0, ", n_targets, ")");
  }

  bool GoTrue(const TreeNode& n, double v) const {
    if (std::isnan(v) && n.missing_true) return true;
    switch (n.mode) {
      case kLeq: return v <= n.value;
      case kLt: return v < n.value;
      case kGte: return v >= n.value;
      case kGt: return v > n.value;
      case kEq: return v == n.value;
      case kNeq: return v != n.value;
      case kMember:
        return std::binary_search(sets.begin() + n.set_begin, sets.begin() + n.set_end, v);
      default: return false;
    }
  }

  // Aggregated scores (without base values) of one row; false when a tree loops.
  bool Eval(const double* x, double* scores, std::vector<char>& has) const {
    std::fill(scores, scores + n_targets, 0.0);
    std::fill(has.begin(), has.end(), 0);
    int64_t limit = static_cast<int64_t>(nodes.size());
    for (const Child& root : roots) {
      Child c = root;
      int64_t steps = 0;
      while (!c.leaf) {
        if (++steps > limit) return false;
        const TreeNode& n = nodes[static_cast<size_t>(c.idx)];
        c = GoTrue(n, x[n.feature]) ? n.t : n.f;
      }
      for (int64_t k = leaf_begin[static_cast<size_t>(c.idx)]; k < leaf_begin[static_cast<size_t>(c.idx) + 1]; ++k) {
        int64_t t = vote_target[static_cast<size_t>(k)];
        double w = vote_weight[static_cast<size_t>(k)];
        if (aggregate == kMin)
          scores[t] = has[static_cast<size_t>(t)] ? std::min(scores[t], w) : w;
        else if (aggregate == kMax)
          scores[t] = has[static_cast<size_t>(t)] ? std::max(scores[t], w) : w;
        else
          scores[t] += w;
        has[static_cast<size_t>(t)] = 1;
      }
    }
    if (aggregate == kAverage && !roots.empty())
      for (int64_t t = 0; t < n_targets; ++t) scores[t] /= static_cast<double>(roots.size());
    return true;
  }

  // Runs the model over X ([N, F] or [F]) and calls finish(row, scores) per row.
  template <typename Fn>
  void Run(const Tensor& x, KernelContext& ctx, int64_t* rows_out, Fn&& finish) const {
    int64_t rows, cols;
    RowsCols(x, ctx, &rows, &cols);
    if (max_feature >= cols) ctx.Fail("the trees use feature ", max_feature, " but X has ", cols, " features");
    std::vector<double> xv = ReadAsDouble(x, ctx);
    *rows_out = rows;
    // Workers must not throw: a looping tree is reported after the loop.
    std::atomic<bool> looped{false};
    ParallelFor(ctx.thread_pool(), rows, 16, [&](int64_t b, int64_t e) {
      std::vector<double> scores(static_cast<size_t>(n_targets));
      std::vector<char> has(static_cast<size_t>(n_targets));
      for (int64_t r = b; r < e; ++r) {
        if (!Eval(xv.data() + r * cols, scores.data(), has)) {
          looped = true;
          return;
        }
        finish(r, scores.data(), has.data());
      }
    });
    if (looped) ctx.Fail("a tree contains a cycle");
  }
};

std::vector<double> TensorDoubles(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.GetAsDouble(i);
  return v;
}

// A float list attribute or its double `_as_tensor` twin (opset 3+).
std::vector<double> FloatsOrTensor(const KernelInfo& info, const std::string& name) {
  if (info.has_attr(name + "_as_tensor")) {
    if (info.has_attr(name)) info.Fail("only one of ", name, " and ", name, "_as_tensor may be set");
    return TensorDoubles(info.attr_tensor(name + "_as_tensor"));
  }
  std::vector<float> f = info.attr_floats(name, {});
  return std::vector<double>(f.begin(), f.end());
}

uint8_t ParseMode(const std::string& s, const KernelInfo& info) {
  if (s == "BRANCH_LEQ") return kLeq;
  if (s == "BRANCH_LT") return kLt;
  if (s == "BRANCH_GTE") return kGte;
  if (s == "BRANCH_GT") return kGt;
  if (s == "BRANCH_EQ") return kEq;
  if (s == "BRANCH_NEQ") return kNeq;
  if (s == "BRANCH_MEMBER") return kMember;
  if (s == "LEAF") return kLeaf;
  info.Fail("unknown node mode '", s, "'");
}

int ParseAggregate(const std::string& s, const KernelInfo& info) {
  if (s == "AVERAGE") return kAverage;
  if (s == "SUM") return kSum;
  if (s == "MIN") return kMin;
  if (s == "MAX") return kMax;
  info.Fail("aggregate_function must be AVERAGE, SUM, MIN or MAX, got '", s, "'");
}

// Compiles the opset 1/3 encoding: nodes keyed by (tree id, node id), LEAF
// nodes carrying the votes listed in `prefix`_treeids/_nodeids/_ids/_weights.
TreeModel CompileLegacy(const KernelInfo& info, const std::string& prefix, int64_t n_targets) {
  TreeModel m;
  m.n_targets = n_targets;
  auto tree_ids = info.attr_ints("nodes_treeids");
  auto node_ids = info.attr_ints("nodes_nodeids");
  auto features = info.attr_ints("nodes_featureids");
  auto modes_s = info.attr_strings("nodes_modes");
  auto values = FloatsOrTensor(info, "nodes_values");
  auto true_ids = info.attr_ints("nodes_truenodeids");
  auto false_ids = info.attr_ints("nodes_falsenodeids");
  auto missing = info.attr_ints("nodes_missing_value_tracks_true", {});
  size_t n = tree_ids.size();
  if (node_ids.size() != n || features.size() != n || modes_s.size() != n || true_ids.size() != n ||
      false_ids.size() != n || (values.size() != n && !values.empty()) || (!missing.empty() && missing.size() != n))
    info.Fail("the nodes_* attributes must all have the same length (", n, ")");
  if (values.empty()) values.assign(n, 0.0);
  std::map<std::pair<int64_t, int64_t>, size_t> pos;
  std::vector<int64_t> tree_order;
  std::set<int64_t> seen_trees;
  for (size_t i = 0; i < n; ++i) {
    if (!pos.emplace(std::make_pair(tree_ids[i], node_ids[i]), i).second)
      info.Fail("node (tree ", tree_ids[i], ", id ", node_ids[i], ") appears twice");
    if (seen_trees.insert(tree_ids[i]).second) tree_order.push_back(tree_ids[i]);
  }
  std::vector<uint8_t> modes(n);
  for (size_t i = 0; i < n; ++i) modes[i] = ParseMode(modes_s[i], info);
  for (size_t i = 0; i < n; ++i)
    if (modes[i] == kMember) info.Fail("BRANCH_MEMBER needs the TreeEnsemble operator");

  // Votes per leaf.
  auto v_tree = info.attr_ints(prefix + "_treeids", {});
  auto v_node = info.attr_ints(prefix + "_nodeids", {});
  auto v_id = info.attr_ints(prefix + "_ids", {});
  auto v_w = FloatsOrTensor(info, prefix + "_weights");
  if (v_node.size() != v_tree.size() || v_id.size() != v_tree.size() || v_w.size() != v_tree.size())
    info.Fail("the ", prefix, "_* attributes must all have the same length");
  std::vector<std::vector<std::pair<int64_t, double>>> votes(n);
  for (size_t k = 0; k < v_tree.size(); ++k) {
    auto it = pos.find({v_tree[k], v_node[k]});
    if (it == pos.end()) info.Fail(prefix, " weight ", k, " refers to a missing node");
    if (modes[it->second] != kLeaf) info.Fail(prefix, " weight ", k, " is attached to a non-leaf node");
    votes[it->second].emplace_back(v_id[k], v_w[k]);
  }
  // Number interior nodes and leaves.
  std::vector<Child> ref(n);
  int64_t n_inner = 0, n_leaf = 0;
  for (size_t i = 0; i < n; ++i) {
    ref[i].leaf = modes[i] == kLeaf;
    ref[i].idx = ref[i].leaf ? n_leaf++ : n_inner++;
  }
  m.nodes.resize(static_cast<size_t>(n_inner));
  std::vector<bool> is_child(n, false);
  for (size_t i = 0; i < n; ++i) {
    if (modes[i] == kLeaf) {
      m.AddLeaf(votes[i]);
      continue;
    }
    TreeNode& tn = m.nodes[static_cast<size_t>(ref[i].idx)];
    tn.feature = features[i];
    tn.mode = modes[i];
    tn.value = values[i];
    tn.missing_true = !missing.empty() && missing[i] != 0;
    auto t = pos.find({tree_ids[i], true_ids[i]});
    auto f = pos.find({tree_ids[i], false_ids[i]});
    if (t == pos.end() || f == pos.end())
      info.Fail("node (tree ", tree_ids[i], ", id ", node_ids[i], ") has a child missing from its tree");
    tn.t = ref[t->second];
    tn.f = ref[f->second];
    if (t->second != i) is_child[t->second] = true;
    if (f->second != i) is_child[f->second] = true;
  }
  for (int64_t tree : tree_order) {
    int64_t root = -1, first = -1;
    for (size_t i = 0; i < n; ++i) {
      if (tree_ids[i] != tree) continue;
      if (first < 0) first = static_cast<int64_t>(i);
      if (!is_child[i] && root < 0) root = static_cast<int64_t>(i);
    }
    if (root < 0) info.Fail("tree ", tree, " has no root (its nodes form a cycle)");
    m.roots.push_back(ref[static_cast<size_t>(root)]);
  }
  m.Finish(info);
  return m;
}

// ---- TreeEnsemble (ai.onnx.ml 5) --------------------------------------------------

class TreeEnsemble final : public OpKernel {
 public:
  explicit TreeEnsemble(const KernelInfo& info) {
    auto features = info.attr_ints("nodes_featureids");
    auto modes = TensorDoubles(info.attr_tensor("nodes_modes"));
    auto splits = TensorDoubles(info.attr_tensor("nodes_splits"));
    auto true_ids = info.attr_ints("nodes_truenodeids");
    auto true_leaf = info.attr_ints("nodes_trueleafs");
    auto false_ids = info.attr_ints("nodes_falsenodeids");
    auto false_leaf = info.attr_ints("nodes_falseleafs");
    auto missing = info.attr_ints("nodes_missing_value_tracks_true", {});
    auto roots = info.attr_ints("tree_roots");
    auto leaf_targets = info.attr_ints("leaf_targetids");
    auto leaf_weights = TensorDoubles(info.attr_tensor("leaf_weights"));
    size_t n = features.size();
    if (modes.size() != n || splits.size() != n || true_ids.size() != n || true_leaf.size() != n ||
        false_ids.size() != n || false_leaf.size() != n || (!missing.empty() && missing.size() != n))
      info.Fail("the nodes_* attributes must all have the same length (", n, ")");
    if (leaf_targets.size() != leaf_weights.size())
      info.Fail("leaf_targetids and leaf_weights must have the same length");
    m_.n_targets = info.attr_int("n_targets", 1);
    if (m_.n_targets < 1) info.Fail("n_targets must be >= 1");
    int64_t agg = info.attr_int("aggregate_function", 1);
    if (agg < 0 || agg > 3) info.Fail("aggregate_function must be 0..3, got ", agg);
    m_.aggregate = static_cast<int>(agg);
    int64_t pt = info.attr_int("post_transform", 0);
    if (pt < 0 || pt > 4) info.Fail("post_transform must be 0..4, got ", pt);
    post_ = static_cast<PostTransform>(pt);
    std::vector<double> members;
    if (info.has_attr("membership_values")) members = TensorDoubles(info.attr_tensor("membership_values"));
    size_t member_pos = 0;
    m_.nodes.resize(n);
    for (size_t i = 0; i < n; ++i) {
      TreeNode& tn = m_.nodes[i];
      double md = modes[i];
      if (!(md >= 0 && md <= 6)) info.Fail("nodes_modes value ", md, " is not a valid mode");
      tn.feature = features[i];
      tn.mode = static_cast<uint8_t>(md);
      tn.value = splits[i];
      tn.missing_true = !missing.empty() && missing[i] != 0;
      tn.t = Child{true_leaf[i] != 0, true_ids[i]};
      tn.f = Child{false_leaf[i] != 0, false_ids[i]};
      if (tn.mode == kMember) {
        if (member_pos > members.size()) info.Fail("membership_values has too few sets");
        tn.set_begin = static_cast<int64_t>(m_.sets.size());
        while (member_pos < members.size() && !std::isnan(members[member_pos]))
          m_.sets.push_back(members[member_pos++]);
        ++member_pos;  // the NaN delimiter
        tn.set_end = static_cast<int64_t>(m_.sets.size());
        std::sort(m_.sets.begin() + tn.set_begin, m_.sets.end());
      }
    }
    for (size_t l = 0; l < leaf_targets.size(); ++l) m_.AddLeaf({{leaf_targets[l], leaf_weights[l]}});
    for (int64_t r : roots) {
      if (r < 0 || r >= static_cast<int64_t>(n)) info.Fail("tree_roots entry ", r, " is out of range");
      m_.roots.push_back(Child{false, r});
    }
    m_.Finish(info);
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    DataType dt = x.dtype();
    if (dt != DataType::kFloat && dt != DataType::kDouble && dt != DataType::kFloat16)
      ctx.Fail("X must be float, double or float16, got ", DataTypeName(dt));
    int64_t rows = 0, cols = 0;
    RowsCols(x, ctx, &rows, &cols);
    int64_t nt = m_.n_targets;
    Tensor& y = ctx.allocate_output(0, dt, Shape{rows, nt});
    DispatchFloat(dt, ctx, [&]<typename T>() {
      T* out = y.data<T>();
      m_.Run(x, ctx, &rows, [&](int64_t r, double* s, const char*) {
        ApplyPostTransform(post_, s, nt);
        for (int64_t t = 0; t < nt; ++t) out[r * nt + t] = StoreAs<T>(static_cast<typename cpu::Compute<T>::type>(s[t]));
      });
    });
  }

 private:
  TreeModel m_;
  PostTransform post_ = PostTransform::kNone;
};

// ---- TreeEnsembleRegressor (1, 3, 5) --------------------------------------------------

class TreeEnsembleRegressor final : public OpKernel {
 public:
  explicit TreeEnsembleRegressor(const KernelInfo& info) {
    int64_t n_targets = info.attr_int("n_targets", 1);
    if (n_targets < 1) info.Fail("n_targets must be >= 1");
    m_ = CompileLegacy(info, "target", n_targets);
    m_.aggregate = ParseAggregate(info.attr_string("aggregate_function", "SUM"), info);
    post_ = ParsePostTransform(info.attr_string("post_transform", "NONE"), info);
    base_ = FloatsOrTensor(info, "base_values");
    if (!base_.empty() && static_cast<int64_t>(base_.size()) != n_targets)
      info.Fail("base_values has ", base_.size(), " entries, expected n_targets = ", n_targets);
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t rows = 0, cols = 0;
    RowsCols(x, ctx, &rows, &cols);
    int64_t nt = m_.n_targets;
    Tensor& y = ctx.allocate_output(0, DataType::kFloat, Shape{rows, nt});
    float* out = y.data<float>();
    m_.Run(x, ctx, &rows, [&](int64_t r, double* s, const char*) {
      if (!base_.empty())
        for (int64_t t = 0; t < nt; ++t) s[t] += base_[static_cast<size_t>(t)];
      ApplyPostTransform(post_, s, nt);
      for (int64_t t = 0; t < nt; ++t) out[r * nt + t] = static_cast<float>(s[t]);
    });
  }

 private:
  TreeModel m_;
  PostTransform post_ = PostTransform::kNone;
  std::vector<double> base_;
};

// ---- TreeEnsembleClassifier (1, 3, 5) -------------------------------------------------
// Class scores are summed votes plus base_values. When only one class id ever
// receives votes and there are two classes (a binary model), that score s is
// the positive class's and the scores become [1 - s, s] (post_transform NONE
// or PROBIT) or [-s, s] (the others). The label is the arg max after the
// post-transform (first on ties).

class TreeEnsembleClassifier final : public OpKernel {
 public:
  explicit TreeEnsembleClassifier(const KernelInfo& info) {
    labels_ = ClassLabels::Parse(info, "classlabels_int64s");
    if (labels_.size() == 0) info.Fail("classlabels_int64s or classlabels_strings must be set");
    m_ = CompileLegacy(info, "class", labels_.size());
    m_.aggregate = kSum;
    post_ = ParsePostTransform(info.attr_string("post_transform", "NONE"), info);
    base_ = FloatsOrTensor(info, "base_values");
    // The binary form converters write (LightGBM's, XGBoost's: trees voting
    // for class 0, two labels) may carry one base value: it is class 0's, as
    // onnxruntime reads it; class 1 starts at 0.
    if (base_.size() == 1 && labels_.size() == 2) base_.push_back(0.0);
    if (!base_.empty() && static_cast<int64_t>(base_.size()) != labels_.size())
      info.Fail("base_values has ", base_.size(), " entries, expected one per class (", labels_.size(),
                "), or one for a binary classifier");
    std::set<int64_t> voted(m_.vote_target.begin(), m_.vote_target.end());
    if (labels_.size() == 2 && voted.size() == 1) binary_class_ = *voted.begin();
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t rows = 0, cols = 0;
    RowsCols(x, ctx, &rows, &cols);
    int64_t nc = labels_.size();
    Tensor& y = labels_.Allocate(ctx, rows);
    Tensor& z = ctx.allocate_output(1, DataType::kFloat, Shape{rows, nc});
    float* zs = z.data<float>();
    m_.Run(x, ctx, &rows, [&](int64_t r, double* s, const char*) {
      if (!base_.empty())
        for (int64_t c = 0; c < nc; ++c) s[c] += base_[static_cast<size_t>(c)];
      if (binary_class_ >= 0) {
        double pos = s[binary_class_];
        s[1] = pos;
        s[0] = (post_ == PostTransform::kNone || post_ == PostTransform::kProbit) ? 1.0 - pos : -pos;
      }
      ApplyPostTransform(post_, s, nc);
      labels_.Write(y, r, ArgMax(s, nc));
      for (int64_t c = 0; c < nc; ++c) zs[r * nc + c] = static_cast<float>(s[c]);
    });
  }

 private:
  TreeModel m_;
  ClassLabels labels_;
  PostTransform post_ = PostTransform::kNone;
  std::vector<double> base_;
  int64_t binary_class_ = -1;
};

}  // namespace

std::vector<KernelRow> MlTreeKernels() {
  const std::vector<DataType> numeric = {DataType::kFloat, DataType::kDouble, DataType::kInt64, DataType::kInt32};
  const std::vector<DataType> te = {DataType::kFloat, DataType::kDouble, DataType::kFloat16};
  return {
      {"ai.onnx.ml", "TreeEnsemble", 5, kMaxOnnxMlOpset, te, Make<TreeEnsemble>()},
      {"ai.onnx.ml", "TreeEnsembleRegressor", 1, 2, numeric, Make<TreeEnsembleRegressor>()},
      {"ai.onnx.ml", "TreeEnsembleRegressor", 3, 4, numeric, Make<TreeEnsembleRegressor>()},
      {"ai.onnx.ml", "TreeEnsembleRegressor", 5, kMaxOnnxMlOpset, numeric, Make<TreeEnsembleRegressor>()},
      {"ai.onnx.ml", "TreeEnsembleClassifier", 1, 2, numeric, Make<TreeEnsembleClassifier>()},
      {"ai.onnx.ml", "TreeEnsembleClassifier", 3, 4, numeric, Make<TreeEnsembleClassifier>()},
      {"ai.onnx.ml", "TreeEnsembleClassifier", 5, kMaxOnnxMlOpset, numeric, Make<TreeEnsembleClassifier>()},
  };
}

}  // namespace tessera::cpu::ml
