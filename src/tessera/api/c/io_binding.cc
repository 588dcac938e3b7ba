// OrtIoBinding: inputs and outputs bound by name ahead of RunWithBinding.
// An output bound to a value receives the result in that value's memory;
// one bound to a device (host memory is the only one here) gets a new value.
#include "tessera/api/c/ort_objects.h"

namespace tessera::capi {

void CheckRunOptions(const OrtRunOptions* run_options, const char* entry);

namespace {

void CheckOutputName(const OrtIoBinding& b, const std::string& name, const char* entry) {
  for (const auto& out : b.session->session->outputs())
    if (out.name == name) return;
  TS_THROW(kInvalidArgument, entry, ": the model has no output '", name, "'");
}

void SetOutput(OrtIoBinding& b, const std::string& name, std::optional<Value> preallocated) {
  std::lock_guard<std::mutex> lock(b.mutex);
  for (auto& out : b.outputs)
    if (out.name == name) {
      out.preallocated = std::move(preallocated);
      return;
    }
  b.outputs.push_back({name, std::move(preallocated)});
}

}  // namespace

OrtStatus* CreateIoBinding(OrtSession* session, OrtIoBinding** out) noexcept {
  return Guard([&] {
    Live(session, "CreateIoBinding", "session");
    auto b = std::make_unique<OrtIoBinding>();
    b->session = session;
    *NotNull(out, "CreateIoBinding", "out") = b.release();
  });
}

void ReleaseIoBinding(OrtIoBinding* input) noexcept { ReleaseHandle(input, "ReleaseIoBinding"); }

OrtStatus* BindInput(OrtIoBinding* binding_ptr, const char* name, const OrtValue* val_ptr) noexcept {
  return Guard([&] {
    OrtIoBinding& b = *Live(binding_ptr, "BindInput", "binding_ptr");
    std::string n = NotNull(name, "BindInput", "name");
    const Value& v = Live(val_ptr, "BindInput", "val_ptr")->value;
    std::lock_guard<std::mutex> lock(b.mutex);
    for (auto& [bound, value] : b.inputs)
      if (bound == n) {
        value = v;
        return;
      }
    b.inputs.emplace_back(n, v);
  });
}

OrtStatus* BindOutput(OrtIoBinding* binding_ptr, const char* name, const OrtValue* val_ptr) noexcept {
  return Guard([&] {
    OrtIoBinding& b = *Live(binding_ptr, "BindOutput", "binding_ptr");
    std::string n = NotNull(name, "BindOutput", "name");
    const Value& v = Live(val_ptr, "BindOutput", "val_ptr")->value;
    CheckOutputName(b, n, "BindOutput");
    if (!v.is_tensor()) TS_THROW(kInvalidArgument, "BindOutput: output '", n, "' must be bound to a tensor, got ", v.Describe());
    SetOutput(b, n, v);  // shares the value's buffer: results land in the client's memory
  });
}

OrtStatus* BindOutputToDevice(OrtIoBinding* binding_ptr, const char* name, const OrtMemoryInfo* mem_info_ptr) noexcept {
  return Guard([&] {
    OrtIoBinding& b = *Live(binding_ptr, "BindOutputToDevice", "binding_ptr");
    std::string n = NotNull(name, "BindOutputToDevice", "name");
    const OrtMemoryInfo* info = Live(mem_info_ptr, "BindOutputToDevice", "mem_info_ptr");
    if (info->device_type != OrtMemoryInfoDeviceType_CPU)
      TS_THROW(kInvalidArgument, "BindOutputToDevice: memory '", info->name,
               "' is a device's; Tessera's C API returns outputs in host memory only");
    CheckOutputName(b, n, "BindOutputToDevice");
    SetOutput(b, n, std::nullopt);
  });
}

void ClearBoundInputs(OrtIoBinding* binding_ptr) noexcept {
  if (!binding_ptr || !IsLiveHandle(binding_ptr, HandleKind::kIoBinding)) return;
  std::lock_guard<std::mutex> lock(binding_ptr->mutex);
  binding_ptr->inputs.clear();
}

void ClearBoundOutputs(OrtIoBinding* binding_ptr) noexcept {
  if (!binding_ptr || !IsLiveHandle(binding_ptr, HandleKind::kIoBinding)) return;
  std::lock_guard<std::mutex> lock(binding_ptr->mutex);
  binding_ptr->outputs.clear();
  binding_ptr->results.clear();
}

// Host memory needs no synchronization: both only check the handle.
OrtStatus* SynchronizeBoundInputs(OrtIoBinding* binding_ptr) noexcept {
  return Guard([&] { Live(binding_ptr, "SynchronizeBoundInputs", "binding_ptr"); });
}
OrtStatus* SynchronizeBoundOutputs(OrtIoBinding* binding_ptr) noexcept {
  return Guard([&] { Live(binding_ptr, "SynchronizeBoundOutputs", "binding_ptr"); });
}

OrtStatus* RunWithBinding(OrtSession* session, const OrtRunOptions* run_options, const OrtIoBinding* binding_ptr) noexcept {
  return Guard([&] {
    Live(session, "RunWithBinding", "session");
    CheckRunOptions(run_options, "RunWithBinding");
    // The binding is this library's object; RunWithBinding records its
    // results in it as ORT's does.
    auto& b = *const_cast<OrtIoBinding*>(Live(binding_ptr, "RunWithBinding", "binding_ptr"));
    if (b.session != session)
      TS_THROW(kInvalidArgument, "RunWithBinding: the binding was created for another session");
    std::lock_guard<std::mutex> lock(b.mutex);
    if (b.outputs.empty()) TS_THROW(kInvalidArgument, "RunWithBinding: no outputs are bound");
    std::vector<std::string> names;
    for (const auto& out : b.outputs) names.push_back(out.name);
    std::vector<const Value*> preallocated;
    for (const auto& out : b.outputs) preallocated.push_back(out.preallocated ? &*out.preallocated : nullptr);
    const BoundOutputMap bound = BoundTargets(names, preallocated);
    std::vector<Value> results;
    {
      ScopedBoundOutputs in_place(bound.empty() ? nullptr : &bound);
      results = session->session->Run(b.inputs, names);
    }
    std::vector<Value> kept;
    for (size_t i = 0; i < results.size(); ++i) {
      if (b.outputs[i].preallocated) {
        CopyIntoPreallocated(results[i], *b.outputs[i].preallocated, names[i]);
        kept.push_back(*b.outputs[i].preallocated);
      } else {
        kept.push_back(DetachOutput(std::move(results[i])));
      }
    }
    b.results = std::move(kept);
  });
}

// One buffer of all names back to back and an array of their lengths, both
// from the allocator.
OrtStatus* GetBoundOutputNames(const OrtIoBinding* binding_ptr, OrtAllocator* allocator, char** buffer,
                               size_t** lengths, size_t* count) noexcept {
  const char* entry = "GetBoundOutputNames";
  return Guard([&] {
    auto& b = *const_cast<OrtIoBinding*>(Live(binding_ptr, entry, "binding_ptr"));
    NotNull(allocator, entry, "allocator");
    NotNull(buffer, entry, "buffer");
    NotNull(lengths, entry, "lengths");
    NotNull(count, entry, "count");
    std::lock_guard<std::mutex> lock(b.mutex);
    *buffer = nullptr;
    *lengths = nullptr;
    *count = b.outputs.size();
    if (b.outputs.empty()) return;
    size_t total = 0;
    for (const auto& out : b.outputs) total += out.name.size();
    auto* names = static_cast<char*>(allocator->Alloc(allocator, total == 0 ? 1 : total));
    auto* sizes = static_cast<size_t*>(allocator->Alloc(allocator, b.outputs.size() * sizeof(size_t)));
    if (!names || !sizes) {
      if (names) allocator->Free(allocator, names);
      if (sizes) allocator->Free(allocator, sizes);
      TS_THROW(kResourceExhausted, entry, ": the allocator returned no memory");
    }
    size_t at = 0;
    for (size_t i = 0; i < b.outputs.size(); ++i) {
      std::memcpy(names + at, b.outputs[i].name.data(), b.outputs[i].name.size());
      sizes[i] = b.outputs[i].name.size();
      at += sizes[i];
    }
    *buffer = names;
    *lengths = sizes;
  });
}

// New OrtValues (the caller releases each) in an array from the allocator.
OrtStatus* GetBoundOutputValues(const OrtIoBinding* binding_ptr, OrtAllocator* allocator, OrtValue*** output,
                                size_t* output_count) noexcept {
  const char* entry = "GetBoundOutputValues";
  return Guard([&] {
    auto& b = *const_cast<OrtIoBinding*>(Live(binding_ptr, entry, "binding_ptr"));
    NotNull(allocator, entry, "allocator");
    NotNull(output, entry, "output");
    NotNull(output_count, entry, "output_count");
    std::lock_guard<std::mutex> lock(b.mutex);
    *output = nullptr;
    *output_count = b.results.size();
    if (b.results.empty()) return;
    std::vector<std::unique_ptr<OrtValue>> values;
    for (const Value& v : b.results) values.push_back(std::make_unique<OrtValue>(v));
    auto** array = static_cast<OrtValue**>(allocator->Alloc(allocator, values.size() * sizeof(OrtValue*)));
    if (!array) TS_THROW(kResourceExhausted, entry, ": the allocator returned no memory");
    for (size_t i = 0; i < values.size(); ++i) array[i] = values[i].release();
    *output = array;
  });
}

}  // namespace tessera::capi
