// Data movement: views (Reshape, Flatten, Squeeze, Unsqueeze, Identity,
// inference Dropout) cost nothing on a plain value and one reorder to plain
// otherwise; Transpose is a reorder into permuted strides; Slice and Split
// copy windows out; Concat is
// oneDNN's concat in the producers' layout, or one host pass when the
// inputs' layouts differ or a BatchNormalization or a channel shuffle
// follows (dnnl_concat_norm.h, dnnl_channel_shuffle.h).
#include <algorithm>
#include <functional>
#include <optional>

#include "tessera/providers/common/shape_rules.h"
#include "tessera/providers/dnnl/dnnl_channel_shuffle.h"
#include "tessera/providers/dnnl/dnnl_compiler.h"
#include "tessera/providers/dnnl/dnnl_concat_norm.h"
#include "tessera/providers/dnnl/dnnl_families.h"

namespace tessera::dnnl_ep {

namespace {

std::string CheckView(const NodeQuery& q) {
  for (size_t i = 1; i < q.node.outputs.size(); ++i)
    if (!q.node.outputs[i].empty()) return "Dropout mask output";
  if (q.node.op_type == "Dropout") {
    KernelInfo info(q.node, q.opset);
    if (q.node.inputs.size() > 2 && !q.node.inputs[2].empty()) {
      const Tensor* t = q.constant_input(2);
      if (t == nullptr || t->GetAsInt64(0) != 0) return "training-mode Dropout";
    }
  }
  auto x = *q.input_type(0)->StaticShape(), y = *q.output_type(0)->StaticShape();
  if (y.empty()) return "scalar output";
  int64_t nx = 1, ny = 1;
  for (int64_t d : x) nx *= d;
  for (int64_t d : y) ny *= d;
  if (nx != ny) return "output size differs from the input's";
  // Squeeze/Unsqueeze: the axes must say what the shapes say (unique, in
  // range, squeezing only 1s); the CPU kernel reports a bad model otherwise.
  if (q.node.op_type == "Squeeze" || q.node.op_type == "Unsqueeze") {
    KernelInfo info(q.node, q.opset);
    std::vector<int64_t> axes;
    if (q.opset >= 13) {
      if (q.node.inputs.size() > 1 && !q.node.inputs[1].empty()) {
        const Tensor* t = q.constant_input(1);
        if (t == nullptr) return "axes not constant";
        axes = t->ToInt64Vector();
      }
    } else {
      axes = info.attr_ints("axes", {});
    }
    bool squeeze = q.node.op_type == "Squeeze";
    int64_t rank = static_cast<int64_t>(squeeze ? x.size() : y.size());
    if (!squeeze && axes.empty()) return "no axes";
    std::vector<bool> hit(static_cast<size_t>(rank), false);
    for (int64_t a : axes) {
      if (a < -rank || a >= rank) return "axis out of range";
      size_t k = static_cast<size_t>(a < 0 ? a + rank : a);
      if (hit[k]) return "axis given twice";
      hit[k] = true;
      if ((squeeze ? x[k] : y[k]) != 1) return "axis is not 1";
    }
    if (static_cast<int64_t>(squeeze ? x.size() - y.size() : y.size() - x.size()) !=
        static_cast<int64_t>(axes.empty() ? std::count(x.begin(), x.end(), 1) : axes.size()))
      return "axes do not match the shapes";
  }
  return "";
}

// A dense layout for `out`, the reshape of `in`'s dims, that keeps `in`'s
// memory order where axes map onto groups of axes (each output axis sorted
// by the largest stride among the input axes it covers): a channel merge of
// channels-last data stays channels-last. Plain when the dims do not align.
Desc ReshapedOrder(const Desc& in, const Dims& out) {
  const auto& b = in.data.format_desc.blocking;
  if (in.data.format_kind != dnnl_blocked || b.inner_nblks != 0) return PlainDesc(out);
  Dims dims = in.dims();
  std::vector<dnnl::memory::dim> key(out.size(), 0);
  size_t i = 0;
  for (size_t o = 0; o < out.size(); ++o) {
    dnnl::memory::dim want = out[o], have = 1;
    if (want == 1) continue;
    while (i < dims.size() && have < want) {
      have *= dims[i];
      key[o] = std::max(key[o], b.strides[i]);
      ++i;
    }
    if (have != want) return PlainDesc(out);
  }
  std::vector<int> order(out.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int>(k);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return key[x] > key[y]; });
  Dims strides(out.size());
  dnnl::memory::dim step = 1;
  for (size_t k = order.size(); k-- > 0;) {
    strides[static_cast<size_t>(order[k])] = step;
    step *= std::max<dnnl::memory::dim>(out[static_cast<size_t>(order[k])], 1);
  }
  return Desc(out, dnnl::memory::data_type::f32, strides);
}

void LowerView(Compiler& c, const Node& n) {
  int v = c.Use(n.inputs[0]);
  if (n.op_type == "Identity" || n.op_type == "Dropout") {
    c.Alias(n.outputs[0], v, c.DescOf(v));
    return;
  }
  Dims out = ToDims(c.ShapeOf(n.outputs[0]));
  // Splitting or merging axes that are adjacent in memory is a view of any
  // unblocked layout (a channel split of channels-last data, say).
  const Desc have = c.DescOf(v);
  if (have.data.format_kind == dnnl_blocked && have.data.format_desc.blocking.inner_nblks == 0) {
    try {
      c.Alias(n.outputs[0], v, have.reshape(out));
      return;
    } catch (const dnnl::error&) {
      // not expressible as a view: fall through to a plain copy
    }
  }
  // Otherwise one reorder: image-like outputs (rank 4-5) into a dense layout
  // that keeps the input's axis order (channels-last stays channels-last for
  // the convolutions that follow); others into plain, which is what MatMul,
  // Softmax and LayerNormalization read.
  Desc want = out.size() >= 4 ? ReshapedOrder(have, out) : PlainDesc(out);
  try {
    Desc want_in = want.reshape(have.dims());
    c.Alias(n.outputs[0], c.As(v, want_in), want);
  } catch (const dnnl::error&) {
    c.Alias(n.outputs[0], c.AsPlain(v), PlainDesc(out));
  }
}

std::string CheckTranspose(const NodeQuery& q) {
  size_t rank = q.input_type(0)->StaticShape()->size();
  if (rank < 2 || rank > 6) return "rank outside 2-6";
  std::vector<int64_t> perm = KernelInfo(q.node, q.opset).attr_ints("perm", {});
  if (!perm.empty()) {
    std::vector<bool> seen(rank, false);
    if (perm.size() != rank) return "perm has the wrong length";
    for (int64_t p : perm) {
      if (p < 0 || p >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(p)]) return "perm is not a permutation";
      seen[static_cast<size_t>(p)] = true;
    }
  }
  return "";
}

