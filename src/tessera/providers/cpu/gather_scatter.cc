// Indexing kernels: Gather, GatherElements, GatherND, Scatter, ScatterElements,
// ScatterND, TensorScatter and OneHot (a scatter of on_value by index).
//
// Data-movement kernels copy elements generically: they dispatch on the
// element's storage size (1/2/4/8/16 bytes) or std::string, so every element
// type the spec allows (float8, complex, bool, strings...) shares one path.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {
namespace {

template <typename Fn>
void DispatchIndex(const Tensor& t, const KernelContext& ctx, const char* what, Fn&& fn) {
  switch (t.dtype()) {
    case DataType::kInt32: fn.template operator()<int32_t>(); return;
    case DataType::kInt64: fn.template operator()<int64_t>(); return;
    default: ctx.Fail(what, " must be int32 or int64, got ", DataTypeName(t.dtype()));
  }
}

// Reads all indices, wraps negatives by `n` and checks the range [-n, n).
std::vector<int64_t> ReadIndices(const Tensor& t, int64_t n, const KernelContext& ctx, const char* what) {
  std::vector<int64_t> out(static_cast<size_t>(t.numel()));
  DispatchIndex(t, ctx, what, [&]<typename I>() {
    const I* p = t.data<I>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      int64_t v = static_cast<int64_t>(p[i]);
      if (v < -n || v >= n) ctx.Fail(what, " value ", v, " is out of range [", -n, ", ", n - 1, "]");
      out[static_cast<size_t>(i)] = v < 0 ? v + n : v;
    }
  });
  return out;
}

// ---- Gather ------------------------------------------------------------------

class Gather final : public OpKernel {
 public:
  explicit Gather(const KernelInfo& info) : axis_(info.attr_int("axis", 0)) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    int64_t rank = data.rank();
    if (rank == 0) ctx.Fail("data must have rank >= 1");
    int64_t axis = NormalizeAxis(axis_, rank, ctx);
    const Shape& ds = data.shape();
    int64_t n = ds[static_cast<size_t>(axis)];
    Shape out_shape(ds.begin(), ds.begin() + axis);
    out_shape.insert(out_shape.end(), indices.shape().begin(), indices.shape().end());
    out_shape.insert(out_shape.end(), ds.begin() + axis + 1, ds.end());
    std::vector<int64_t> idx = ReadIndices(indices, n, ctx, "indices");
    Tensor& out = ctx.allocate_output(0, data.dtype(), out_shape);
    if (out.numel() == 0) return;
    int64_t outer = SizeToDim(ds, static_cast<size_t>(axis));
    int64_t inner = SizeFromDim(ds, static_cast<size_t>(axis) + 1);
    int64_t m = static_cast<int64_t>(idx.size());
    DispatchWord(data.dtype(), ctx, [&]<typename S>() {
      const S* src = data.data<S>();
      S* dst = out.data<S>();
      int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(inner, 1));
      ParallelFor(ctx.thread_pool(), outer * m, grain, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          int64_t o = r / m, i = r % m;
          CopyN(src + (o * n + idx[static_cast<size_t>(i)]) * inner, inner, dst + r * inner);
        }
      });
    });
  }

 private:
  int64_t axis_;
};

// ---- GatherElements -----------------------------------------------------------

// Iterates the coordinates of `shape` in row-major order.
struct Odometer {
  explicit Odometer(const Shape& s) : shape(s), idx(s.size(), 0) {}
  void Next() {
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) return;
      idx[d] = 0;
    }
  }
  const Shape& shape;
  std::vector<int64_t> idx;
};

