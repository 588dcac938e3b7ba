#include "tessera/ops/flop_estimate.h"

#include <optional>
#include <string>

#include "tessera/ops/op_schema.h"

namespace tessera {

namespace {

std::optional<std::vector<int64_t>> StaticShapeOf(const GraphTypes& types, const std::string& name) {
  if (name.empty()) return std::nullopt;
  auto it = types.types.find(name);
  if (it == types.types.end() || !it->second.is_tensor()) return std::nullopt;
  return it->second.StaticShape();
}

int64_t Product(const std::vector<int64_t>& dims, size_t from = 0) {
  int64_t n = 1;
  for (size_t i = from; i < dims.size(); ++i) n *= dims[i];
  return n;
}

}  // namespace

int64_t EstimateFlops(const Node& node, const GraphTypes& types) {
  if (node.outputs.empty()) return 0;
  const std::string& op = node.op_type;
  auto in = [&](size_t i) { return i < node.inputs.size() ? StaticShapeOf(types, node.inputs[i]) : std::nullopt; };
  if (op == "LSTM" || op == "GRU" || op == "RNN") {
    // Every step multiplies the input by W and the state by R, for every
    // batch row and direction (W: [dirs, gates*H, input], R: [dirs, gates*H, H]).
    auto x = in(0), w = in(1), r = in(2);
    if (!x || x->size() != 3 || !w || !r) return -1;
    return 2 * x->at(0) * x->at(1) * (Product(*w) + Product(*r));
  }
  auto out = StaticShapeOf(types, node.outputs[0]);
  if (!out) return -1;
  if (op == "MatMul" || op == "FusedMatMul" || op == "MatMulInteger") {
    auto a = in(0);
    if (!a || a->empty()) return -1;
    int64_t k = a->back();
    if (node.domain == kTesseraDomain) {
      const Attribute* t = node.FindAttribute("transA");
      if (t && t->i != 0 && a->size() >= 2) k = (*a)[a->size() - 2];
    }
    return 2 * Product(*out) * k;
  }
  if (op == "Gemm" || op == "FusedGemm") {
    auto a = in(0);
    if (!a || a->size() != 2) return -1;
    const Attribute* t = node.FindAttribute("transA");
    int64_t k = (t && t->i != 0) ? (*a)[0] : (*a)[1];
    return 2 * Product(*out) * k;
  }
  if (op == "Conv" || op == "FusedConv" || op == "ConvInteger" || op == "QLinearConv") {
    auto w = in(op == "QLinearConv" ? 3 : 1);
    if (!w || w->size() < 2) return -1;
    return 2 * Product(*out) * Product(*w, 1);  // per output: C/group * kernel multiply-adds
  }
  if (op == "ConvTranspose") {
    auto x = in(0), w = in(1);
    if (!x || !w || w->size() < 2) return -1;
    return 2 * Product(*x) * Product(*w, 1);
  }
  // Ops that only move or view data: no arithmetic (profiles show no rate).
  if (OpHasTrait(node, op_trait::kDataMovement)) return 0;
  return Product(*out);
}

}  // namespace tessera
