// Control flow: If, Loop and Scan. The runtime compiles every subgraph
// attribute; kernels keep the Graph and run it through ctx.RunSubgraph.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {

namespace {

// ---- tensor slicing / stacking helpers ---------------------------------------

void CheckCopyable(const Tensor& t, const KernelContext& ctx, const char* what) {
  if (IsSubByte(t.dtype()))
    ctx.Fail(what, " of element type ", DataTypeName(t.dtype()), " (packed sub-byte) is not supported");
}

// Fills n elements with zero (numeric) or empty strings.
void ZeroElements(Tensor& dst, int64_t off, int64_t n) {
  if (n <= 0) return;
  if (dst.dtype() == DataType::kString) {
    std::string* d = dst.data<std::string>() + off;
    for (int64_t i = 0; i < n; ++i) d[i].clear();
    return;
  }
  const size_t es = ElementSize(dst);
  std::memset(static_cast<char*>(dst.raw_data()) + static_cast<size_t>(off) * es, 0, static_cast<size_t>(n) * es);
}

// The sub-tensor at index idx along axis (the axis removed).
Tensor SliceAxis(const Tensor& t, int64_t axis, int64_t idx) {
  Shape s = t.shape();
  const int64_t outer = SizeToDim(s, static_cast<size_t>(axis));
  const int64_t len = s[static_cast<size_t>(axis)];
  const int64_t inner = SizeFromDim(s, static_cast<size_t>(axis) + 1);
  s.erase(s.begin() + axis);
  if (outer == 1 && t.buffer()) {
    // Contiguous: a view, no copy.
    return Tensor(t.dtype(), s, t.buffer(), t.byte_offset() + static_cast<size_t>(idx * inner) * ElementSize(t));
  }
  Tensor out(t.dtype(), s);
  for (int64_t o = 0; o < outer; ++o) CopyElements(t, (o * len + idx) * inner, out, o * inner, inner);
  return out;
}

// Writes elem into out at index idx along axis (out = elem shape with a dim
// of size len inserted at axis).
void PlaceAxis(const Tensor& elem, Tensor& out, int64_t axis, int64_t idx) {
  const Shape& es = elem.shape();
  const int64_t outer = SizeToDim(es, static_cast<size_t>(axis));
  const int64_t inner = SizeFromDim(es, static_cast<size_t>(axis));
  const int64_t len = out.shape()[static_cast<size_t>(axis)];
  for (int64_t o = 0; o < outer; ++o) CopyElements(elem, o * inner, out, (o * len + idx) * inner, inner);
}

Shape InsertDim(Shape s, int64_t axis, int64_t len) {
  s.insert(s.begin() + axis, len);
  return s;
}

// Element type and shape (unknown dims as 0) that a body output declares,
// used to shape a scan output when the loop ran zero times.
Tensor EmptyFromDeclared(const ValueInfo& vi, int64_t axis_hint, const KernelContext& ctx) {
  if (!vi.type.is_tensor() || vi.type.elem_type == DataType::kUndefined)
    ctx.Fail("cannot create an empty scan output for '", vi.name, "': its type is not a known tensor type");
  Shape elem;
  if (vi.type.shape)
    for (const auto& d : *vi.type.shape) elem.push_back(d.known() ? d.value : 0);
  int64_t axis = axis_hint;
  if (axis < 0) axis += static_cast<int64_t>(elem.size()) + 1;
  axis = std::clamp<int64_t>(axis, 0, static_cast<int64_t>(elem.size()));
  return Tensor(vi.type.elem_type, InsertDim(elem, axis, 0));
}

bool ReadCond(const Value& v, const KernelContext& ctx, const char* what) {
  if (!v.is_tensor()) ctx.Fail(what, " must be a bool tensor, got ", v.Describe());
  const Tensor& t = v.tensor();
  if (t.numel() != 1) ctx.Fail(what, " must hold exactly one element, got ", t.Describe());
  if (t.dtype() == DataType::kBool) return t.data<bool>()[0];
  if (IsInteger(t.dtype()) || t.dtype() == DataType::kFloat || t.dtype() == DataType::kDouble)
    return t.GetAsDouble(0) != 0.0;
  ctx.Fail(what, " must be a bool tensor, got ", t.Describe());
}

// ---- If -----------------------------------------------------------------------

class If final : public OpKernel {
 public:
  explicit If(const KernelInfo& info) {
    then_ = info.attr_graph("then_branch");
    else_ = info.attr_graph("else_branch");
    if (!then_ || !else_) info.Fail("then_branch and else_branch are required");
    if (then_->outputs.size() != info.num_outputs() || else_->outputs.size() != info.num_outputs())
      info.Fail("then_branch has ", then_->outputs.size(), " outputs and else_branch ", else_->outputs.size(),
                ", but the node has ", info.num_outputs());
  }