// Validates the GatherElements/ScatterElements index tensor against data,
// normalizes the axis into `axis` and returns the wrapped indices.
std::vector<int64_t> ReadElementIndices(const Tensor& data, const Tensor& indices, int64_t axis_attr,
                                        const KernelContext& ctx, int64_t& axis) {
  int64_t rank = data.rank();
  if (rank == 0) ctx.Fail("data must have rank >= 1");
  if (indices.rank() != rank) ctx.Fail("indices rank ", indices.rank(), " must equal data rank ", rank);
  axis = NormalizeAxis(axis_attr, rank, ctx);
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && indices.dim(d) > data.dim(d))
      ctx.Fail("indices shape ", ShapeToString(indices.shape()), " exceeds data shape ",
               ShapeToString(data.shape()), " at dim ", d);
  return ReadIndices(indices, data.dim(axis), ctx, "indices");
}

// Offset in data of the element at the odometer's coordinate, with the axis
// coordinate replaced by the gathered/scattered index.
inline int64_t ElementOffset(const Odometer& od, int64_t index, int64_t axis, const std::vector<int64_t>& strides) {
  int64_t off = 0;
  for (size_t d = 0; d < strides.size(); ++d)
    off += (static_cast<int64_t>(d) == axis ? index : od.idx[d]) * strides[d];
  return off;
}

class GatherElements final : public OpKernel {
 public:
  explicit GatherElements(const KernelInfo& info) : axis_(info.attr_int("axis", 0)) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    int64_t axis = 0;
    std::vector<int64_t> idx = ReadElementIndices(data, indices, axis_, ctx, axis);
    Tensor& out = ctx.allocate_output(0, data.dtype(), indices.shape());
    if (out.numel() == 0) return;
    std::vector<int64_t> strides = StridesOf(data.shape());
    DispatchWord(data.dtype(), ctx, [&]<typename S>() {
      const S* src = data.data<S>();
      S* dst = out.data<S>();
      Odometer od(indices.shape());
      for (int64_t i = 0; i < out.numel(); ++i, od.Next()) {
        int64_t off = ElementOffset(od, idx[static_cast<size_t>(i)], axis, strides);
        dst[i] = src[off];
      }
    });
  }

 private:
  int64_t axis_;
};

// ---- GatherND -------------------------------------------------------------------

// Validates an ND-indexing problem and returns, per index tuple, the element
// offset of the addressed slice within data (batch offset included).
struct NdPlan {
  int64_t tuples = 0;     // number of index tuples
  int64_t slice = 1;      // elements per addressed slice
  std::vector<int64_t> offsets;
};

NdPlan PlanNd(const Tensor& data, const Tensor& indices, int64_t batch_dims, const KernelContext& ctx) {
  int64_t r = data.rank(), q = indices.rank();
  if (q < 1) ctx.Fail("indices must have rank >= 1");
  if (r < 1) ctx.Fail("data must have rank >= 1");
  if (batch_dims < 0 || batch_dims >= std::min(r, q))
    ctx.Fail("batch_dims ", batch_dims, " must be in [0, min(rank(data), rank(indices)))");
  int64_t k = indices.dim(q - 1);
  if (k < 1 || k > r - batch_dims)
    ctx.Fail("last indices dim ", k, " must be in [1, ", r - batch_dims, "] for data ", ShapeToString(data.shape()));
  for (int64_t d = 0; d < batch_dims; ++d)
    if (data.dim(d) != indices.dim(d))
      ctx.Fail("batch dim ", d, " differs between data ", ShapeToString(data.shape()), " and indices ",
               ShapeToString(indices.shape()));
  NdPlan p;
  p.slice = SizeFromDim(data.shape(), static_cast<size_t>(batch_dims + k));
  p.tuples = indices.numel() / k;
  int64_t batch_count = SizeToDim(indices.shape(), static_cast<size_t>(batch_dims));
  int64_t per_batch = batch_count == 0 ? 0 : p.tuples / batch_count;
  int64_t batch_stride = SizeFromDim(data.shape(), static_cast<size_t>(batch_dims));
  std::vector<int64_t> strides = StridesOf(data.shape());
  p.offsets.resize(static_cast<size_t>(p.tuples));
  DispatchIndex(indices, ctx, "indices", [&]<typename I>() {
    const I* ip = indices.data<I>();
    for (int64_t t = 0; t < p.tuples; ++t) {
      int64_t off = per_batch == 0 ? 0 : (t / per_batch) * batch_stride;
      for (int64_t j = 0; j < k; ++j) {
        int64_t dim = data.dim(batch_dims + j);
        int64_t v = static_cast<int64_t>(ip[t * k + j]);
        if (v < -dim || v >= dim) ctx.Fail("index ", v, " is out of range for dim ", batch_dims + j, " of size ", dim);
        if (v < 0) v += dim;
        off += v * strides[static_cast<size_t>(batch_dims + j)];
      }
      p.offsets[static_cast<size_t>(t)] = off;
    }
  });
  return p;
}

