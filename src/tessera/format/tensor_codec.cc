// TensorProto <-> Tensor, including external data and sparse tensors.
#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "tessera/base/checked_math.h"
#include "tessera/base/mapped_file.h"
#include "tessera/base/status.h"
#include "tessera/format/proto_convert.h"

namespace tessera::format_internal {

namespace {

namespace fs = std::filesystem;

// ONNX string tensors hold UTF-8; anything else is refused at load rather
// than handed to kernels (and callers) that assume text.
bool IsValidUtf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    uint32_t cp = len == 1 ? c : c & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF.
    static constexpr uint32_t kMinForLen[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMinForLen[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return false;
    i += len;
  }
  return true;
}

// Resolves an external-data location inside base_dir, refusing anything that
// could read outside it (absolute paths, "..", symlinks pointing out).
std::string ResolveExternalPath(const std::string& base_dir, const std::string& location, const std::string& what) {
  if (base_dir.empty())
    TS_THROW(kInvalidModel, what, ": uses external data '", location,
             "' but the model was loaded from bytes; load it from its file so the data can be found");
  if (location.empty()) TS_THROW(kInvalidModel, what, ": external data has no location");
  fs::path loc(location);
  if (loc.is_absolute()) TS_THROW(kInvalidModel, what, ": external data location '", location, "' is absolute; refused");
  for (const auto& part : loc)
    if (part == "..") TS_THROW(kInvalidModel, what, ": external data location '", location, "' contains '..'; refused");
  std::error_code ec;
  fs::path base = fs::canonical(base_dir, ec);
  if (ec) TS_THROW(kIoError, what, ": model folder '", base_dir, "' not found");
  fs::path full = fs::canonical(base / loc, ec);
  if (ec) TS_THROW(kIoError, what, ": external data file '", (base / loc).string(), "' not found");
  auto rel = full.lexically_relative(base);
  if (rel.empty() || *rel.begin() == "..")
    TS_THROW(kInvalidModel, what, ": external data location '", location, "' leads outside the model's folder; refused");
  return full.string();
}

template <typename Src, typename Dst>
void CopyConvert(const Src& src, Dst* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<Dst>(src.Get(static_cast<int>(i)));
}

}  // namespace

Tensor TensorFromWire(const wire::Tensor& t, LoadContext* ctx, const std::string& what_in) {
  std::string what = what_in.empty() ? "tensor '" + t.name() + "'" : what_in;
  if (!t.has_data_type() || !IsKnownDataType(t.data_type()))
    TS_THROW(kInvalidModel, what, ": unknown data type ", t.data_type());
  if (t.has_segment()) TS_THROW(kNotImplemented, what, ": segmented tensors are not supported");
  DataType dt = static_cast<DataType>(t.data_type());
  Shape shape(t.dims().begin(), t.dims().end());
  for (int64_t d : shape)
    if (d < 0) TS_THROW(kInvalidModel, what, ": negative dimension ", d, " in ", ShapeToString(shape));
  int64_t n = CheckedElementCount(shape, what.c_str());
  int64_t bytes = StorageBytes(dt, n);
  static const LoadLimits kDefaultLimits;
  const LoadLimits& limits = ctx ? ctx->limits : kDefaultLimits;
  if (bytes > limits.max_tensor_bytes)
    TS_THROW(kResourceExhausted, what, ": ", bytes, " bytes exceeds the limit of ", limits.max_tensor_bytes);

  if (t.data_location() == 1) {
    if (dt == DataType::kString) TS_THROW(kInvalidModel, what, ": string tensors cannot use external data");
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto& kv : t.external_data()) {
      char* end = nullptr;
      if (kv.key() == "location") location = kv.value();
      else if (kv.key() == "offset" || kv.key() == "length") {
        long long v = std::strtoll(kv.value().c_str(), &end, 10);
        if (end == kv.value().c_str() || *end != '\0' || v < 0)
          TS_THROW(kInvalidModel, what, ": bad external data ", kv.key(), " '", kv.value(), "'");
        (kv.key() == "offset" ? offset : length) = v;
      }
    }
    const auto* files_in_memory = limits.external_files_in_memory.get();
    auto in_memory = files_in_memory ? files_in_memory->find(location) : LoadLimits::FilesInMemory::const_iterator{};
    if (files_in_memory && in_memory != files_in_memory->end()) {
      const auto* base = static_cast<const unsigned char*>(in_memory->second.first);
      auto size = static_cast<int64_t>(in_memory->second.second);
      if (length < 0) length = size - offset;
      if (offset > size || CheckedAdd(offset, length, what.c_str()) > size || length != bytes)
        TS_THROW(kInvalidModel, what, ": external data [", offset, ", ", offset + length, ") of in-memory file '",
                 location, "' (", size, " bytes) does not hold the ", bytes, " bytes shape ", ShapeToString(shape),
                 " of ", DataTypeName(dt), " needs");
      if (ctx) ctx->total_initializer_bytes += bytes;
      Tensor out(dt, shape);
      if (bytes) std::memcpy(out.raw_data(), base + offset, static_cast<size_t>(bytes));
      return out;
    }
    std::string path = ResolveExternalPath(ctx ? ctx->base_dir : "", location, what);
    auto file = MappedFile::Open(path);
    if (length < 0) length = static_cast<int64_t>(file->size()) - offset;
    if (offset > static_cast<int64_t>(file->size()) || CheckedAdd(offset, length, what.c_str()) > static_cast<int64_t>(file->size()))
      TS_THROW(kInvalidModel, what, ": external data range [", offset, ", ", offset + length, ") lies beyond the end of '",
               location, "' (", file->size(), " bytes)");
    if (length != bytes)
      TS_THROW(kInvalidModel, what, ": external data holds ", length, " bytes but shape ", ShapeToString(shape), " of ",
               DataTypeName(dt), " needs ", bytes);
    if (ctx) ctx->total_initializer_bytes += bytes;
    const unsigned char* src = file->data() + offset;
    if (offset % 64 == 0) {
      auto buf = TensorBuffer::Borrow(const_cast<unsigned char*>(src), static_cast<size_t>(bytes), file);
      return Tensor(dt, shape, buf);
    }
    Tensor out(dt, shape);
    if (bytes) std::memcpy(out.raw_data(), src, static_cast<size_t>(bytes));
    return out;
  }

