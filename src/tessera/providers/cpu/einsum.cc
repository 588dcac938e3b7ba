// Einsum: the operands' subscripts are parsed once; at run time each
// operand's repeated labels become diagonals, labels no one else needs are
// summed away, and the operands are contracted pairwise by GEMM.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/matmul_gemm.h"

namespace tessera::cpu {

namespace {

constexpr int kEllipsis = -1;
constexpr int kFirstEllipsisLabel = 52;

int LetterId(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;  // ASCII order: upper case first
  if (c >= 'A' && c <= 'Z') return c - 'A';
  return -2;
}

// A dense operand of an einsum in the compute type, one label per axis.
template <typename C>
struct EOp {
  std::vector<C> data;
  Shape shape;
  std::vector<int> labels;
};

// out[idx] = in[sum idx[d] * in_strides[d]] over out_shape (strides may be 0).
template <typename C>
std::vector<C> StridedGather(const std::vector<C>& in, const Shape& out_shape, const std::vector<int64_t>& strides) {
  int64_t total = SizeFromDim(out_shape, 0);
  std::vector<C> out(static_cast<size_t>(total));
  if (total == 0) return out;
  size_t r = out_shape.size();
  if (r == 0) {
    out[0] = in[0];
    return out;
  }
  std::vector<int64_t> idx(r, 0);
  int64_t inner = out_shape[r - 1], istride = strides[r - 1], off = 0;
  for (int64_t o = 0; o < total; o += inner) {
    const C* src = in.data() + off;
    C* dst = out.data() + o;
    if (istride == 1)
      std::copy(src, src + inner, dst);
    else
      for (int64_t j = 0; j < inner; ++j) dst[j] = src[j * istride];
    for (size_t d = r - 1; d-- > 0;) {
      off += strides[d];
      if (++idx[d] < out_shape[d]) break;
      off -= strides[d] * out_shape[d];
      idx[d] = 0;
    }
  }
  return out;
}

template <typename C>
void Permute(EOp<C>& op, const std::vector<size_t>& perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == i;
  if (identity) return;
  std::vector<int64_t> st = StridesOf(op.shape), nst(perm.size());
  Shape ns(perm.size());
  std::vector<int> nl(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    ns[i] = op.shape[perm[i]];
    nst[i] = st[perm[i]];
    nl[i] = op.labels[perm[i]];
  }
  op.data = StridedGather(op.data, ns, nst);
  op.shape = std::move(ns);
  op.labels = std::move(nl);
}

// Sums out the axes whose flag is set.
template <typename C>
void SumAxes(EOp<C>& op, const std::vector<bool>& drop) {
  std::vector<size_t> perm;
  for (size_t i = 0; i < drop.size(); ++i) if (!drop[i]) perm.push_back(i);
  size_t kept = perm.size();
  if (kept == drop.size()) return;
  for (size_t i = 0; i < drop.size(); ++i) if (drop[i]) perm.push_back(i);
  Permute(op, perm);
  Shape ks(op.shape.begin(), op.shape.begin() + static_cast<std::ptrdiff_t>(kept));
  int64_t outer = SizeFromDim(ks, 0), inner = SizeFromDim(op.shape, kept);
  std::vector<C> out(static_cast<size_t>(outer), C{});
  for (int64_t o = 0; o < outer; ++o) {
    C s{};
    const C* p = op.data.data() + o * inner;
    for (int64_t j = 0; j < inner; ++j) s = static_cast<C>(s + p[j]);
    out[static_cast<size_t>(o)] = s;
  }
  op.data = std::move(out);
  op.shape = std::move(ks);
  op.labels.resize(kept);
}

// Replaces the size-1 axis `axis` by one of size n (copies).
template <typename C>
void ExpandAxis(EOp<C>& op, size_t axis, int64_t n) {
  std::vector<int64_t> st = StridesOf(op.shape);
  st[axis] = 0;
  op.shape[axis] = n;
  op.data = StridedGather(op.data, op.shape, st);
}

template <typename C>
void SumAxis(EOp<C>& op, size_t axis) {
  std::vector<bool> drop(op.shape.size(), false);
  drop[axis] = true;
  SumAxes(op, drop);
}

// Contracts a and b; labels in `keep` survive, other shared labels are summed.
template <typename C>
EOp<C> Contract(EOp<C> a, EOp<C> b, const std::vector<bool>& keep) {
  auto find = [](const EOp<C>& op, int l) -> int {
    for (size_t i = 0; i < op.labels.size(); ++i) if (op.labels[i] == l) return static_cast<int>(i);
    return -1;
  };
  // Labels unique to one side and not kept: sum them out first.
  for (EOp<C>* x : {&a, &b}) {
    const EOp<C>& other = x == &a ? b : a;
    std::vector<bool> drop(x->labels.size(), false);
    for (size_t i = 0; i < x->labels.size(); ++i)
      drop[i] = !keep[static_cast<size_t>(x->labels[i])] && find(other, x->labels[i]) < 0;
    SumAxes(*x, drop);
  }
  // Shared labels with broadcast (1 vs n) sizes.
  for (size_t i = 0; i < a.labels.size(); ++i) {
    int j = find(b, a.labels[i]);
    if (j < 0 || a.shape[i] == b.shape[static_cast<size_t>(j)]) continue;
    bool kept = keep[static_cast<size_t>(a.labels[i])];
    EOp<C>& small = a.shape[i] == 1 ? a : b;
    EOp<C>& big = a.shape[i] == 1 ? b : a;
    size_t si = static_cast<size_t>(find(small, a.labels[i])), bi = static_cast<size_t>(find(big, a.labels[i]));
    if (kept) {
      ExpandAxis(small, si, big.shape[bi]);
    } else {
      int l = a.labels[i];
      SumAxis(big, bi);
      big.shape.insert(big.shape.begin() + static_cast<std::ptrdiff_t>(bi), 1);
      big.labels.insert(big.labels.begin() + static_cast<std::ptrdiff_t>(bi), l);
    }
  }
  std::vector<size_t> pa_batch, pa_left, pa_con, pb_batch, pb_con, pb_right;
  for (size_t i = 0; i < a.labels.size(); ++i) {
    int j = find(b, a.labels[i]);
    if (j < 0) pa_left.push_back(i);
    else if (keep[static_cast<size_t>(a.labels[i])]) { pa_batch.push_back(i); pb_batch.push_back(static_cast<size_t>(j)); }
    else { pa_con.push_back(i); pb_con.push_back(static_cast<size_t>(j)); }
  }
  for (size_t j = 0; j < b.labels.size(); ++j)
    if (find(a, b.labels[j]) < 0) pb_right.push_back(j);
  auto prod = [](const EOp<C>& op, const std::vector<size_t>& axes) {
    int64_t n = 1;
    for (size_t i : axes) n *= op.shape[i];
    return n;
  };
  int64_t nb = prod(a, pa_batch), m = prod(a, pa_left), k = prod(a, pa_con), n = prod(b, pb_right);
  EOp<C> r;
  for (size_t i : pa_batch) { r.shape.push_back(a.shape[i]); r.labels.push_back(a.labels[i]); }
  for (size_t i : pa_left) { r.shape.push_back(a.shape[i]); r.labels.push_back(a.labels[i]); }
  for (size_t j : pb_right) { r.shape.push_back(b.shape[j]); r.labels.push_back(b.labels[j]); }
  std::vector<size_t> pa = pa_batch, pb = pb_batch;
  pa.insert(pa.end(), pa_left.begin(), pa_left.end());
  pa.insert(pa.end(), pa_con.begin(), pa_con.end());
  pb.insert(pb.end(), pb_con.begin(), pb_con.end());
  pb.insert(pb.end(), pb_right.begin(), pb_right.end());
  Permute(a, pa);
  Permute(b, pb);
  r.data.assign(static_cast<size_t>(nb * m * n), C{});
  for (int64_t bi = 0; bi < nb; ++bi)
    GemmAny<C>(false, false, m, n, k, a.data.data() + bi * m * k, std::max<int64_t>(k, 1),
               b.data.data() + bi * k * n, std::max<int64_t>(n, 1), r.data.data() + bi * m * n,
               std::max<int64_t>(n, 1), false);
  return r;
}

class Einsum final : public OpKernel {
 public:
  explicit Einsum(const KernelInfo& info) {
    std::string eq;
    for (char c : info.attr_string("equation"))
      if (c != ' ') eq += c;
    size_t arrow = eq.find("->");
    std::string lhs = arrow == std::string::npos ? eq : eq.substr(0, arrow);
    explicit_ = arrow != std::string::npos;
    auto parse_term = [&](const std::string& t) {
      std::vector<int> labels;
      bool ell = false;
      for (size_t i = 0; i < t.size(); ++i) {
        if (t[i] == '.') {
          if (t.compare(i, 3, "...") != 0 || ell) info.Fail("bad ellipsis in einsum equation '", eq, "'");
          ell = true;
          labels.push_back(kEllipsis);
          i += 2;
          continue;
        }
        int id = LetterId(t[i]);
        if (id < 0) info.Fail("invalid character '", t[i], "' in einsum equation '", eq, "'");
        labels.push_back(id);
      }
      return labels;
    };
    size_t start = 0;
    while (true) {
      size_t comma = lhs.find(',', start);
      inputs_.push_back(parse_term(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (explicit_) {
      output_ = parse_term(eq.substr(arrow + 2));
      for (size_t i = 0; i < output_.size(); ++i)
        for (size_t j = i + 1; j < output_.size(); ++j)
          if (output_[i] == output_[j]) info.Fail("label repeated in einsum output '", eq, "'");
      for (int l : output_) {
        if (l == kEllipsis) continue;
        bool found = false;
        for (const auto& t : inputs_) found = found || std::find(t.begin(), t.end(), l) != t.end();
        if (!found) info.Fail("einsum output label not found in any input: '", eq, "'");
      }
    } else {
      std::array<int, kFirstEllipsisLabel> count{};
      bool any_ell = false;
      for (const auto& t : inputs_)
        for (int l : t) {
          if (l == kEllipsis) any_ell = true;
          else ++count[static_cast<size_t>(l)];
        }
      if (any_ell) output_.push_back(kEllipsis);
      for (int l = 0; l < kFirstEllipsisLabel; ++l)
        if (count[static_cast<size_t>(l)] == 1) output_.push_back(l);
    }
  }

  void Compute(KernelContext& ctx) const override {
    if (ctx.num_inputs() != inputs_.size())
      ctx.Fail("einsum equation has ", inputs_.size(), " operands but ", ctx.num_inputs(), " inputs were given");
    DataType dt = ctx.input(0).dtype();
    for (size_t i = 1; i < inputs_.size(); ++i)
      if (ctx.input(i).dtype() != dt) ctx.Fail("einsum inputs have different element types");
    DispatchNumeric(dt, ctx, [&]<typename T>() {
      using C = std::conditional_t<std::is_integral_v<T>, T, typename cpu::Compute<T>::type>;
      Run<T, C>(ctx);
    });
  }

 private:
  template <typename T, typename C>
  void Run(KernelContext& ctx) const {
    size_t nin = inputs_.size();
    // Ellipsis rank and labels per operand.
    int64_t ell_rank = 0;
    std::vector<int64_t> own_ell(nin, 0);
    for (size_t i = 0; i < nin; ++i) {
      const auto& t = inputs_[i];
      int64_t letters = static_cast<int64_t>(t.size()) - (std::count(t.begin(), t.end(), kEllipsis) ? 1 : 0);
      int64_t r = ctx.input(i).rank();
      bool has_ell = letters != static_cast<int64_t>(t.size());
      if (has_ell ? r < letters : r != letters)
        ctx.Fail("einsum operand ", i, " has rank ", r, " but its term has ", letters, " labels");
      own_ell[i] = r - letters;
      ell_rank = std::max(ell_rank, own_ell[i]);
    }
    int num_labels = kFirstEllipsisLabel + static_cast<int>(ell_rank);
    std::vector<int64_t> size(static_cast<size_t>(num_labels), -1);
    std::vector<EOp<C>> ops(nin);
    for (size_t i = 0; i < nin; ++i) {
      const Tensor& x = ctx.input(i);
      EOp<C>& op = ops[i];
      op.shape = x.shape();
      for (int l : inputs_[i]) {
        if (l != kEllipsis) { op.labels.push_back(l); continue; }
        for (int64_t e = 0; e < own_ell[i]; ++e)
          op.labels.push_back(kFirstEllipsisLabel + static_cast<int>(ell_rank - own_ell[i] + e));
      }
      for (size_t d = 0; d < op.labels.size(); ++d) {
        int64_t& s = size[static_cast<size_t>(op.labels[d])];
        int64_t v = op.shape[d];
        if (s == -1 || s == 1) s = v;
        else if (v != s && v != 1)
          ctx.Fail("einsum dimension mismatch for a label: ", s, " vs ", v, " (operand ", i, ")");
      }
      const T* src = x.template data<T>();
      op.data.resize(static_cast<size_t>(x.numel()));
      for (int64_t j = 0; j < x.numel(); ++j) op.data[static_cast<size_t>(j)] = static_cast<C>(Load(src[j]));
    }
    std::vector<int> out_labels;
    for (int l : output_) {
      if (l != kEllipsis) { out_labels.push_back(l); continue; }
      for (int64_t e = 0; e < ell_rank; ++e) out_labels.push_back(kFirstEllipsisLabel + static_cast<int>(e));
    }
    // Diagonals for labels repeated within one operand.
    for (auto& op : ops) {
      bool again = true;
      while (again) {
        again = false;
        for (size_t p = 0; p < op.labels.size() && !again; ++p)
          for (size_t q = p + 1; q < op.labels.size() && !again; ++q) {
            if (op.labels[p] != op.labels[q]) continue;
            if (op.shape[p] != op.shape[q])
              ctx.Fail("einsum diagonal over dimensions of different sizes ", op.shape[p], " and ", op.shape[q]);
            std::vector<int64_t> st = StridesOf(op.shape);
            st[p] += st[q];
            st.erase(st.begin() + static_cast<std::ptrdiff_t>(q));
            op.shape.erase(op.shape.begin() + static_cast<std::ptrdiff_t>(q));
            op.labels.erase(op.labels.begin() + static_cast<std::ptrdiff_t>(q));
            op.data = StridedGather(op.data, op.shape, st);
            again = true;
          }
      }
    }
    auto needed_after = [&](size_t i) {  // labels used by output or operands after i
      std::vector<bool> keep(static_cast<size_t>(num_labels), false);
      for (int l : out_labels) keep[static_cast<size_t>(l)] = true;
      for (size_t j = i + 1; j < nin; ++j)
        for (int l : ops[j].labels) keep[static_cast<size_t>(l)] = true;
      return keep;
    };
    EOp<C> acc = std::move(ops[0]);
    {
      std::vector<bool> keep = needed_after(0), drop(acc.labels.size());
      for (size_t d = 0; d < acc.labels.size(); ++d) drop[d] = !keep[static_cast<size_t>(acc.labels[d])];
      SumAxes(acc, drop);
    }
    for (size_t i = 1; i < nin; ++i) acc = Contract(std::move(acc), std::move(ops[i]), needed_after(i));
    // Output order; broadcast any size-1 axis to the label's full size.
    std::vector<size_t> perm;
    for (int l : out_labels) {
      auto it = std::find(acc.labels.begin(), acc.labels.end(), l);
      if (it == acc.labels.end()) {  // label of size 1 only present via broadcasting: add it
        acc.labels.push_back(l);
        acc.shape.push_back(1);
        it = acc.labels.end() - 1;
      }
      perm.push_back(static_cast<size_t>(it - acc.labels.begin()));
    }
    Permute(acc, perm);
    for (size_t d = 0; d < acc.labels.size(); ++d) {
      int64_t full = size[static_cast<size_t>(acc.labels[d])];
      if (acc.shape[d] != full && acc.shape[d] == 1) ExpandAxis(acc, d, full);
    }
    Tensor& y = ctx.allocate_output(0, DataTypeOf<T>::value, acc.shape);
    T* yo = y.template data<T>();
    for (int64_t j = 0; j < y.numel(); ++j) yo[j] = StoreAs<T>(acc.data[static_cast<size_t>(j)]);
  }

  std::vector<std::vector<int>> inputs_;
  std::vector<int> output_;
  bool explicit_ = false;
};

}  // namespace

std::vector<KernelRow> EinsumKernels() {
  std::vector<DataType> einsum_types = types::Join(types::Ints(), {DataType::kFloat, DataType::kDouble,
                                                                   DataType::kFloat16});
  return {
      {"ai.onnx", "Einsum", 12, kMaxOnnxOpset, einsum_types, Make<Einsum>()},
  };
}

}  // namespace tessera::cpu