// Shape of the slices an ND index tensor addresses: the index tuples' shape
// followed by the data dims that each tuple leaves unindexed.
Shape NdResultShape(const Tensor& data, const Tensor& indices, int64_t batch_dims) {
  int64_t k = indices.dim(indices.rank() - 1);
  Shape shape(indices.shape().begin(), indices.shape().end() - 1);
  shape.insert(shape.end(), data.shape().begin() + batch_dims + k, data.shape().end());
  return shape;
}

class GatherND final : public OpKernel {
 public:
  explicit GatherND(const KernelInfo& info) : batch_dims_(info.attr_int("batch_dims", 0)) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    NdPlan p = PlanNd(data, indices, batch_dims_, ctx);
    Shape out_shape = NdResultShape(data, indices, batch_dims_);
    Tensor& out = ctx.allocate_output(0, data.dtype(), out_shape);
    if (out.numel() == 0) return;
    DispatchWord(data.dtype(), ctx, [&]<typename S>() {
      const S* src = data.data<S>();
      S* dst = out.data<S>();
      for (int64_t t = 0; t < p.tuples; ++t) CopyN(src + p.offsets[static_cast<size_t>(t)], p.slice, dst + t * p.slice);
    });
  }

 private:
  int64_t batch_dims_;
};

// ---- Scatter family ---------------------------------------------------------------

enum class ScatterReduction { kNone, kAdd, kMul, kMax, kMin };

ScatterReduction ParseScatterReduction(const KernelInfo& info, bool allow_add_mul, bool allow_max_min) {
  std::string r = info.attr_string("reduction", "none");
  if (r == "none") return ScatterReduction::kNone;
  if (allow_add_mul && r == "add") return ScatterReduction::kAdd;
  if (allow_add_mul && r == "mul") return ScatterReduction::kMul;
  if (allow_max_min && r == "max") return ScatterReduction::kMax;
  if (allow_max_min && r == "min") return ScatterReduction::kMin;
  info.Fail("reduction '", r, "' is not supported at opset ", info.opset());
}

template <typename T>
inline void Combine(T& dst, const T& src, ScatterReduction r) {
  using C = typename cpu::Compute<T>::type;
  C a = Load(dst), b = Load(src);
  C v;
  switch (r) {
    case ScatterReduction::kAdd: v = static_cast<C>(a + b); break;
    case ScatterReduction::kMul: v = static_cast<C>(a * b); break;
    case ScatterReduction::kMax: v = std::max(a, b); break;
    case ScatterReduction::kMin: v = std::min(a, b); break;
    default: v = b; break;
  }
  dst = StoreAs<T>(v);
}

// Runs body.template operator()<S>() with S the storage type when no
// reduction is needed (any element type), or the value type otherwise.
template <typename Fn>
void DispatchScatter(DataType dt, ScatterReduction r, const KernelContext& ctx, Fn&& fn) {
  if (r == ScatterReduction::kNone)
    DispatchWord(dt, ctx, fn);
  else
    DispatchNumericBool(dt, ctx, fn);
}

template <typename S>
inline void ScatterStore(S& dst, const S& src, ScatterReduction r) {
  if constexpr (std::is_same_v<S, std::string> || std::is_same_v<S, Word128>) {
    dst = src;
  } else {
    if (r == ScatterReduction::kNone) dst = src;
    else Combine(dst, src, r);
  }
}