  void Compute(KernelContext& ctx) const override {
    bool c = ReadCond(ctx.input_value(0), ctx, "cond");
    const Graph& g = c ? *then_ : *else_;
    std::vector<Value> outs = ctx.RunSubgraph(g, {});
    if (outs.size() != ctx.num_outputs())
      ctx.Fail(c ? "then" : "else", "_branch produced ", outs.size(), " values, expected ", ctx.num_outputs());
    for (size_t i = 0; i < outs.size(); ++i) {
      if (!ctx.output_requested(i)) continue;
      if (outs[i].empty()) ctx.Fail(c ? "then" : "else", "_branch did not produce output ", i);
      ctx.set_output(i, std::move(outs[i]));
    }
  }

 private:
  std::shared_ptr<Graph> then_, else_;
};

// ---- Loop ---------------------------------------------------------------------

class Loop final : public OpKernel {
 public:
  explicit Loop(const KernelInfo& info) {
    body_ = info.attr_graph("body");
    if (!body_) info.Fail("body is required");
    if (info.num_inputs() < 2) info.Fail("Loop needs at least the M and cond inputs (possibly empty)");
    num_carried_ = info.num_inputs() - 2;
    if (body_->inputs.size() != num_carried_ + 2)
      info.Fail("body has ", body_->inputs.size(), " inputs, expected ", num_carried_ + 2,
                " (iteration_num, cond and the loop-carried values)");
    if (body_->outputs.size() < num_carried_ + 1)
      info.Fail("body has ", body_->outputs.size(), " outputs, expected at least ", num_carried_ + 1);
    num_scan_ = body_->outputs.size() - 1 - num_carried_;
    if (info.num_outputs() > num_carried_ + num_scan_)
      info.Fail("node has ", info.num_outputs(), " outputs but the body yields ", num_carried_, " loop-carried and ",
                num_scan_, " scan outputs");
  }

  void Compute(KernelContext& ctx) const override {
    int64_t max_trips = -1;  // -1: unbounded
    if (ctx.has_input(0)) {
      const Tensor& m = ctx.input(0);
      if (m.numel() != 1 || !IsInteger(m.dtype())) ctx.Fail("M must be an integer scalar, got ", m.Describe());
      max_trips = std::max<int64_t>(0, m.GetAsInt64(0));
    }
    const bool has_cond = ctx.has_input(1);
    bool cond = has_cond ? ReadCond(ctx.input_value(1), ctx, "cond") : true;

    std::vector<Value> carried(num_carried_);
    for (size_t i = 0; i < num_carried_; ++i)
      if (ctx.has_input(2 + i)) carried[i] = ctx.input_value(2 + i);

    std::vector<std::vector<Tensor>> scans(num_scan_);
    std::vector<Value> in(num_carried_ + 2);
    int64_t it = 0;
    for (; (max_trips < 0 || it < max_trips) && cond; ++it) {
      in[0] = Value(Tensor::Scalar<int64_t>(it));
      in[1] = Value(Tensor::Scalar<bool>(cond));
      for (size_t i = 0; i < num_carried_; ++i) in[2 + i] = carried[i];
      std::vector<Value> outs = ctx.RunSubgraph(*body_, in);
      if (outs.size() != 1 + num_carried_ + num_scan_)
        ctx.Fail("body produced ", outs.size(), " values, expected ", 1 + num_carried_ + num_scan_);
      if (has_cond) cond = ReadCond(outs[0], ctx, "body's cond output");
      for (size_t i = 0; i < num_carried_; ++i) carried[i] = std::move(outs[1 + i]);
      for (size_t k = 0; k < num_scan_; ++k) {
        Value& v = outs[1 + num_carried_ + k];
        if (!v.is_tensor()) ctx.Fail("scan output ", k, " must be a tensor, got ", v.Describe());
        const Tensor& t = v.tensor();
        if (!scans[k].empty()) {
          const Tensor& first = scans[k].front();
          if (t.dtype() != first.dtype() || t.shape() != first.shape())
            ctx.Fail("scan output ", k, " changed from ", first.Describe(), " to ", t.Describe(), " at iteration ",
                     it);
        } else {
          CheckCopyable(t, ctx, "scan output");
        }
        scans[k].push_back(t);
      }
    }

    for (size_t i = 0; i < num_carried_ && i < ctx.num_outputs(); ++i) {
      if (!ctx.output_requested(i)) continue;
      if (carried[i].empty()) ctx.Fail("loop-carried value ", i, " has no value");
      ctx.set_output(i, carried[i]);
    }
    for (size_t k = 0; k < num_scan_ && num_carried_ + k < ctx.num_outputs(); ++k) {
      size_t o = num_carried_ + k;
      if (!ctx.output_requested(o)) continue;
      if (scans[k].empty()) {
        ctx.set_output(o, EmptyFromDeclared(body_->outputs[1 + num_carried_ + k], 0, ctx));
        continue;
      }
      const Tensor& first = scans[k].front();
      const int64_t n = static_cast<int64_t>(scans[k].size());
      Tensor& out = ctx.allocate_output(o, first.dtype(), InsertDim(first.shape(), 0, n));
      for (int64_t j = 0; j < n; ++j) CopyElements(scans[k][static_cast<size_t>(j)], 0, out, j * first.numel(),
                                                   first.numel());
    }
  }

