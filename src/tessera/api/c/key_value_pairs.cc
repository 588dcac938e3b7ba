// OrtKeyValuePairs: string maps the newer entries pass around (config
// entries, provider options). Its entries return no status, so a bad handle
// or a NULL argument is a no-op (or a NULL result).
#include "tessera/api/c/ort_objects.h"

void OrtKeyValuePairs::Set(const std::string& key, const std::string& value) {
  for (auto& [k, v] : entries)
    if (k == key) {
      v = value;
      RebuildPointers();
      return;
    }
  entries.emplace_back(key, value);
  RebuildPointers();
}

void OrtKeyValuePairs::Remove(const std::string& key) {
  for (auto it = entries.begin(); it != entries.end(); ++it)
    if (it->first == key) {
      entries.erase(it);
      break;
    }
  RebuildPointers();
}

const std::string* OrtKeyValuePairs::Find(const std::string& key) const {
  for (const auto& [k, v] : entries)
    if (k == key) return &v;
  return nullptr;
}

void OrtKeyValuePairs::RebuildPointers() {
  key_ptrs.clear();
  value_ptrs.clear();
  for (const auto& [k, v] : entries) {
    key_ptrs.push_back(k.c_str());
    value_ptrs.push_back(v.c_str());
  }
}

namespace tessera::capi {

namespace {
bool Usable(const OrtKeyValuePairs* kvps) { return kvps && IsLiveHandle(kvps, HandleKind::kKeyValuePairs); }
}  // namespace

void CreateKeyValuePairs(OrtKeyValuePairs** out) noexcept {
  if (!out) return;
  try {
    *out = new OrtKeyValuePairs;
  } catch (...) {
    *out = nullptr;
  }
}

void AddKeyValuePair(OrtKeyValuePairs* kvps, const char* key, const char* value) noexcept {
  if (!Usable(kvps) || !key || !value || !*key) return;
  try {
    kvps->Set(key, value);
  } catch (...) {
  }
}

const char* GetKeyValue(const OrtKeyValuePairs* kvps, const char* key) noexcept {
  if (!Usable(kvps) || !key) return nullptr;
  const std::string* v = kvps->Find(key);
  return v ? v->c_str() : nullptr;
}

void GetKeyValuePairs(const OrtKeyValuePairs* kvps, const char* const** keys, const char* const** values,
                      size_t* num_entries) noexcept {
  if (!keys || !values || !num_entries) return;
  if (!Usable(kvps)) {
    *keys = nullptr;
    *values = nullptr;
    *num_entries = 0;
    return;
  }
  *keys = kvps->key_ptrs.data();
  *values = kvps->value_ptrs.data();
  *num_entries = kvps->entries.size();
}

void RemoveKeyValuePair(OrtKeyValuePairs* kvps, const char* key) noexcept {
  if (Usable(kvps) && key) kvps->Remove(key);
}

void ReleaseKeyValuePairs(OrtKeyValuePairs* input) noexcept { ReleaseHandle(input, "ReleaseKeyValuePairs"); }

}  // namespace tessera::capi
