// Sequence and optional kernels: SequenceEmpty / Construct / At / Insert /
// Erase / Length, SplitToSequence, ConcatFromSequence, SequenceMap, Optional,
// OptionalHasElement and OptionalGetElement.
//
// Sequences are immutable values (a shared_ptr to a SequenceValue); tensors in
// them share their buffers with the producer, as every tensor in the runtime
// is written once and then only read. So SequenceAt / Insert / Erase move
// handles around and never copy tensor data.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {

namespace {

// ---- helpers -------------------------------------------------------------------

const SequenceValue& InputSequence(const KernelContext& ctx, size_t i) {
  const Value& v = ctx.input_value(i);
  if (!v.is_sequence()) ctx.Fail("input ", i, " must be a sequence, got a ", v.Describe());
  return v.sequence();
}

// Element type of a sequence's tensors: the declared one, else the first item's.
DataType SequenceTensorType(const SequenceValue& s) {
  if (s.elem_type.is_tensor() && s.elem_type.elem_type != DataType::kUndefined) return s.elem_type.elem_type;
  for (const auto& item : s.items)
    if (item.is_tensor()) return item.tensor().dtype();
  return DataType::kUndefined;
}

// A position input: an int32/int64 scalar.
int64_t ReadPosition(const KernelContext& ctx, size_t i) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DataType::kInt32 && t.dtype() != DataType::kInt64)
    ctx.Fail("position must be an int32 or int64 scalar, got ", t.Describe());
  if (t.numel() != 1 || t.rank() > 1) ctx.Fail("position must be a scalar, got ", t.Describe());
  return t.GetAsInt64(0);
}

// Maps position into [0, n) (or [0, n] when allow_end), failing out of range.
size_t NormalizePosition(int64_t pos, size_t size, bool allow_end, const KernelContext& ctx) {
  const int64_t n = static_cast<int64_t>(size);
  const int64_t hi = allow_end ? n : n - 1;
  if (pos < -n || pos > hi)
    ctx.Fail("position ", pos, " is out of range [", -n, ", ", hi, "] for a sequence of ", n, " tensors");
  return static_cast<size_t>(pos < 0 ? pos + n : pos);
}

void CheckCopyable(DataType dt, const KernelContext& ctx) {
  if (dt == DataType::kUndefined || IsSubByte(dt))
    ctx.Fail("element type ", DataTypeName(dt), " is not supported by this operator");
}

// ---- SequenceEmpty --------------------------------------------------------------

class SequenceEmpty final : public OpKernel {
 public:
  explicit SequenceEmpty(const KernelInfo& info) {
    int64_t dt = info.attr_int("dtype", static_cast<int64_t>(DataType::kFloat));
    if (dt < 0 || dt > kMaxDataTypeCode || !IsKnownDataType(static_cast<int32_t>(dt)) ||
        dt == static_cast<int64_t>(DataType::kUndefined))
      info.Fail("dtype ", dt, " is not a valid tensor element type");
    dtype_ = static_cast<DataType>(dt);
  }
  void Compute(KernelContext& ctx) const override {
    SequenceValue s;
    s.elem_type = TypeInfo::Tensor(dtype_);
    ctx.set_output(0, Value::Sequence(std::move(s)));
  }

 private:
  DataType dtype_ = DataType::kFloat;
};

// ---- SequenceConstruct ----------------------------------------------------------

class SequenceConstruct final : public OpKernel {
 public:
  explicit SequenceConstruct(const KernelInfo& info) {
    if (info.num_inputs() < 1) info.Fail("SequenceConstruct needs at least one input");
  }
  void Compute(KernelContext& ctx) const override {
    SequenceValue s;
    s.items.reserve(ctx.num_inputs());
    DataType dt = DataType::kUndefined;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& t = ctx.input(i);
      if (i == 0) dt = t.dtype();
      else if (t.dtype() != dt)
        ctx.Fail("all inputs must have the same element type: input 0 is ", DataTypeName(dt), " but input ", i,
                 " is ", DataTypeName(t.dtype()));
      s.items.emplace_back(t);
    }
    s.elem_type = TypeInfo::Tensor(dt);
    ctx.set_output(0, Value::Sequence(std::move(s)));
  }
};

// ---- SequenceAt -------------------------------------------------------------------

class SequenceAt final : public OpKernel {
 public:
  explicit SequenceAt(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const SequenceValue& s = InputSequence(ctx, 0);
    size_t p = NormalizePosition(ReadPosition(ctx, 1), s.items.size(), false, ctx);
    ctx.set_output(0, s.items[p]);
  }
};

