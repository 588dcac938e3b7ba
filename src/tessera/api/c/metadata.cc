// OrtModelMetadata: a copy of the model's metadata taken when asked for.
#include "tessera/api/c/ort_objects.h"

namespace tessera::capi {

namespace {

OrtStatus* GetString(const OrtModelMetadata* m, OrtAllocator* allocator, char** value, const char* entry,
                     std::string OrtModelMetadata::*field) {
  return Guard([&] {
    Live(m, entry, "model_metadata");
    *NotNull(value, entry, "value") = AllocString(allocator, m->*field, entry);
  });
}

}  // namespace

OrtStatus* SessionGetModelMetadata(const OrtSession* session, OrtModelMetadata** out) noexcept {
  return Guard([&] {
    const Model& model = Live(session, "SessionGetModelMetadata", "session")->session->model();
    auto m = std::make_unique<OrtModelMetadata>();
    m->producer_name = model.producer_name;
    m->domain = model.domain;
    m->description = model.doc_string;
    m->version = model.model_version;
    m->custom = model.metadata;
    if (model.graph) {
      m->graph_name = model.graph->name;
      m->graph_description = model.graph->doc_string;
    }
    *NotNull(out, "SessionGetModelMetadata", "out") = m.release();
  });
}

void ReleaseModelMetadata(OrtModelMetadata* input) noexcept { ReleaseHandle(input, "ReleaseModelMetadata"); }

OrtStatus* ModelMetadataGetProducerName(const OrtModelMetadata* m, OrtAllocator* allocator, char** value) noexcept {
  return GetString(m, allocator, value, "ModelMetadataGetProducerName", &OrtModelMetadata::producer_name);
}
OrtStatus* ModelMetadataGetGraphName(const OrtModelMetadata* m, OrtAllocator* allocator, char** value) noexcept {
  return GetString(m, allocator, value, "ModelMetadataGetGraphName", &OrtModelMetadata::graph_name);
}
OrtStatus* ModelMetadataGetDomain(const OrtModelMetadata* m, OrtAllocator* allocator, char** value) noexcept {
  return GetString(m, allocator, value, "ModelMetadataGetDomain", &OrtModelMetadata::domain);
}
OrtStatus* ModelMetadataGetDescription(const OrtModelMetadata* m, OrtAllocator* allocator, char** value) noexcept {
  return GetString(m, allocator, value, "ModelMetadataGetDescription", &OrtModelMetadata::description);
}
OrtStatus* ModelMetadataGetGraphDescription(const OrtModelMetadata* m, OrtAllocator* allocator,
                                            char** value) noexcept {
  return GetString(m, allocator, value, "ModelMetadataGetGraphDescription", &OrtModelMetadata::graph_description);
}

OrtStatus* ModelMetadataGetVersion(const OrtModelMetadata* m, int64_t* value) noexcept {
  return Guard([&] {
    *NotNull(value, "ModelMetadataGetVersion", "value") = Live(m, "ModelMetadataGetVersion", "model_metadata")->version;
  });
}

// A missing key is not an error: *value becomes NULL, as in ORT.
OrtStatus* ModelMetadataLookupCustomMetadataMap(const OrtModelMetadata* m, OrtAllocator* allocator, const char* key,
                                                char** value) noexcept {
  const char* entry = "ModelMetadataLookupCustomMetadataMap";
  return Guard([&] {
    Live(m, entry, "model_metadata");
    NotNull(value, entry, "value");
    auto it = m->custom.find(NotNull(key, entry, "key"));
    *value = it == m->custom.end() ? nullptr : AllocString(allocator, it->second, entry);
  });
}

OrtStatus* ModelMetadataGetCustomMetadataMapKeys(const OrtModelMetadata* m, OrtAllocator* allocator, char*** keys,
                                                 int64_t* num_keys) noexcept {
  const char* entry = "ModelMetadataGetCustomMetadataMapKeys";
  return Guard([&] {
    Live(m, entry, "model_metadata");
    NotNull(allocator, entry, "allocator");
    NotNull(keys, entry, "keys");
    NotNull(num_keys, entry, "num_keys");
    *num_keys = static_cast<int64_t>(m->custom.size());
    *keys = nullptr;
    if (m->custom.empty()) return;
    auto** list = static_cast<char**>(allocator->Alloc(allocator, m->custom.size() * sizeof(char*)));
    if (!list) TS_THROW(kResourceExhausted, entry, ": the allocator returned no memory");
    size_t i = 0;
    for (const auto& [k, v] : m->custom) list[i++] = AllocString(allocator, k, entry);
    *keys = list;
  });
}

}  // namespace tessera::capi