class ScatterElements final : public OpKernel {
 public:
  explicit ScatterElements(const KernelInfo& info)
      : axis_(info.attr_int("axis", 0)),
        reduction_(info.opset() >= 11 && info.node().op_type == "ScatterElements"
                       ? ParseScatterReduction(info, info.opset() >= 16, info.opset() >= 18)
                       : ScatterReduction::kNone) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    int64_t rank = data.rank();
    if (rank == 0) ctx.Fail("data must have rank >= 1");
    if (indices.rank() != rank) ctx.Fail("indices rank ", indices.rank(), " must equal data rank ", rank);
    if (updates.shape() != indices.shape())
      ctx.Fail("updates shape ", ShapeToString(updates.shape()), " must equal indices shape ",
               ShapeToString(indices.shape()));
    if (updates.dtype() != data.dtype()) ctx.Fail("updates type must match data type");
    int64_t axis = 0;
    std::vector<int64_t> idx = ReadElementIndices(data, indices, axis_, ctx, axis);
    Tensor out = data.Clone();
    std::vector<int64_t> strides = StridesOf(data.shape());
    DispatchScatter(data.dtype(), reduction_, ctx, [&]<typename S>() {
      const S* up = updates.data<S>();
      S* dst = out.data<S>();
      Odometer od(indices.shape());
      for (int64_t i = 0; i < indices.numel(); ++i, od.Next()) {
        int64_t off = ElementOffset(od, idx[static_cast<size_t>(i)], axis, strides);
        ScatterStore(dst[off], up[i], reduction_);
      }
    });
    ctx.set_output(0, std::move(out));
  }

 private:
  int64_t axis_;
  ScatterReduction reduction_;
};

class ScatterND final : public OpKernel {
 public:
  explicit ScatterND(const KernelInfo& info)
      : reduction_(ParseScatterReduction(info, info.opset() >= 16, info.opset() >= 18)) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    if (updates.dtype() != data.dtype()) ctx.Fail("updates type must match data type");
    NdPlan p = PlanNd(data, indices, 0, ctx);
    Shape expect = NdResultShape(data, indices, 0);
    if (updates.shape() != expect)
      ctx.Fail("updates shape ", ShapeToString(updates.shape()), " must be ", ShapeToString(expect));
    Tensor out = data.Clone();
    DispatchScatter(data.dtype(), reduction_, ctx, [&]<typename S>() {
      const S* up = updates.data<S>();
      S* dst = out.data<S>();
      for (int64_t t = 0; t < p.tuples; ++t) {
        S* d = dst + p.offsets[static_cast<size_t>(t)];
        const S* s = up + t * p.slice;
        if (reduction_ == ScatterReduction::kNone) {
          CopyN(s, p.slice, d);
        } else {
          for (int64_t j = 0; j < p.slice; ++j) ScatterStore(d[j], s[j], reduction_);
        }
      }
    });
    ctx.set_output(0, std::move(out));
  }

 private:
  ScatterReduction reduction_;
};

// ---- TensorScatter (KV-cache update) ----------------------------------------------