// ---- SequenceInsert ---------------------------------------------------------------

class SequenceInsert final : public OpKernel {
 public:
  explicit SequenceInsert(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const SequenceValue& s = InputSequence(ctx, 0);
    const Tensor& t = ctx.input(1);
    DataType dt = SequenceTensorType(s);
    if (dt != DataType::kUndefined && t.dtype() != dt)
      ctx.Fail("cannot insert a ", t.Describe(), " tensor into a sequence of ", DataTypeName(dt), " tensors");
    size_t p = s.items.size();
    if (ctx.has_input(2)) p = NormalizePosition(ReadPosition(ctx, 2), s.items.size(), true, ctx);
    SequenceValue out;
    out.elem_type = s.elem_type.is_tensor() && s.elem_type.elem_type != DataType::kUndefined
                        ? s.elem_type
                        : TypeInfo::Tensor(t.dtype());
    out.items.reserve(s.items.size() + 1);
    out.items.insert(out.items.end(), s.items.begin(), s.items.begin() + static_cast<std::ptrdiff_t>(p));
    out.items.emplace_back(t);
    out.items.insert(out.items.end(), s.items.begin() + static_cast<std::ptrdiff_t>(p), s.items.end());
    ctx.set_output(0, Value::Sequence(std::move(out)));
  }
};

// ---- SequenceErase ----------------------------------------------------------------

class SequenceErase final : public OpKernel {
 public:
  explicit SequenceErase(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const SequenceValue& s = InputSequence(ctx, 0);
    if (s.items.empty()) ctx.Fail("cannot erase from an empty sequence");
    size_t p = s.items.size() - 1;
    if (ctx.has_input(1)) p = NormalizePosition(ReadPosition(ctx, 1), s.items.size(), false, ctx);
    SequenceValue out;
    out.elem_type = s.elem_type;
    out.items.reserve(s.items.size() - 1);
    for (size_t i = 0; i < s.items.size(); ++i)
      if (i != p) out.items.push_back(s.items[i]);
    ctx.set_output(0, Value::Sequence(std::move(out)));
  }
};

// ---- SequenceLength ---------------------------------------------------------------

class SequenceLength final : public OpKernel {
 public:
  explicit SequenceLength(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const SequenceValue& s = InputSequence(ctx, 0);
    ctx.set_output(0, Value(Tensor::Scalar<int64_t>(static_cast<int64_t>(s.items.size()))));
  }
};

// ---- SplitToSequence ----------------------------------------------------------------

class SplitToSequence final : public OpKernel {
 public:
  explicit SplitToSequence(const KernelInfo& info) {
    axis_ = info.attr_int("axis", 0);
    int64_t k = info.attr_int("keepdims", 1);
    if (k != 0 && k != 1) info.Fail("keepdims must be 0 or 1, got ", k);
    keepdims_ = k == 1;
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    CheckCopyable(x.dtype(), ctx);
    if (x.rank() < 1) ctx.Fail("input must have rank >= 1 to be split, got ", x.Describe());
    const int64_t axis = NormalizeAxis(axis_, x.rank(), ctx);
    const int64_t dim = x.dim(axis);

    // Chunk lengths along axis.
    std::vector<int64_t> lengths;
    bool squeeze = false;
    if (ctx.has_input(1)) {
      const Tensor& split = ctx.input(1);
      if (split.dtype() != DataType::kInt32 && split.dtype() != DataType::kInt64)
        ctx.Fail("split must be an int32 or int64 tensor, got ", split.Describe());
      if (split.rank() == 0) {
        const int64_t chunk = split.GetAsInt64(0);
        if (chunk <= 0) ctx.Fail("a scalar split must be positive, got ", chunk);
        for (int64_t start = 0; start < dim; start += chunk) lengths.push_back(std::min(chunk, dim - start));
      } else if (split.rank() == 1) {
        int64_t sum = 0;
        lengths = split.ToInt64Vector();
        for (int64_t l : lengths)
          if (l < 0) ctx.Fail("split lengths must be >= 0, got ", l);
        for (int64_t l : lengths) {
          sum += l;
          if (sum > dim) break;  // also keeps the sum from overflowing
        }
        if (sum != dim)
          ctx.Fail("split lengths must sum to the size ", dim, " of axis ", axis, " of input ", x.Describe());
      } else {
        ctx.Fail("split must be a scalar or a 1-D tensor, got ", split.Describe());
      }
    } else {
      lengths.assign(static_cast<size_t>(dim), 1);
      squeeze = !keepdims_;
    }

    const Shape& xs = x.shape();
    const int64_t outer = SizeToDim(xs, static_cast<size_t>(axis));
    const int64_t inner = SizeFromDim(xs, static_cast<size_t>(axis) + 1);
    const size_t es = ElementSize(x);
    SequenceValue out;
    out.elem_type = TypeInfo::Tensor(x.dtype());
    out.items.reserve(lengths.size());
    int64_t start = 0;
    for (int64_t len : lengths) {
      Shape s = xs;
      s[static_cast<size_t>(axis)] = len;
      if (squeeze) s.erase(s.begin() + axis);
      if (outer == 1 && x.buffer() && len * inner > 0) {
        // Contiguous chunk: share the input's buffer.
        out.items.emplace_back(
            Tensor(x.dtype(), std::move(s), x.buffer(), x.byte_offset() + static_cast<size_t>(start * inner) * es));
      } else {
        Tensor t(x.dtype(), std::move(s));
        for (int64_t o = 0; o < outer; ++o) CopyElements(x, (o * dim + start) * inner, t, o * len * inner, len * inner);
        out.items.emplace_back(std::move(t));
      }
      start += len;
    }
    ctx.set_output(0, Value::Sequence(std::move(out)));
  }