 private:
  std::shared_ptr<Graph> body_;
  size_t num_carried_ = 0;
  size_t num_scan_ = 0;
};

// ---- Scan (opset 9+) ------------------------------------------------------------

// Checks that a Scan body takes the state variables then one slice per scan
// input, and returns how many scan outputs it yields after the new states.
size_t CheckScanBody(const KernelInfo& info, const Graph& body, size_t num_state, size_t num_scan_in) {
  if (body.inputs.size() != num_state + num_scan_in)
    info.Fail("body has ", body.inputs.size(), " inputs, expected ", num_state + num_scan_in);
  if (body.outputs.size() < num_state)
    info.Fail("body has ", body.outputs.size(), " outputs, fewer than the ", num_state, " state variables");
  const size_t num_scan_out = body.outputs.size() - num_state;
  if (info.num_outputs() > num_state + num_scan_out)
    info.Fail("node has ", info.num_outputs(), " outputs but the body yields ", num_state + num_scan_out);
  return num_scan_out;
}

// Directions are one 0 (forward) or 1 (reverse) per scanned tensor.
void CheckScanDirections(const KernelInfo& info, const std::vector<int64_t>& dirs, size_t count, const char* name) {
  if (dirs.size() != count) info.Fail(name, " must have ", count, " entries");
  for (int64_t d : dirs)
    if (d != 0 && d != 1) info.Fail(name, " must be 0 or 1, got ", d);
}


class Scan final : public OpKernel {
 public:
  explicit Scan(const KernelInfo& info) {
    body_ = info.attr_graph("body");
    if (!body_) info.Fail("body is required");
    int64_t m = info.attr_int("num_scan_inputs");
    if (m < 1 || static_cast<size_t>(m) > info.num_inputs())
      info.Fail("num_scan_inputs must be in [1, ", info.num_inputs(), "], got ", m);
    num_scan_in_ = static_cast<size_t>(m);
    num_state_ = info.num_inputs() - num_scan_in_;
    num_scan_out_ = CheckScanBody(info, *body_, num_state_, num_scan_in_);
    in_axes_ = info.attr_ints("scan_input_axes", std::vector<int64_t>(num_scan_in_, 0));
    in_dirs_ = info.attr_ints("scan_input_directions", std::vector<int64_t>(num_scan_in_, 0));
    out_axes_ = info.attr_ints("scan_output_axes", std::vector<int64_t>(num_scan_out_, 0));
    out_dirs_ = info.attr_ints("scan_output_directions", std::vector<int64_t>(num_scan_out_, 0));
    if (in_axes_.size() != num_scan_in_) info.Fail("scan_input_axes must have ", num_scan_in_, " entries");
    if (out_axes_.size() != num_scan_out_) info.Fail("scan_output_axes must have ", num_scan_out_, " entries");
    CheckScanDirections(info, in_dirs_, num_scan_in_, "scan_input_directions");
    CheckScanDirections(info, out_dirs_, num_scan_out_, "scan_output_directions");
  }