  Tensor out(dt, shape);
  if (ctx) {
    ctx->total_initializer_bytes += bytes;
    if (ctx->total_initializer_bytes > limits.max_total_initializer_bytes)
      TS_THROW(kResourceExhausted, "model '", ctx->model_name, "': initializers exceed the limit of ",
               limits.max_total_initializer_bytes, " bytes");
  }
  const RawPayload* payload = nullptr;
  if (ctx && !ctx->payloads.empty()) {
    auto it = ctx->payloads.find(&t);
    if (it != ctx->payloads.end()) payload = &it->second;
  }
  if (t.has_raw_data() || payload) {
    RawPayload raw = payload ? *payload : RawPayload{reinterpret_cast<const uint8_t*>(t.raw_data().data()), t.raw_data().size()};
    if (dt == DataType::kString) TS_THROW(kInvalidModel, what, ": string tensors cannot use raw_data");
    if (static_cast<int64_t>(raw.size) != bytes)
      TS_THROW(kInvalidModel, what, ": raw_data has ", raw.size, " bytes but shape ", ShapeToString(shape), " of ",
               DataTypeName(dt), " needs ", bytes);
    if (payload && ctx->drop_payload_pages) {
      // In slices, dropping each one's file pages as it is copied, so a
      // large tensor is never resident twice.
      constexpr size_t kSlice = size_t{8} << 20;
      auto* dst = static_cast<uint8_t*>(out.raw_data());
      for (size_t done = 0; done < raw.size; done += kSlice) {
        size_t n = std::min(kSlice, raw.size - done);
        std::memcpy(dst + done, raw.data + done, n);
        DropMappedPages(raw.data + done, n);
      }
      DropMappedPages(raw.data, raw.size);  // the pages that straddle slice borders
    } else if (bytes) {
      std::memcpy(out.raw_data(), raw.data, static_cast<size_t>(bytes));
    }
    return out;
  }