void LowerTranspose(Compiler& c, const Node& n) {
  KernelInfo info(n, c.OpsetOf(n));
  std::vector<int64_t> xs = c.ShapeOf(n.inputs[0]), ys = c.ShapeOf(n.outputs[0]);
  std::vector<int64_t> perm(xs.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(perm.size() - 1 - i);
  perm = info.attr_ints("perm", perm);
  int src = c.Use(n.inputs[0]);
  // y keeps x's physical axis order (y axis i is x axis perm[i] with its
  // stride): a dense input is transposed by relabelling its axes, no copy;
  // a blocked one is first reordered to dense. Channels-last data stays
  // channels-last, so the Reshapes around a channel shuffle stay cheap.
  int dense = c.As(src, DenseLike(c.DescOf(src), ToDims(xs)));
  const Desc dense_desc = c.DescOf(dense);
  const auto& xst = dense_desc.data.format_desc.blocking.strides;
  Dims y_strides(ys.size());
  for (size_t i = 0; i < perm.size(); ++i) y_strides[i] = xst[static_cast<size_t>(perm[i])];
  c.Alias(n.outputs[0], dense, Desc(ToDims(ys), dnnl::memory::data_type::f32, y_strides));
}

// Slice's window from its constant operands (opset 10+) or attributes,
// resolved by the CPU's rules; nullopt (with *why) when not static.
std::optional<cpu::SliceWindow> SliceWindowOf(const Node& n, int64_t opset, const std::vector<int64_t>& shape,
                                              const std::function<const Tensor*(size_t)>& constant, std::string* why) {
  std::vector<int64_t> starts, ends, axes, steps;
  bool has_axes = false, has_steps = false;
  if (opset < 10) {
    KernelInfo info(n, opset);
    starts = info.attr_ints("starts");
    ends = info.attr_ints("ends");
    has_axes = info.has_attr("axes");
    if (has_axes) axes = info.attr_ints("axes");
  } else {
    auto read = [&](size_t i, std::vector<int64_t>* out, bool* present) {
      if (i >= n.inputs.size() || n.inputs[i].empty()) return true;
      const Tensor* t = constant(i);
      if (t == nullptr) return false;
      *out = t->ToInt64Vector();
      if (present) *present = true;
      return true;
    };
    if (!read(1, &starts, nullptr) || !read(2, &ends, nullptr) || !read(3, &axes, &has_axes) ||
        !read(4, &steps, &has_steps)) {
      *why = "starts/ends/axes/steps not constant";
      return std::nullopt;
    }
  }
  std::vector<Value> none;
  KernelContext ctx(n, {}, &none, nullptr, nullptr);  // for the rules' error messages only
  cpu::SliceWindow w = cpu::ResolveSlice(ctx, shape, starts, ends, has_axes ? &axes : nullptr, has_steps ? &steps : nullptr);
  for (int64_t st : w.step)
    if (st != 1) {
      *why = "strided slice";
      return std::nullopt;
    }
  return w;
}

std::string CheckSlice(const NodeQuery& q) {
  std::string why;
  auto x = *q.input_type(0)->StaticShape();
  try {
    auto w = SliceWindowOf(q.node, q.opset, x, [&](size_t i) { return q.constant_input(i); }, &why);
    if (!w) return why;
    if (w->out_shape != *q.output_type(0)->StaticShape()) return "output shape disagrees with the window";
  } catch (const Error& e) {
    return e.what();  // the CPU kernel reports it properly
  }
  return "";
}

// A window of the input's own layout when that layout allows one (plain or
// channels-last), copied out densely in the same dim order.
void LowerSlice(Compiler& c, const Node& n) {
  std::vector<int64_t> xs = c.ShapeOf(n.inputs[0]);
  std::string why;
  auto w = SliceWindowOf(n, c.OpsetOf(n), xs, [&](size_t i) { return c.ConstantOf(n.inputs[i]); }, &why);
  if (!w) c.Fail(n, why);
  int src = c.Use(n.inputs[0]);
  if (c.DescOf(src).data.format_desc.blocking.inner_nblks != 0) src = c.AsPlain(src);
  const Desc sd = c.DescOf(src);
  Dims out = ToDims(w->out_shape);
  Desc window = sd.submemory_desc(out, ToDims(w->begin));
  int view = c.Alias("", src, window);
  int dst = c.Define(n.outputs[0], DenseLike(sd, out));
  dnnl::reorder::primitive_desc pd(c.engine(), window, c.engine(), c.DescOf(dst), c.Attr());
  c.Emit(pd, dnnl::reorder(pd), {{DNNL_ARG_FROM, view}, {DNNL_ARG_TO, dst}}, n.Label());
}

// The piece sizes ONNX's rules give for this Split, or "" in *why: the
// split sizes (attribute before opset 13, a constant input from 13), else
// num_outputs (opset 18: ceil-sized pieces, the last smaller), else equal
// pieces, which must divide the axis.
std::vector<int64_t> SplitSizes(const NodeQuery& q, int64_t extent, std::string* why) {
  KernelInfo info(q.node, q.opset);
  const int64_t outputs = static_cast<int64_t>(q.node.outputs.size());
  std::vector<int64_t> sizes;
  if (q.opset < 13 && info.has_attr("split")) {
    sizes = info.attr_ints("split");
  } else if (q.opset >= 13 && q.node.inputs.size() > 1 && !q.node.inputs[1].empty()) {
    const Tensor* t = q.constant_input(1);
    if (t == nullptr) return *why = "split sizes not constant", sizes;
    sizes = t->ToInt64Vector();
  } else if (q.opset >= 18 && info.has_attr("num_outputs")) {
    const int64_t piece = (extent + outputs - 1) / std::max<int64_t>(outputs, 1);
    for (int64_t k = 0; k < outputs; ++k) sizes.push_back(std::max<int64_t>(0, std::min(piece, extent - k * piece)));
  } else {
    if (outputs == 0 || extent % outputs != 0) return *why = "the axis does not split evenly", sizes;
    sizes.assign(static_cast<size_t>(outputs), extent / outputs);
  }
  if (static_cast<int64_t>(sizes.size()) != outputs) *why = "split sizes do not match the outputs";
  return sizes;
}

// Split: windows at the offsets the piece sizes give (checked against the
// static output shapes).
std::string CheckSplit(const NodeQuery& q) {
  auto x = *q.input_type(0)->StaticShape();
  const int64_t rank = static_cast<int64_t>(x.size());
  int64_t axis = KernelInfo(q.node, q.opset).attr_int("axis", 0);
  if (axis < -rank || axis >= rank) return "axis out of range";
  if (axis < 0) axis += rank;
  std::string why;
  const std::vector<int64_t> sizes = SplitSizes(q, x[static_cast<size_t>(axis)], &why);
  if (!why.empty()) return why;
  int64_t along = 0;
  for (size_t i = 0; i < q.node.outputs.size(); ++i) {
    if (q.node.outputs[i].empty()) return "an omitted output";
    const TypeInfo* t = q.output_type(i);
    auto s = t != nullptr ? t->StaticShape() : std::nullopt;
    if (!s) return "output " + std::to_string(i) + " shape not static";
    if (s->size() != x.size()) return "output ranks differ from the input's";
    for (int64_t k = 0; k < rank; ++k) {
      if ((*s)[static_cast<size_t>(k)] <= 0) return "an empty output";
      if (k != axis && (*s)[static_cast<size_t>(k)] != x[static_cast<size_t>(k)]) return "outputs differ off the axis";
    }
    if ((*s)[static_cast<size_t>(axis)] != sizes[i]) return "an output's size disagrees with the split";
    along += (*s)[static_cast<size_t>(axis)];
  }
  if (along != x[static_cast<size_t>(axis)]) return "output sizes along the axis do not add up";
  return "";
}

// Each piece a window of the input's own layout (plain or channels-last),
// copied out densely, as Slice.
void LowerSplit(Compiler& c, const Node& n) {
  std::vector<int64_t> xs = c.ShapeOf(n.inputs[0]);
  int64_t axis = KernelInfo(n, c.OpsetOf(n)).attr_int("axis", 0);
  if (axis < 0) axis += static_cast<int64_t>(xs.size());
  int src = c.Use(n.inputs[0]);
  if (c.DescOf(src).data.format_desc.blocking.inner_nblks != 0) src = c.AsPlain(src);
  const Desc sd = c.DescOf(src);
  Dims begin(xs.size(), 0);
  for (const std::string& name : n.outputs) {
    const Dims out = ToDims(c.ShapeOf(name));
    int view = c.Alias("", src, sd.submemory_desc(out, begin));
    int dst = c.Define(name, DenseLike(sd, out));
    dnnl::reorder::primitive_desc pd(c.engine(), c.DescOf(view), c.engine(), c.DescOf(dst), c.Attr());
    c.Emit(pd, dnnl::reorder(pd), {{DNNL_ARG_FROM, view}, {DNNL_ARG_TO, dst}}, n.Label() + " -> " + name);
    begin[static_cast<size_t>(axis)] += out[static_cast<size_t>(axis)];
  }
}

std::string CheckConcat(const NodeQuery& q) {
  auto y = *q.output_type(0)->StaticShape();
  int64_t rank = static_cast<int64_t>(y.size());
  int64_t axis = KernelInfo(q.node, q.opset).attr_int("axis", 1);
  if (axis < -rank || axis >= rank) return "axis out of range";
  if (axis < 0) axis += rank;
  int64_t along = 0;
  for (size_t i = 0; i < q.node.inputs.size(); ++i) {
    if (q.node.inputs[i].empty()) return "omitted input";
    auto s = *q.input_type(i)->StaticShape();
    if (static_cast<int64_t>(s.size()) != rank) return "input ranks differ";
    for (int64_t k = 0; k < rank; ++k)
      if (k != axis && s[static_cast<size_t>(k)] != y[static_cast<size_t>(k)]) return "inputs differ off the axis";
    along += s[static_cast<size_t>(axis)];
  }
  if (along != y[static_cast<size_t>(axis)]) return "sizes along the axis do not add up";
  return "";
}

void LowerConcat(Compiler& c, const Node& n) {
  KernelInfo info(n, c.OpsetOf(n));
  int64_t rank = static_cast<int64_t>(c.ShapeOf(n.outputs[0]).size());
  int64_t axis = info.attr_int("axis", 1);
  if (axis < 0) axis += rank;
  std::vector<int> srcs;
  std::vector<Desc> descs;
  for (const auto& in : n.inputs) {
    srcs.push_back(c.Use(in));
    descs.push_back(c.DescOf(srcs.back()));
  }
  if (LowerChannelConcat(c, n, axis, srcs)) return;
  // oneDNN's fast concat needs one layout: unless every input is blocked
  // alike, all take the first input's axis order (dense), or plain.
  auto same_blocks = [](const Desc& x, const Desc& y) {
    const auto& a = x.data.format_desc.blocking;
    const auto& b = y.data.format_desc.blocking;
    return a.inner_nblks == b.inner_nblks && std::equal(a.inner_blks, a.inner_blks + a.inner_nblks, b.inner_blks);
  };
  bool blocked_alike = descs[0].data.format_desc.blocking.inner_nblks != 0 &&
                       std::all_of(descs.begin(), descs.end(), [&](const Desc& d) { return same_blocks(d, descs[0]); });
  if (!blocked_alike) {
    // The axis order of the first unblocked input (channels-last, usually).
    Desc like = PlainDesc(descs[0].dims());
    for (const Desc& d : descs)
      if (d.data.format_desc.blocking.inner_nblks == 0) {
        like = d;
        break;
      }
    for (size_t i = 0; i < srcs.size(); ++i) {
      srcs[i] = c.As(srcs[i], DenseLike(like, descs[i].dims()));
      descs[i] = c.DescOf(srcs[i]);
    }
  }
  if (LowerChannelShuffle(c, n, axis, srcs)) return;
  dnnl::concat::primitive_desc pd(static_cast<int>(axis), descs, c.engine(), c.Attr());
  std::vector<std::pair<int, int>> args;
  for (size_t i = 0; i < srcs.size(); ++i) args.push_back({DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i), srcs[i]});
  args.push_back({DNNL_ARG_DST, c.Define(n.outputs[0], pd.dst_desc())});
  c.Emit(pd, dnnl::concat(pd), std::move(args), n.Label());
}

}  // namespace

std::vector<DnnlRow> ShapeRows() {
  std::vector<DnnlRow> rows;
  auto add = [&](const char* op, int64_t first, std::vector<size_t> meta, std::string (*check)(const NodeQuery&),
                 void (*lower)(Compiler&, const Node&)) {
    rows.push_back(Row("ai.onnx", op, first, kMaxOnnxOpset, std::move(meta), check, lower));
  };
  add("Reshape", 5, {1}, CheckView, LowerView);
  add("Flatten", 1, {}, CheckView, LowerView);
  add("Squeeze", 1, {1}, CheckView, LowerView);
  add("Unsqueeze", 1, {1}, CheckView, LowerView);
  add("Identity", 1, {}, CheckView, LowerView);
  add("Dropout", 7, {1, 2}, CheckView, LowerView);
  add("Transpose", 1, {}, CheckTranspose, LowerTranspose);
  add("Slice", 1, {1, 2, 3, 4}, CheckSlice, LowerSlice);
  add("Concat", 4, {}, CheckConcat, LowerConcat);
  add("Split", 2, {1}, CheckSplit, LowerSplit);
  return rows;
}

}  // namespace tessera::dnnl_ep