  void Compute(KernelContext& ctx) const override {
    std::vector<Value> state(num_state_);
    for (size_t i = 0; i < num_state_; ++i) state[i] = ctx.input_value(i);
    std::vector<const Tensor*> scan_in(num_scan_in_);
    std::vector<int64_t> axes(num_scan_in_);
    int64_t len = -1;
    for (size_t j = 0; j < num_scan_in_; ++j) {
      const Tensor& t = ctx.input(num_state_ + j);
      CheckCopyable(t, ctx, "scan input");
      if (t.rank() < 1) ctx.Fail("scan input ", j, " must have rank >= 1, got ", t.Describe());
      axes[j] = NormalizeAxis(in_axes_[j], t.rank(), ctx);
      int64_t l = t.dim(axes[j]);
      if (len >= 0 && l != len)
        ctx.Fail("scan inputs disagree on the sequence length (", len, " vs ", l, " for input ", j, ")");
      len = l;
      scan_in[j] = &t;
    }

    std::vector<Tensor> outs_acc(num_scan_out_);
    std::vector<int64_t> out_axes(num_scan_out_, 0);
    std::vector<Shape> elem_shapes(num_scan_out_);
    std::vector<DataType> elem_types(num_scan_out_);
    std::vector<Value> in(num_state_ + num_scan_in_);
    for (int64_t t = 0; t < len; ++t) {
      for (size_t i = 0; i < num_state_; ++i) in[i] = state[i];
      for (size_t j = 0; j < num_scan_in_; ++j) {
        int64_t idx = in_dirs_[j] ? len - 1 - t : t;
        in[num_state_ + j] = Value(SliceAxis(*scan_in[j], axes[j], idx));
      }
      std::vector<Value> outs = ctx.RunSubgraph(*body_, in);
      if (outs.size() != num_state_ + num_scan_out_)
        ctx.Fail("body produced ", outs.size(), " values, expected ", num_state_ + num_scan_out_);
      for (size_t i = 0; i < num_state_; ++i) state[i] = std::move(outs[i]);
      for (size_t k = 0; k < num_scan_out_; ++k) {
        const Value& v = outs[num_state_ + k];
        if (!v.is_tensor()) ctx.Fail("scan output ", k, " must be a tensor, got ", v.Describe());
        const Tensor& e = v.tensor();
        if (t == 0) {
          CheckCopyable(e, ctx, "scan output");
          int64_t r = e.rank() + 1;
          int64_t a = out_axes_[k];
          if (a < -r || a >= r) ctx.Fail("scan_output_axes[", k, "] = ", a, " is out of range for rank ", r);
          out_axes[k] = a < 0 ? a + r : a;
          elem_shapes[k] = e.shape();
          elem_types[k] = e.dtype();
          outs_acc[k] = Tensor(e.dtype(), InsertDim(e.shape(), out_axes[k], len));
        } else if (e.shape() != elem_shapes[k] || e.dtype() != elem_types[k]) {
          ctx.Fail("scan output ", k, " changed from ", outs_acc[k].Describe(), " element to ", e.Describe(),
                   " at iteration ", t);
        }
        PlaceAxis(e, outs_acc[k], out_axes[k], out_dirs_[k] ? len - 1 - t : t);
      }
    }

    for (size_t i = 0; i < num_state_ && i < ctx.num_outputs(); ++i)
      if (ctx.output_requested(i)) ctx.set_output(i, state[i]);
    for (size_t k = 0; k < num_scan_out_ && num_state_ + k < ctx.num_outputs(); ++k) {
      size_t o = num_state_ + k;
      if (!ctx.output_requested(o)) continue;
      if (len == 0) {
        ctx.set_output(o, EmptyFromDeclared(body_->outputs[num_state_ + k], out_axes_[k], ctx));
      } else {
        ctx.set_output(o, std::move(outs_acc[k]));
      }
    }
  }

