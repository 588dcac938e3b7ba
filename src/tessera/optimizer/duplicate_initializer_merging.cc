// DuplicateInitializerMerging (basic, any provider): constant initializers
// with the same element type, shape and bytes are merged into one (the first
// by name); readers of the others read it instead.
#include <cstring>
#include <map>

#include "tessera/optimizer/basic_passes.h"
#include "tessera/optimizer/graph_editor.h"

namespace tessera {

namespace {

bool SameContents(const Tensor& a, const Tensor& b) {
  if (a.dtype() == DataType::kString) {
    for (int64_t i = 0; i < a.numel(); ++i)
      if (a.data<std::string>()[i] != b.data<std::string>()[i]) return false;
    return true;
  }
  if (a.nbytes() != b.nbytes()) return false;
  if (a.nbytes() == 0 || a.raw_data() == b.raw_data()) return true;
  return std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

// A cheap first filter: the bytes at both ends (all of them for small
// tensors). Distinct weights almost always differ there, so full compares
// only run between real duplicates.
uint64_t Fingerprint(const Tensor& t) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  auto mix = [&](const unsigned char* p, size_t n) {
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  };
  if (t.dtype() == DataType::kString) {
    for (int64_t i = 0; i < t.numel() && i < 16; ++i) {
      const std::string& s = t.data<std::string>()[i];
      mix(reinterpret_cast<const unsigned char*>(s.data()), s.size());
      mix(reinterpret_cast<const unsigned char*>("\0"), 1);
    }
  } else if (t.raw_data()) {
    constexpr size_t kEdge = 256;
    const auto* p = static_cast<const unsigned char*>(t.raw_data());
    size_t n = t.nbytes();
    if (n <= 2 * kEdge) {
      mix(p, n);
    } else {
      mix(p, kEdge);
      mix(p + n - kEdge, kEdge);
    }
  }
  return h;
}

class DuplicateInitializerMerging final : public GraphPass {
 public:
  std::string name() const override { return "DuplicateInitializerMerging"; }
  OptimizationLevel level() const override { return OptimizationLevel::kBasic; }

  int Apply(Graph& graph, const std::vector<std::string>& outer_scope, const PassContext& ctx) const override {
    GraphEditor editor(graph, outer_scope);
    // Group by (type, shape) first: bytes are only looked at where a duplicate is possible.
    std::map<std::pair<int, Shape>, std::vector<std::string>> groups;
    for (const auto& [name, t] : graph.initializers) {
      if (!editor.Constant(name) || editor.IsGraphOutput(name) || editor.UseCount(name) == 0) continue;
      groups[{static_cast<int>(t.dtype()), t.shape()}].push_back(name);
    }
    int merged = 0;
    for (const auto& [key, names] : groups) {
      if (names.size() < 2) continue;
      std::map<uint64_t, std::vector<std::string>> by_hash;  // names stay in sorted order
      for (const auto& name : names) by_hash[Fingerprint(graph.initializers.at(name))].push_back(name);
      for (const auto& [h, same_hash] : by_hash) {
        std::vector<std::string> kept;
        for (const auto& name : same_hash) {
          const Tensor& t = graph.initializers.at(name);
          bool replaced = false;
          for (const auto& k : kept)
            if (SameContents(graph.initializers.at(k), t)) {
              editor.ReplaceUses(name, k);
              replaced = true;
              ++merged;
              break;
            }
          if (!replaced) kept.push_back(name);
        }
      }
    }
    if (merged) editor.Commit();  // drops the now unread duplicates
    return merged;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeDuplicateInitializerMerging() { return std::make_unique<DuplicateInitializerMerging>(); }

}  // namespace tessera