class TensorScatter final : public OpKernel {
 public:
  explicit TensorScatter(const KernelInfo& info) : axis_(info.attr_int("axis", -2)) {
    std::string mode = info.attr_string("mode", "linear");
    if (mode == "circular") circular_ = true;
    else if (mode != "linear") info.Fail("mode must be 'linear' or 'circular', got '", mode, "'");
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& past = ctx.input(0);
    const Tensor& update = ctx.input(1);
    int64_t rank = past.rank();
    if (rank < 2) ctx.Fail("past_cache must have rank >= 2");
    int64_t axis = NormalizeAxis(axis_, rank, ctx);
    if (axis == 0) ctx.Fail("axis cannot be the batch dimension 0");
    if (update.dtype() != past.dtype()) ctx.Fail("update type must match past_cache type");
    if (update.rank() != rank) ctx.Fail("update rank must equal past_cache rank");
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && update.dim(d) != past.dim(d))
        ctx.Fail("update shape ", ShapeToString(update.shape()), " does not match past_cache shape ",
                 ShapeToString(past.shape()));
    int64_t max_seq = past.dim(axis), seq = update.dim(axis);
    if (seq > max_seq) ctx.Fail("update sequence length ", seq, " exceeds max_sequence_length ", max_seq);
    int64_t batch = past.dim(0);
    std::vector<int64_t> write(static_cast<size_t>(batch), 0);
    if (ctx.has_input(2)) {
      const Tensor& wi = ctx.input(2);
      if (wi.numel() != batch) ctx.Fail("write_indices must have shape [", batch, "]");
      write = wi.ToInt64Vector();
    }
    Tensor out = past.Clone();
    int64_t prefix = SizeToDim(past.shape(), static_cast<size_t>(axis));
    int64_t per_batch = batch == 0 ? 0 : prefix / batch;
    int64_t inner = SizeFromDim(past.shape(), static_cast<size_t>(axis) + 1);
    // Validate every destination row first.
    auto dest_pos = [&](int64_t b, int64_t s) -> int64_t {
      int64_t pos = write[static_cast<size_t>(b)] + s;
      if (circular_) {
        pos %= max_seq;
        if (pos < 0) pos += max_seq;
      } else if (pos < 0 || pos >= max_seq) {
        ctx.Fail("write index ", write[static_cast<size_t>(b)], " + ", s, " is out of range for max_sequence_length ",
                 max_seq, " (mode linear)");
      }
      return pos;
    };
    if (max_seq == 0 || seq == 0 || prefix == 0) {
      ctx.set_output(0, std::move(out));
      return;
    }
    for (int64_t b = 0; b < batch; ++b) dest_pos(b, 0), dest_pos(b, seq - 1);
    if (IsSubByte(past.dtype())) {
      int bits = ElementBits(past.dtype());
      uint8_t mask = static_cast<uint8_t>((1u << bits) - 1);
      const uint8_t* src = static_cast<const uint8_t*>(update.raw_data());
      uint8_t* dst = static_cast<uint8_t*>(out.raw_data());
      auto get = [&](int64_t i) { return static_cast<uint8_t>((src[i * bits / 8] >> ((i * bits) % 8)) & mask); };
      auto put = [&](int64_t i, uint8_t v) {
        uint8_t& byte = dst[i * bits / 8];
        int sh = static_cast<int>((i * bits) % 8);
        byte = static_cast<uint8_t>((byte & ~(mask << sh)) | ((v & mask) << sh));
      };
      for (int64_t p = 0; p < prefix; ++p)
        for (int64_t s = 0; s < seq; ++s) {
          int64_t pos = dest_pos(p / per_batch, s);
          for (int64_t j = 0; j < inner; ++j) put((p * max_seq + pos) * inner + j, get((p * seq + s) * inner + j));
        }
    } else {
      DispatchWord(past.dtype(), ctx, [&]<typename S>() {
        const S* src = update.data<S>();
        S* dst = out.data<S>();
        for (int64_t p = 0; p < prefix; ++p)
          for (int64_t s = 0; s < seq; ++s) {
            int64_t pos = dest_pos(p / per_batch, s);
            CopyN(src + (p * seq + s) * inner, inner, dst + (p * max_seq + pos) * inner);
          }
      });
    }
    ctx.set_output(0, std::move(out));
  }

 private:
  int64_t axis_;
  bool circular_ = false;
};

// ---- OneHot -------------------------------------------------------------------------

