#include "tessera/runtime/model_overrides.h"

#include <map>
#include <set>

#include "tessera/base/status.h"

namespace tessera {

namespace {

std::string ShapeText(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

const char* MatchWord(FreeDimensionOverride::Match m) {
  return m == FreeDimensionOverride::Match::kName ? "name" : "denotation";
}

}  // namespace

void ApplyFreeDimensionOverrides(Graph& graph, const std::vector<FreeDimensionOverride>& overrides,
                                 const std::string& model_name, const Logger& logger) {
  using Match = FreeDimensionOverride::Match;
  std::map<std::pair<Match, std::string>, int64_t> wanted;
  for (const auto& o : overrides) {
    if (o.key.empty())
      TS_THROW(kInvalidArgument, "model '", model_name, "': a free-dimension override by ", MatchWord(o.match),
               " has an empty ", MatchWord(o.match));
    if (o.value < 0)
      TS_THROW(kInvalidArgument, "model '", model_name, "': free-dimension override ", MatchWord(o.match), " '", o.key,
               "' = ", o.value, ": a dimension cannot be negative");
    auto [it, inserted] = wanted.emplace(std::make_pair(o.match, o.key), o.value);
    if (!inserted && it->second != o.value)
      TS_THROW(kInvalidArgument, "model '", model_name, "': free dimension ", MatchWord(o.match), " '", o.key,
               "' is overridden twice, with ", it->second, " and ", o.value);
  }
  if (wanted.empty()) return;

  std::set<std::pair<Match, std::string>> used;
  // The value for one dimension: a denotation names what a dimension means,
  // so it is looked up first, then the symbol.
  auto value_for = [&](const Dim& d) -> const std::pair<const std::pair<Match, std::string>, int64_t>* {
    if (!d.denotation.empty())
      if (auto it = wanted.find({Match::kDenotation, d.denotation}); it != wanted.end()) return &*it;
    if (!d.known() && !d.param.empty())
      if (auto it = wanted.find({Match::kName, d.param}); it != wanted.end()) return &*it;
    return nullptr;
  };
  std::set<std::string> fixed_symbols;
  for (auto& input : graph.inputs) {
    if (!input.type.is_tensor() || !input.type.shape) continue;
    auto& dims = *input.type.shape;
    for (size_t i = 0; i < dims.size(); ++i) {
      const auto* match = value_for(dims[i]);
      if (!match) continue;
      used.insert(match->first);
      if (dims[i].known()) {
        if (dims[i].value != match->second)
          TS_THROW(kInvalidArgument, "model '", model_name, "': input '", input.name, "' dimension ", i,
                   " (denotation ", dims[i].denotation, ") is fixed at ", dims[i].value,
                   "; the free-dimension override asks ", match->second);
        continue;
      }
      if (!dims[i].param.empty()) fixed_symbols.insert(dims[i].param);
      dims[i].value = match->second;
      dims[i].param.clear();
    }
  }
  // A symbol fixed on an input is the same dimension wherever else the
  // graph names it.
  for (const auto& [key, value] : wanted) {
    if (key.first != Match::kName) continue;
    auto fix = [&, &key = key, value = value](std::vector<ValueInfo>& infos) {
      for (auto& info : infos) {
        if (!info.type.is_tensor() || !info.type.shape) continue;
        for (auto& d : *info.type.shape)
          if (!d.known() && d.param == key.second && fixed_symbols.count(key.second)) {
            d.value = value;
            d.param.clear();
          }
      }
    };
    fix(graph.outputs);
    fix(graph.value_info);
  }
  for (const auto& [key, value] : wanted)
    if (!used.count(key))
      TS_LOG(logger, kWarning, "model '" << model_name << "': free-dimension override " << MatchWord(key.first) << " '"
                                         << key.second << "' = " << value << " matches no input dimension; ignored");
}

void ApplyInitializerOverrides(Graph& graph, const std::vector<InitializerOverride>& overrides,
                               const std::string& model_name) {
  for (const auto& o : overrides) {
    auto it = graph.initializers.find(o.name);
    if (it == graph.initializers.end())
      TS_THROW(kInvalidArgument, "model '", model_name, "': initializer '", o.name,
               "' supplied by the session options is no initializer of the graph");
    const Tensor& old = it->second;
    if (old.dtype() != o.tensor.dtype() || old.shape() != o.tensor.shape())
      TS_THROW(kInvalidArgument, "model '", model_name, "': initializer '", o.name, "' supplied as ",
               DataTypeName(o.tensor.dtype()), ShapeText(o.tensor.shape()), " replaces one of ",
               DataTypeName(old.dtype()), ShapeText(old.shape()), "; the type and shape must be the same");
    it->second = o.tensor;
  }
}

}  // namespace tessera
