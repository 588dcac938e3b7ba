#include "tessera/runtime/kv_cache.h"

#include "tessera/base/status.h"

namespace tessera {

namespace {

// Whether `present` is output `slot` (1 key, 2 value) of a GroupQueryAttention
// whose past input (3 key, 4 value) is the graph input `past`.
bool WrittenInPlaceByGqa(const Graph& graph, const std::string& past, const std::string& present) {
  for (const Node& node : graph.nodes) {
    if (node.op_type != "GroupQueryAttention" || node.domain != "com.microsoft") continue;
    for (size_t slot : {size_t{1}, size_t{2}})
      if (node.outputs.size() > slot && node.outputs[slot] == present)
        return node.inputs.size() > slot + 2 && node.inputs[slot + 2] == past;
  }
  return false;
}

}  // namespace

std::vector<KvCacheSlot> KvCacheSlots(const Session& session) {
  const std::string prefix = "past_key_values.";
  std::vector<KvCacheSlot> slots;
  for (const auto& in : session.inputs()) {
    if (in.name.rfind(prefix, 0) != 0) continue;
    std::string present = "present." + in.name.substr(prefix.size());
    bool found = false;
    for (const auto& out : session.outputs()) found |= out.name == present;
    if (!found)
      TS_THROW(kInvalidModel, "model '", session.model().DisplayName(), "': cache input '", in.name,
               "' has no output '", present, "'");
    const bool shares = session.model().graph && WrittenInPlaceByGqa(*session.model().graph, in.name, present);
    slots.push_back({in.name, std::move(present), in.type, shares});
  }
  return slots;
}

}  // namespace tessera