class OneHot final : public OpKernel {
 public:
  explicit OneHot(const KernelInfo& info) : axis_(info.attr_int("axis", -1)) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& indices = ctx.input(0);
    const Tensor& depth_t = ctx.input(1);
    const Tensor& values = ctx.input(2);
    if (depth_t.numel() != 1) ctx.Fail("depth must be a scalar or a 1-element tensor");
    if (values.numel() != 2) ctx.Fail("values must hold exactly two elements [off_value, on_value]");
    if (depth_t.dtype() == DataType::kString || indices.dtype() == DataType::kString)
      ctx.Fail("indices and depth must be numeric");
    double depth_d = depth_t.GetAsDouble(0);
    if (!(depth_d >= 0) || depth_d > 9.0e15) ctx.Fail("depth must be a non-negative count, got ", depth_d);
    int64_t depth = static_cast<int64_t>(depth_d);
    int64_t r = indices.rank();
    if (axis_ < -(r + 1) || axis_ > r) ctx.Fail("axis ", axis_, " is out of range for output rank ", r + 1);
    int64_t axis = axis_ < 0 ? axis_ + r + 1 : axis_;
    Shape out_shape = indices.shape();
    out_shape.insert(out_shape.begin() + axis, depth);
    Tensor& out = ctx.allocate_output(0, values.dtype(), out_shape);
    if (out.numel() == 0) return;
    int64_t outer = SizeToDim(indices.shape(), static_cast<size_t>(axis));
    int64_t inner = SizeFromDim(indices.shape(), static_cast<size_t>(axis));
    DispatchWord(values.dtype(), ctx, [&]<typename S>() {
      const S* v = values.data<S>();
      S* dst = out.data<S>();
      std::fill(dst, dst + out.numel(), v[0]);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          int64_t id = indices.GetAsInt64(o * inner + i);
          if (id < 0) id += depth;
          if (id < 0 || id >= depth) continue;
          dst[(o * depth + id) * inner + i] = v[1];
        }
    });
  }

 private:
  int64_t axis_;
};

}  // namespace

std::vector<KernelRow> IndexingKernels() {
  auto mv = MovementTypes();
  auto numeric = types::Numeric();
  return {
      {"ai.onnx", "Gather", 1, 10, mv, Make<Gather>()},
      {"ai.onnx", "Gather", 11, 12, mv, Make<Gather>()},
      {"ai.onnx", "Gather", 13, kMaxOnnxOpset, mv, Make<Gather>()},
      {"ai.onnx", "GatherElements", 11, 12, mv, Make<GatherElements>()},
      {"ai.onnx", "GatherElements", 13, kMaxOnnxOpset, mv, Make<GatherElements>()},
      {"ai.onnx", "GatherND", 11, 11, mv, Make<GatherND>()},
      {"ai.onnx", "GatherND", 12, 12, mv, Make<GatherND>()},
      {"ai.onnx", "GatherND", 13, kMaxOnnxOpset, mv, Make<GatherND>()},
      {"ai.onnx", "Scatter", 9, 10, mv, Make<ScatterElements>()},
      {"ai.onnx", "Scatter", 11, kMaxOnnxOpset, mv, Make<ScatterElements>()},
      {"ai.onnx", "ScatterElements", 11, 12, mv, Make<ScatterElements>()},
      {"ai.onnx", "ScatterElements", 13, 15, mv, Make<ScatterElements>()},
      {"ai.onnx", "ScatterElements", 16, 17, mv, Make<ScatterElements>()},
      {"ai.onnx", "ScatterElements", 18, kMaxOnnxOpset, mv, Make<ScatterElements>()},
      {"ai.onnx", "ScatterND", 11, 12, mv, Make<ScatterND>()},
      {"ai.onnx", "ScatterND", 13, 15, mv, Make<ScatterND>()},
      {"ai.onnx", "ScatterND", 16, 17, mv, Make<ScatterND>()},
      {"ai.onnx", "ScatterND", 18, kMaxOnnxOpset, mv, Make<ScatterND>()},
      {"ai.onnx", "TensorScatter", 24, kMaxOnnxOpset, types::All(), Make<TensorScatter>()},
      {"ai.onnx", "OneHot", 9, 10, numeric, Make<OneHot>()},
      {"ai.onnx", "OneHot", 11, kMaxOnnxOpset, numeric, Make<OneHot>()},
  };
}

}  // namespace tessera::cpu
