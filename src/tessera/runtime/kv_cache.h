// The KV cache of a decoder in the layout ONNX Runtime's LLM builder writes:
// past_key_values.{i}.key/.value inputs, present.{i}.key/.value outputs.
// A cache can be kept in one buffer for the whole generation (ORT's
// past_present_share_buffer) when each present is written by a
// com.microsoft GroupQueryAttention from its own past: that kernel keeps
// the past's capacity (present length = max(past, total)) and, when the
// caller binds the present to the past's memory (bound_outputs.h), only
// writes the new rows. Other attention forms (Attention, MultiHeadAttention,
// Concat) append to the past, so their caches grow a step at a time.
#pragma once

#include <string>
#include <vector>

#include "tessera/runtime/session.h"

namespace tessera {

struct KvCacheSlot {
  std::string past, present;  // graph input and output names
  TypeInfo type;              // the past's declared type
  bool shares_buffer = false;  // past and present may be one buffer
};

// The cache slots of `session`'s model, in input order; throws when a
// past_key_values input has no matching present output.
std::vector<KvCacheSlot> KvCacheSlots(const Session& session);

}  // namespace tessera