 private:
  int64_t axis_ = 0;
  bool keepdims_ = true;
};

// ---- ConcatFromSequence ---------------------------------------------------------------

class ConcatFromSequence final : public OpKernel {
 public:
  explicit ConcatFromSequence(const KernelInfo& info) {
    axis_ = info.attr_int("axis");
    int64_t n = info.attr_int("new_axis", 0);
    if (n != 0 && n != 1) info.Fail("new_axis must be 0 or 1, got ", n);
    new_axis_ = n == 1;
  }

  void Compute(KernelContext& ctx) const override {
    const SequenceValue& s = InputSequence(ctx, 0);
    if (s.items.empty()) ctx.Fail("cannot concatenate an empty sequence");
    std::vector<const Tensor*> ts;
    ts.reserve(s.items.size());
    for (size_t i = 0; i < s.items.size(); ++i) {
      if (!s.items[i].is_tensor()) ctx.Fail("sequence item ", i, " is a ", s.items[i].Describe(), ", not a tensor");
      ts.push_back(&s.items[i].tensor());
    }
    const Tensor& first = *ts[0];
    CheckCopyable(first.dtype(), ctx);
    const int64_t r = first.rank();
    if (!new_axis_ && r == 0) ctx.Fail("cannot concatenate scalars without new_axis=1");
    const int64_t out_rank = new_axis_ ? r + 1 : r;
    const int64_t axis = NormalizeAxis(axis_, out_rank, ctx);

    // Shapes of the pieces as seen in the output's rank (a 1 inserted for new_axis).
    Shape out_shape = first.shape();
    if (new_axis_) out_shape.insert(out_shape.begin() + axis, 0);
    else out_shape[static_cast<size_t>(axis)] = 0;
    for (size_t i = 0; i < ts.size(); ++i) {
      const Tensor& t = *ts[i];
      if (t.dtype() != first.dtype())
        ctx.Fail("sequence items must share one element type: item 0 is ", first.Describe(), " but item ", i, " is ",
                 t.Describe());
      if (t.rank() != r)
        ctx.Fail("sequence items must share one rank: item 0 is ", first.Describe(), " but item ", i, " is ",
                 t.Describe());
      for (int64_t d = 0; d < r; ++d) {
        if (!new_axis_ && d == axis) continue;
        if (t.dim(d) != first.dim(d))
          ctx.Fail("sequence item ", i, " has shape ", ShapeToString(t.shape()), " but item 0 has ",
                   ShapeToString(first.shape()), new_axis_ ? " (stacking needs equal shapes)" :
                   " (only the concatenation axis may differ)");
      }
      out_shape[static_cast<size_t>(axis)] += new_axis_ ? 1 : t.dim(axis);
    }

    Tensor& out = ctx.allocate_output(0, first.dtype(), out_shape);
    const int64_t outer = SizeToDim(out_shape, static_cast<size_t>(axis));
    const int64_t inner = SizeFromDim(out_shape, static_cast<size_t>(axis) + 1);
    const int64_t out_row = out_shape[static_cast<size_t>(axis)] * inner;
    // Offset of each piece inside one output row, and its row length.
    std::vector<int64_t> piece_off(ts.size()), piece_len(ts.size());
    int64_t off = 0;
    for (size_t i = 0; i < ts.size(); ++i) {
      piece_len[i] = (new_axis_ ? 1 : ts[i]->dim(axis)) * inner;
      piece_off[i] = off;
      off += piece_len[i];
    }
    if (out.numel() == 0) return;
    const int64_t n = outer * static_cast<int64_t>(ts.size());
    const int64_t avg = std::max<int64_t>(1, out.numel() / std::max<int64_t>(1, n));
    ParallelFor(ctx.thread_pool(), n, std::max<int64_t>(1, 16384 / avg), [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        const int64_t o = k / static_cast<int64_t>(ts.size());
        const size_t i = static_cast<size_t>(k % static_cast<int64_t>(ts.size()));
        CopyElements(*ts[i], o * piece_len[i], out, o * out_row + piece_off[i], piece_len[i]);
      }
    });
  }

 private:
  int64_t axis_ = 0;
  bool new_axis_ = false;
};

