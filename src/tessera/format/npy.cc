#include "tessera/format/npy.h"

#include <cstring>
#include <sstream>

#include "tessera/base/mapped_file.h"
#include "tessera/base/status.h"

namespace tessera {

namespace {

struct NpyType {
  const char* descr;
  DataType dtype;
};

constexpr NpyType kTypes[] = {
    {"<f4", DataType::kFloat},   {"<f8", DataType::kDouble}, {"<f2", DataType::kFloat16}, {"|i1", DataType::kInt8},
    {"<i2", DataType::kInt16},   {"<i4", DataType::kInt32},  {"<i8", DataType::kInt64},   {"|u1", DataType::kUInt8},
    {"<u2", DataType::kUInt16},  {"<u4", DataType::kUInt32}, {"<u8", DataType::kUInt64},  {"|b1", DataType::kBool},
    {"<c8", DataType::kComplex64}, {"<c16", DataType::kComplex128},
};

std::string FieldValue(const std::string& header, const std::string& key, const std::string& what) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) TS_THROW(kInvalidArgument, what, ": npy header has no '", key, "'");
  size_t colon = header.find(':', k);
  if (colon == std::string::npos) TS_THROW(kInvalidArgument, what, ": malformed npy header");
  size_t start = header.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos) TS_THROW(kInvalidArgument, what, ": malformed npy header");
  size_t end;
  if (header[start] == '\'') {
    end = header.find('\'', start + 1);
    if (end == std::string::npos) TS_THROW(kInvalidArgument, what, ": malformed npy header");
    return header.substr(start + 1, end - start - 1);
  }
  if (header[start] == '(') {
    end = header.find(')', start);
    if (end == std::string::npos) TS_THROW(kInvalidArgument, what, ": malformed npy header");
    return header.substr(start, end - start + 1);
  }
  end = header.find_first_of(",}", start);
  return header.substr(start, end - start);
}

}  // namespace

Tensor ParseNpy(const std::string& bytes, const std::string& what) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    TS_THROW(kInvalidArgument, what, ": not a .npy file");
  int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    header_start = 10;
  } else {
    if (bytes.size() < 12) TS_THROW(kInvalidArgument, what, ": truncated .npy header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    header_start = 12;
  }
  if (header_start + header_len > bytes.size()) TS_THROW(kInvalidArgument, what, ": truncated .npy header");
  std::string header = bytes.substr(header_start, header_len);
  std::string descr = FieldValue(header, "descr", what);
  std::string fortran = FieldValue(header, "fortran_order", what);
  std::string shape_str = FieldValue(header, "shape", what);
  if (fortran.find("True") != std::string::npos)
    TS_THROW(kNotImplemented, what, ": Fortran-ordered arrays are not supported; save with np.ascontiguousarray");
  DataType dt = DataType::kUndefined;
  for (const auto& t : kTypes)
    if (descr == t.descr) dt = t.dtype;
  if (descr == "|b1" || descr == "?") dt = DataType::kBool;
  if (descr == "<i1") dt = DataType::kInt8;
  if (descr == "<u1") dt = DataType::kUInt8;
  if (dt == DataType::kUndefined) TS_THROW(kNotImplemented, what, ": npy dtype '", descr, "' is not supported");
  Shape shape;
  std::string digits;
  for (char c : shape_str) {
    if (c >= '0' && c <= '9') {
      digits += c;
    } else if (!digits.empty()) {
      shape.push_back(std::stoll(digits));
      digits.clear();
    }
  }
  Tensor t(dt, shape);
  size_t data_start = header_start + header_len;
  if (bytes.size() - data_start != t.nbytes())
    TS_THROW(kInvalidArgument, what, ": npy data has ", bytes.size() - data_start, " bytes but ", t.Describe(),
             " needs ", t.nbytes());
  if (t.nbytes()) std::memcpy(t.raw_data(), bytes.data() + data_start, t.nbytes());
  return t;
}

Tensor LoadNpyFile(const std::string& path) { return ParseNpy(ReadFileToString(path), path); }

std::string SerializeNpy(const Tensor& t) {
  const char* descr = nullptr;
  for (const auto& k : kTypes)
    if (k.dtype == t.dtype()) descr = k.descr;
  if (descr == nullptr) TS_THROW(kNotImplemented, "cannot save ", DataTypeName(t.dtype()), " tensors as .npy");
  std::ostringstream h;
  h << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < t.shape().size(); ++i) h << t.shape()[i] << (t.shape().size() == 1 ? "," : (i + 1 < t.shape().size() ? ", " : ""));
  h << "), }";
  std::string header = h.str();
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(static_cast<const char*>(t.raw_data()), t.nbytes());
  return out;
}

}  // namespace tessera
