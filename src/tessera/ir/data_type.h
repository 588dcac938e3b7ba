// Element types. The numeric values are ONNX's TensorProto.DataType codes so a
// type travels between the file format and the IR without a mapping table.
#pragma once

#include <complex>
#include <cstdint>
#include <string>

namespace tessera {

enum class DataType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUInt2 = 25,
  kInt2 = 26,
};

constexpr int32_t kMaxDataTypeCode = 26;

bool IsKnownDataType(int32_t code);
// "float", "int64", "float8e4m3fn"... as in ONNX's tensor(...) type strings.
const char* DataTypeName(DataType t);
// Bits one element occupies in a packed buffer (4 for int4, 2 for int2...).
int ElementBits(DataType t);
bool IsFloatingPoint(DataType t);  // any float kind, incl. float8/float4/half
bool IsSignedInteger(DataType t);
bool IsUnsignedInteger(DataType t);
bool IsInteger(DataType t);
bool IsSubByte(DataType t);
// Bytes needed for n packed elements.
int64_t StorageBytes(DataType t, int64_t n);

// Storage types for the 16-bit and 8-bit float kinds: raw bit patterns.
struct Float16 { uint16_t bits; };
struct BFloat16 { uint16_t bits; };

// Maps a C++ type to its DataType (for templates).
template <typename T> struct DataTypeOf;
template <> struct DataTypeOf<float> { static constexpr DataType value = DataType::kFloat; };
template <> struct DataTypeOf<double> { static constexpr DataType value = DataType::kDouble; };
template <> struct DataTypeOf<int8_t> { static constexpr DataType value = DataType::kInt8; };
template <> struct DataTypeOf<int16_t> { static constexpr DataType value = DataType::kInt16; };
template <> struct DataTypeOf<int32_t> { static constexpr DataType value = DataType::kInt32; };
template <> struct DataTypeOf<int64_t> { static constexpr DataType value = DataType::kInt64; };
template <> struct DataTypeOf<uint8_t> { static constexpr DataType value = DataType::kUInt8; };
template <> struct DataTypeOf<uint16_t> { static constexpr DataType value = DataType::kUInt16; };
template <> struct DataTypeOf<uint32_t> { static constexpr DataType value = DataType::kUInt32; };
template <> struct DataTypeOf<uint64_t> { static constexpr DataType value = DataType::kUInt64; };
template <> struct DataTypeOf<bool> { static constexpr DataType value = DataType::kBool; };
template <> struct DataTypeOf<std::string> { static constexpr DataType value = DataType::kString; };
template <> struct DataTypeOf<Float16> { static constexpr DataType value = DataType::kFloat16; };
template <> struct DataTypeOf<BFloat16> { static constexpr DataType value = DataType::kBFloat16; };
template <> struct DataTypeOf<std::complex<float>> { static constexpr DataType value = DataType::kComplex64; };
template <> struct DataTypeOf<std::complex<double>> { static constexpr DataType value = DataType::kComplex128; };

}  // namespace tessera