// ---- SequenceMap ------------------------------------------------------------------------

class SequenceMap final : public OpKernel {
 public:
  explicit SequenceMap(const KernelInfo& info) {
    body_ = info.attr_graph("body");
    if (!body_) info.Fail("body is required");
    if (info.num_inputs() < 1) info.Fail("SequenceMap needs an input sequence");
    if (body_->inputs.size() != info.num_inputs())
      info.Fail("body has ", body_->inputs.size(), " inputs but the node has ", info.num_inputs());
    if (body_->outputs.size() != info.num_outputs())
      info.Fail("body has ", body_->outputs.size(), " outputs but the node has ", info.num_outputs());
  }

  void Compute(KernelContext& ctx) const override {
    const SequenceValue& s0 = InputSequence(ctx, 0);
    const size_t n = s0.items.size();
    const size_t num_in = ctx.num_inputs();
    std::vector<const Value*> ins(num_in);
    for (size_t j = 0; j < num_in; ++j) {
      ins[j] = &ctx.input_value(j);
      if (ins[j]->is_sequence() && ins[j]->sequence().items.size() != n)
        ctx.Fail("input sequence ", j, " has ", ins[j]->sequence().items.size(), " items but input 0 has ", n);
    }
    const size_t num_out = body_->outputs.size();
    std::vector<SequenceValue> outs(num_out);
    for (auto& o : outs) o.items.reserve(n);
    std::vector<Value> args(num_in);
    for (size_t it = 0; it < n; ++it) {
      for (size_t j = 0; j < num_in; ++j) args[j] = ins[j]->is_sequence() ? ins[j]->sequence().items[it] : *ins[j];
      std::vector<Value> res = ctx.RunSubgraph(*body_, args);
      if (res.size() != num_out) ctx.Fail("body produced ", res.size(), " values, expected ", num_out);
      for (size_t k = 0; k < num_out; ++k) {
        if (res[k].empty()) ctx.Fail("body did not produce output ", k, " at iteration ", it);
        if (res[k].is_tensor() && !outs[k].items.empty() && outs[k].items[0].is_tensor() &&
            outs[k].items[0].tensor().dtype() != res[k].tensor().dtype())
          ctx.Fail("body output ", k, " changed element type from ", DataTypeName(outs[k].items[0].tensor().dtype()),
                   " to ", DataTypeName(res[k].tensor().dtype()), " at iteration ", it);
        outs[k].items.push_back(std::move(res[k]));
      }
    }
    for (size_t k = 0; k < num_out; ++k) {
      const TypeInfo& declared = body_->outputs[k].type;
      if (!outs[k].items.empty() && outs[k].items[0].is_tensor()) {
        outs[k].elem_type = TypeInfo::Tensor(outs[k].items[0].tensor().dtype());
      } else if (declared.kind != TypeInfo::Kind::kUnknown) {
        outs[k].elem_type = declared;
        outs[k].elem_type.shape.reset();
      }
      if (ctx.output_requested(k)) ctx.set_output(k, Value::Sequence(std::move(outs[k])));
    }
  }

 private:
  std::shared_ptr<Graph> body_;
};

// ---- Optional -----------------------------------------------------------------------------