 private:
  std::shared_ptr<Graph> body_;
  size_t num_state_ = 0, num_scan_in_ = 0, num_scan_out_ = 0;
  std::vector<int64_t> in_axes_, in_dirs_, out_axes_, out_dirs_;
};

// ---- Scan-8 (batched, optional sequence_lens) -----------------------------------

class Scan8 final : public OpKernel {
 public:
  explicit Scan8(const KernelInfo& info) {
    body_ = info.attr_graph("body");
    if (!body_) info.Fail("body is required");
    int64_t m = info.attr_int("num_scan_inputs");
    if (info.num_inputs() < 1 || m < 1 || static_cast<size_t>(m) > info.num_inputs() - 1)
      info.Fail("num_scan_inputs must be in [1, ", info.num_inputs() - 1, "], got ", m);
    num_scan_in_ = static_cast<size_t>(m);
    num_state_ = info.num_inputs() - 1 - num_scan_in_;
    num_scan_out_ = CheckScanBody(info, *body_, num_state_, num_scan_in_);
    dirs_ = info.attr_ints("directions", std::vector<int64_t>(num_scan_in_, 0));
    CheckScanDirections(info, dirs_, num_scan_in_, "directions");
  }

  void Compute(KernelContext& ctx) const override {
    const size_t first_state = 1;
    const size_t first_scan = 1 + num_state_;
    int64_t batch = -1, max_len = -1;
    for (size_t j = 0; j < num_scan_in_; ++j) {
      const Tensor& t = ctx.input(first_scan + j);
      CheckCopyable(t, ctx, "scan input");
      if (t.rank() < 2) ctx.Fail("scan input ", j, " must have rank >= 2 ([batch, sequence, ...]), got ", t.Describe());
      if (batch >= 0 && (t.dim(0) != batch || t.dim(1) != max_len))
        ctx.Fail("scan inputs disagree on batch size or sequence length");
      batch = t.dim(0);
      max_len = t.dim(1);
    }
    std::vector<int64_t> lens(static_cast<size_t>(batch), max_len);
    if (ctx.has_input(0)) {
      const Tensor& sl = ctx.input(0);
      if (!IsInteger(sl.dtype()) || sl.numel() != batch)
        ctx.Fail("sequence_lens must be an integer tensor of ", batch, " elements, got ", sl.Describe());
      for (int64_t b = 0; b < batch; ++b) {
        int64_t v = sl.GetAsInt64(b);
        if (v < 0 || v > max_len) ctx.Fail("sequence_lens[", b, "] = ", v, " is outside [0, ", max_len, "]");
        lens[static_cast<size_t>(b)] = v;
      }
    }
    for (size_t i = 0; i < num_state_; ++i) {
      const Tensor& s = ctx.input(first_state + i);
      CheckCopyable(s, ctx, "state");
      if (s.rank() < 1 || s.dim(0) != batch)
        ctx.Fail("state ", i, " must have the batch size ", batch, " as its first dimension, got ", s.Describe());
    }

    std::vector<Tensor> state_out(num_state_);
    std::vector<Tensor> scan_out(num_scan_out_);
    std::vector<Value> in(num_state_ + num_scan_in_);
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<Value> st(num_state_);
      for (size_t i = 0; i < num_state_; ++i) st[i] = Value(SliceAxis(ctx.input(first_state + i), 0, b));
      std::vector<Tensor> batch_scans(num_scan_in_);
      for (size_t j = 0; j < num_scan_in_; ++j) batch_scans[j] = SliceAxis(ctx.input(first_scan + j), 0, b);
      const int64_t n = lens[static_cast<size_t>(b)];
      for (int64_t t = 0; t < n; ++t) {
        for (size_t i = 0; i < num_state_; ++i) in[i] = st[i];
        for (size_t j = 0; j < num_scan_in_; ++j)
          in[num_state_ + j] = Value(SliceAxis(batch_scans[j], 0, dirs_[j] ? n - 1 - t : t));
        std::vector<Value> outs = ctx.RunSubgraph(*body_, in);
        if (outs.size() != num_state_ + num_scan_out_)
          ctx.Fail("body produced ", outs.size(), " values, expected ", num_state_ + num_scan_out_);
        for (size_t i = 0; i < num_state_; ++i) st[i] = std::move(outs[i]);
        for (size_t k = 0; k < num_scan_out_; ++k) {
          const Value& v = outs[num_state_ + k];
          if (!v.is_tensor()) ctx.Fail("scan output ", k, " must be a tensor, got ", v.Describe());
          const Tensor& e = v.tensor();
          Shape full = InsertDim(InsertDim(e.shape(), 0, max_len), 0, batch);
          if (!scan_out[k].defined()) {
            CheckCopyable(e, ctx, "scan output");
            scan_out[k] = Tensor(e.dtype(), full);
            ZeroElements(scan_out[k], 0, scan_out[k].numel());
          } else if (scan_out[k].shape() != full || scan_out[k].dtype() != e.dtype()) {
            ctx.Fail("scan output ", k, " element ", e.Describe(), " does not match earlier iterations");
          }
          CopyElements(e, 0, scan_out[k], (b * max_len + t) * e.numel(), e.numel());
        }
      }
      for (size_t i = 0; i < num_state_; ++i) {
        if (!st[i].is_tensor()) ctx.Fail("state ", i, " must be a tensor, got ", st[i].Describe());
        const Tensor& e = st[i].tensor();
        Shape full = InsertDim(e.shape(), 0, batch);
        if (!state_out[i].defined()) {
          CheckCopyable(e, ctx, "state");
          state_out[i] = Tensor(e.dtype(), full);
        } else if (state_out[i].shape() != full || state_out[i].dtype() != e.dtype()) {
          ctx.Fail("state ", i, " has shape ", e.Describe(), " in batch ", b, ", unlike earlier batches");
        }
        CopyElements(e, 0, state_out[i], b * e.numel(), e.numel());
      }
    }