  auto expect = [&](int64_t have, int64_t want, const char* field) {
    if (have != want)
      TS_THROW(kInvalidModel, what, ": ", field, " has ", have, " values but shape ", ShapeToString(shape), " of ",
               DataTypeName(dt), " needs ", want);
  };
  switch (dt) {
    case DataType::kFloat:
      expect(t.float_data_size(), n, "float_data");
      CopyConvert(t.float_data(), out.data<float>(), n);
      break;
    case DataType::kComplex64:
      expect(t.float_data_size(), 2 * n, "float_data");
      CopyConvert(t.float_data(), out.data<float>(), 2 * n);
      break;
    case DataType::kDouble:
      expect(t.double_data_size(), n, "double_data");
      CopyConvert(t.double_data(), out.data<double>(), n);
      break;
    case DataType::kComplex128:
      expect(t.double_data_size(), 2 * n, "double_data");
      CopyConvert(t.double_data(), out.data<double>(), 2 * n);
      break;
    case DataType::kInt64:
      expect(t.int64_data_size(), n, "int64_data");
      CopyConvert(t.int64_data(), out.data<int64_t>(), n);
      break;
    case DataType::kUInt32:
      expect(t.uint64_data_size(), n, "uint64_data");
      CopyConvert(t.uint64_data(), out.data<uint32_t>(), n);
      break;
    case DataType::kUInt64:
      expect(t.uint64_data_size(), n, "uint64_data");
      CopyConvert(t.uint64_data(), out.data<uint64_t>(), n);
      break;
    case DataType::kInt32:
      expect(t.int32_data_size(), n, "int32_data");
      CopyConvert(t.int32_data(), out.data<int32_t>(), n);
      break;
    case DataType::kInt16:
      expect(t.int32_data_size(), n, "int32_data");
      CopyConvert(t.int32_data(), out.data<int16_t>(), n);
      break;
    case DataType::kUInt16:
    case DataType::kFloat16:
    case DataType::kBFloat16:
      expect(t.int32_data_size(), n, "int32_data");
      CopyConvert(t.int32_data(), out.data<uint16_t>(), n);
      break;
    case DataType::kInt8:
      expect(t.int32_data_size(), n, "int32_data");
      CopyConvert(t.int32_data(), out.data<int8_t>(), n);
      break;
    case DataType::kUInt8:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0:
      expect(t.int32_data_size(), n, "int32_data");
      CopyConvert(t.int32_data(), out.data<uint8_t>(), n);
      break;
    case DataType::kBool:
      expect(t.int32_data_size(), n, "int32_data");
      for (int64_t i = 0; i < n; ++i) out.data<bool>()[i] = t.int32_data(static_cast<int>(i)) != 0;
      break;
    case DataType::kInt4:
    case DataType::kUInt4:
    case DataType::kFloat4E2M1:
    case DataType::kInt2:
    case DataType::kUInt2:
      // Packed: each int32 value carries one byte of the packed storage.
      expect(t.int32_data_size(), bytes, "int32_data (packed bytes)");
      CopyConvert(t.int32_data(), out.data<uint8_t>(), bytes);
      break;
    case DataType::kString:
      expect(t.string_data_size(), n, "string_data");
      for (int64_t i = 0; i < n; ++i) {
        const std::string& s = t.string_data(static_cast<int>(i));
        if (!IsValidUtf8(s)) TS_THROW(kInvalidModel, what, ": string element ", i, " is not valid UTF-8");
        out.data<std::string>()[i] = s;
      }
      break;
    case DataType::kUndefined: TS_THROW(kInvalidModel, what, ": undefined data type");
  }
  return out;
}

Tensor SparseTensorFromWire(const wire::SparseTensor& st, LoadContext* ctx, const std::string& what) {
  Tensor values = TensorFromWire(st.values(), ctx, what + " values");
  Tensor indices = st.has_indices() ? TensorFromWire(st.indices(), ctx, what + " indices") : Tensor();
  Shape dims(st.dims().begin(), st.dims().end());
  Tensor dense(values.dtype(), dims);
  int64_t n = dense.numel();
  if (values.rank() != 1) TS_THROW(kInvalidModel, what, ": sparse values must be 1-D");
  int64_t nnz = values.numel();
  size_t elem = values.dtype() == DataType::kString ? 0 : static_cast<size_t>(ElementBits(values.dtype()) / 8);
  if (IsSubByte(values.dtype())) TS_THROW(kNotImplemented, what, ": sparse tensors of sub-byte types");
  if (values.dtype() != DataType::kString) std::memset(dense.raw_data(), 0, dense.nbytes());
  if (!indices.defined() || indices.dtype() != DataType::kInt64)
    TS_THROW(kInvalidModel, what, ": sparse indices must be an int64 tensor");
  auto linear_index = [&](int64_t k) -> int64_t {
    if (indices.rank() == 1) return indices.data<int64_t>()[k];
    int64_t r = static_cast<int64_t>(dims.size());
    if (indices.rank() != 2 || indices.dim(1) != r) TS_THROW(kInvalidModel, what, ": sparse indices have the wrong shape");
    int64_t idx = 0;
    for (int64_t d = 0; d < r; ++d) {
      int64_t v = indices.data<int64_t>()[k * r + d];
      if (v < 0 || v >= dims[static_cast<size_t>(d)]) TS_THROW(kInvalidModel, what, ": sparse index out of range");
      idx = idx * dims[static_cast<size_t>(d)] + v;
    }
    return idx;
  };
  if (indices.dim(0) != nnz) TS_THROW(kInvalidModel, what, ": ", nnz, " values but ", indices.dim(0), " indices");
  for (int64_t k = 0; k < nnz; ++k) {
    int64_t idx = linear_index(k);
    if (idx < 0 || idx >= n) TS_THROW(kInvalidModel, what, ": sparse index ", idx, " out of range");
    if (values.dtype() == DataType::kString)
      dense.data<std::string>()[idx] = values.data<std::string>()[k];
    else
      std::memcpy(static_cast<char*>(dense.raw_data()) + idx * elem, static_cast<const char*>(values.raw_data()) + k * elem, elem);
  }
  return dense;
}

void TensorToWire(const Tensor& t, wire::Tensor* out) {
  out->set_data_type(static_cast<int32_t>(t.dtype()));
  for (int64_t d : t.shape()) out->add_dims(d);
  if (t.dtype() == DataType::kString) {
    for (int64_t i = 0; i < t.numel(); ++i) out->add_string_data(t.data<std::string>()[i]);
  } else {
    out->set_raw_data(std::string(static_cast<const char*>(t.raw_data()), t.nbytes()));
  }
}

}  // namespace tessera::format_internal