class OptionalOp final : public OpKernel {
 public:
  explicit OptionalOp(const KernelInfo& info) {
    if (info.has_attr("type")) {
      const Attribute& a = info.attr("type");
      if (a.type != AttributeType::kTypeProto) info.Fail("attribute 'type' must be a type_proto");
      type_ = a.tp;
      has_type_ = true;
    }
    if (!info.has_input(0) && !has_type_) info.Fail("an Optional without input needs the 'type' attribute");
  }
  void Compute(KernelContext& ctx) const override {
    if (ctx.has_input(0)) {
      ctx.set_output(0, ctx.input_value(0));
      return;
    }
    if (!has_type_) ctx.Fail("input is missing and the 'type' attribute is not set");
    ctx.set_output(0, Value::None(type_));
  }

 private:
  TypeInfo type_;
  bool has_type_ = false;
};

// ---- OptionalHasElement ------------------------------------------------------------------
// Opset 15 takes an optional; 18 also a tensor or sequence, or no input at all.
// At run time an optional that holds something is that value, so both read the same.

class OptionalHasElement final : public OpKernel {
 public:
  explicit OptionalHasElement(const KernelInfo& info) {
    if (info.opset() < 18 && !info.has_input(0)) info.Fail("the input is required before opset 18");
  }
  void Compute(KernelContext& ctx) const override {
    bool has = ctx.has_input(0) && !ctx.input_value(0).is_none();
    ctx.set_output(0, Value(Tensor::Scalar<bool>(has)));
  }
};

// ---- OptionalGetElement ------------------------------------------------------------------

class OptionalGetElement final : public OpKernel {
 public:
  explicit OptionalGetElement(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    if (!ctx.has_input(0)) ctx.Fail("the optional input has no value");
    const Value& v = ctx.input_value(0);
    if (v.is_none()) ctx.Fail("the optional input is empty (", v.none().elem_type.TypeString(), ")");
    ctx.set_output(0, v);
  }
};

}  // namespace

std::vector<KernelRow> SequenceKernels() {
  // The spec's tensor types for sequence/optional elements: numeric (no
  // bfloat16), string, bool and complex; the kernels only move data.
  std::vector<DataType> seq_types = types::Join(
      types::Numeric(), {DataType::kString, DataType::kBool, DataType::kComplex64, DataType::kComplex128});
  seq_types.erase(std::remove(seq_types.begin(), seq_types.end(), DataType::kBFloat16), seq_types.end());
  const std::vector<DataType> split24 = types::Join(seq_types, {DataType::kBFloat16});
  return {
      {"ai.onnx", "SequenceEmpty", 11, kMaxOnnxOpset, seq_types, Make<SequenceEmpty>()},
      {"ai.onnx", "SequenceConstruct", 11, kMaxOnnxOpset, seq_types, Make<SequenceConstruct>()},
      {"ai.onnx", "SequenceAt", 11, kMaxOnnxOpset, seq_types, Make<SequenceAt>()},
      {"ai.onnx", "SequenceInsert", 11, kMaxOnnxOpset, seq_types, Make<SequenceInsert>()},
      {"ai.onnx", "SequenceErase", 11, kMaxOnnxOpset, seq_types, Make<SequenceErase>()},
      {"ai.onnx", "SequenceLength", 11, kMaxOnnxOpset, seq_types, Make<SequenceLength>()},
      {"ai.onnx", "SplitToSequence", 11, 23, seq_types, Make<SplitToSequence>()},
      {"ai.onnx", "SplitToSequence", 24, kMaxOnnxOpset, split24, Make<SplitToSequence>()},
      {"ai.onnx", "ConcatFromSequence", 11, kMaxOnnxOpset, seq_types, Make<ConcatFromSequence>()},
      {"ai.onnx", "SequenceMap", 17, kMaxOnnxOpset, seq_types, Make<SequenceMap>()},
      {"ai.onnx", "Optional", 15, kMaxOnnxOpset, seq_types, Make<OptionalOp>()},
      {"ai.onnx", "OptionalHasElement", 15, 17, seq_types, Make<OptionalHasElement>()},
      {"ai.onnx", "OptionalHasElement", 18, kMaxOnnxOpset, seq_types, Make<OptionalHasElement>()},
      {"ai.onnx", "OptionalGetElement", 15, 17, seq_types, Make<OptionalGetElement>()},
      {"ai.onnx", "OptionalGetElement", 18, kMaxOnnxOpset, seq_types, Make<OptionalGetElement>()},
  };
}

}  // namespace tessera::cpu