    for (size_t i = 0; i < num_state_ && i < ctx.num_outputs(); ++i) {
      if (!ctx.output_requested(i)) continue;
      if (!state_out[i].defined()) {
        // Zero batches: the initial state is already [0, ...].
        ctx.set_output(i, ctx.input_value(first_state + i));
      } else {
        ctx.set_output(i, std::move(state_out[i]));
      }
    }
    for (size_t k = 0; k < num_scan_out_ && num_state_ + k < ctx.num_outputs(); ++k) {
      size_t o = num_state_ + k;
      if (!ctx.output_requested(o)) continue;
      if (!scan_out[k].defined()) {
        Tensor e = EmptyFromDeclared(body_->outputs[num_state_ + k], 0, ctx);  // [0, elem...]
        Shape full = e.shape();
        full[0] = max_len;
        full = InsertDim(full, 0, batch);
        Tensor z(e.dtype(), full);
        ZeroElements(z, 0, z.numel());
        ctx.set_output(o, z);
      } else {
        ctx.set_output(o, std::move(scan_out[k]));
      }
    }
  }

 private:
  std::shared_ptr<Graph> body_;
  size_t num_state_ = 0, num_scan_in_ = 0, num_scan_out_ = 0;
  std::vector<int64_t> dirs_;
};

// Rows from a version list: one per definition change, the last open-ended.
template <typename K>
void AddRows(std::vector<KernelRow>& rows, const char* op, const std::vector<int64_t>& versions) {
  for (size_t i = 0; i < versions.size(); ++i) {
    int64_t last = i + 1 < versions.size() ? versions[i + 1] - 1 : kMaxOnnxOpset;
    rows.push_back(KernelRow{"ai.onnx", op, versions[i], last, {}, Make<K>()});
  }
}

}  // namespace

std::vector<KernelRow> ControlFlowKernels() {
  std::vector<KernelRow> rows;
  // Later versions only widen the accepted types (sequences, optionals,
  // float8, int4...), which these kernels pass through unchanged.
  AddRows<If>(rows, "If", {1, 11, 13, 16, 19, 21, 23, 24, 25});
  AddRows<Loop>(rows, "Loop", {1, 11, 13, 16, 19, 21, 23, 24, 25});
  AddRows<Scan8>(rows, "Scan", {8});
  rows.back().last_opset = 8;
  AddRows<Scan>(rows, "Scan", {9, 11, 16, 19, 21, 23, 24, 25});
  return rows;
}

}  // namespace tessera::cpu
