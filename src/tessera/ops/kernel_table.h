// A kernel table lists, per execution provider, every kernel it has. Each row
// is the one and only declaration of a kernel: domain, op, the opset range it
// implements, the element types it accepts and how to create it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/ops/kernel.h"

namespace tessera {

// The newest ai.onnx opset any Tessera kernel is written against.
inline constexpr int64_t kMaxOnnxOpset = 28;
inline constexpr int64_t kMaxOnnxMlOpset = 5;

using KernelFactory = std::function<std::unique_ptr<OpKernel>(const KernelInfo&)>;

struct KernelRow {
  std::string domain;   // canonical: "ai.onnx", "ai.onnx.ml", "ai.tessera"...
  std::string op_type;
  int64_t first_opset;  // model opsets [first_opset, last_opset] use this row
  int64_t last_opset;
  std::vector<DataType> types;  // element types of the main ("T") input; empty = any
  KernelFactory create;
  // Inputs (bit i: input i) whose buffer the kernel may write its output
  // into when the input dies at this node and has the output's size: the
  // kernel reads element i only to write element i and allocates nothing
  // but its output. The memory planner reads this and nothing else.
  uint32_t in_place_inputs = 0;
};

// Makes a factory for a kernel class constructible from KernelInfo.
template <typename K>
KernelFactory Make() {
  return [](const KernelInfo& info) -> std::unique_ptr<OpKernel> { return std::make_unique<K>(info); };
}

// Common type sets for rows.
namespace types {
std::vector<DataType> Floats();          // float, double, float16, bfloat16
std::vector<DataType> SignedInts();      // int8..int64
std::vector<DataType> UnsignedInts();    // uint8..uint64
std::vector<DataType> Ints();            // signed + unsigned
std::vector<DataType> Numeric();         // floats + ints
std::vector<DataType> All();             // every tensor element type
std::vector<DataType> Join(std::vector<DataType> a, const std::vector<DataType>& b);
}  // namespace types

class KernelTable {
 public:
  KernelTable(std::string provider, std::vector<KernelRow> rows);

  const std::string& provider() const { return provider_; }
  const std::vector<KernelRow>& rows() const { return rows_; }

  // The row implementing (domain, op) at the model's opset for that domain, or
  // nullptr with why_not explaining the mismatch in actionable terms.
  const KernelRow* Find(const std::string& domain, const std::string& op_type, int64_t model_opset,
                        std::string* why_not) const;
  bool HasOp(const std::string& domain, const std::string& op_type) const;

 private:
  std::string provider_;
  std::vector<KernelRow> rows_;
};

}  // namespace tessera
