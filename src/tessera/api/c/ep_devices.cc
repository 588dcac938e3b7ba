// ORT's execution-provider devices (API 22 on): the host CPU as the one
// hardware device, and an EP device for each of Tessera's providers that
// computes on it ("CPUExecutionProvider", "DnnlExecutionProvider"; the
// OpenCL EP's device is whatever OpenCL finds, so it is appended by name
// only). Appending EP devices to session options appends their providers.
// The objects live as long as the library.
#include <mutex>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "tessera/api/c/ort_objects.h"
#include "tessera/api/providers.h"

struct OrtHardwareDevice : Tracked<OrtHardwareDevice, HandleKind::kHardwareDevice> {
  OrtHardwareDeviceType type = OrtHardwareDeviceType_CPU;
  uint32_t vendor_id = 0;
  std::string vendor;
  uint32_t device_id = 0;
  OrtKeyValuePairs metadata;
};

struct OrtEpDevice : Tracked<OrtEpDevice, HandleKind::kEpDevice> {
  std::string ep_name;
  std::string provider;  // Tessera's name
  std::string ep_vendor = "Tessera";
  OrtKeyValuePairs ep_metadata;
  OrtKeyValuePairs ep_options;
  const OrtHardwareDevice* device = nullptr;
};

namespace tessera::capi {

namespace {

// The CPU's vendor string from cpuid, with the PCI vendor id ORT reports
// for it.
void DescribeCpu(OrtHardwareDevice& d) {
  d.vendor = "unknown";
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, dx = 0;
  if (__get_cpuid(0, &a, &b, &c, &dx)) {
    char name[13];
    std::memcpy(name, &b, 4);
    std::memcpy(name + 4, &dx, 4);
    std::memcpy(name + 8, &c, 4);
    name[12] = '\0';
    d.vendor = name;
  }
#endif
  if (d.vendor == "GenuineIntel") d.vendor_id = 0x8086;
  else if (d.vendor == "AuthenticAMD") d.vendor_id = 0x1022;
}

struct Devices {
  OrtHardwareDevice cpu;
  std::vector<std::unique_ptr<OrtEpDevice>> eps;
  std::vector<const OrtEpDevice*> ep_list;
};

const Devices& TheDevices() {
  static Devices* devices = [] {
    auto* d = new Devices;
    DescribeCpu(d->cpu);
    for (const std::string& p : AvailableProviders()) {
      if (p != "cpu" && p != "dnnl") continue;
      auto ep = std::make_unique<OrtEpDevice>();
      ep->provider = p;
      ep->ep_name = p == "cpu" ? "CPUExecutionProvider" : "DnnlExecutionProvider";
      ep->ep_metadata.Set("tessera.provider", p);
      ep->device = &d->cpu;
      d->ep_list.push_back(ep.get());
      d->eps.push_back(std::move(ep));
    }
    return d;
  }();
  return *devices;
}

bool LiveDevice(const OrtHardwareDevice* d) { return d && IsLiveHandle(d, HandleKind::kHardwareDevice); }
bool LiveEp(const OrtEpDevice* d) { return d && IsLiveHandle(d, HandleKind::kEpDevice); }

}  // namespace

OrtStatus* GetEpDevices(const OrtEnv* env, const OrtEpDevice* const** ep_devices, size_t* num_ep_devices) noexcept {
  return Guard([&] {
    Live(env, "GetEpDevices", "env");
    NotNull(ep_devices, "GetEpDevices", "ep_devices");
    NotNull(num_ep_devices, "GetEpDevices", "num_ep_devices");
    const Devices& d = TheDevices();
    *ep_devices = d.ep_list.data();
    *num_ep_devices = d.ep_list.size();
  });
}

OrtStatus* GetNumHardwareDevices(const OrtEnv* env, size_t* num_devices) noexcept {
  return Guard([&] {
    Live(env, "GetNumHardwareDevices", "env");
    *NotNull(num_devices, "GetNumHardwareDevices", "num_devices") = 1;
  });
}

OrtStatus* GetHardwareDevices(const OrtEnv* env, const OrtHardwareDevice** devices, size_t num_devices) noexcept {
  return Guard([&] {
    Live(env, "GetHardwareDevices", "env");
    if (num_devices != 1)
      TS_THROW(kInvalidArgument, "GetHardwareDevices: there is 1 hardware device (the host CPU), not ", num_devices);
    NotNull(devices, "GetHardwareDevices", "devices")[0] = &TheDevices().cpu;
  });
}

OrtStatus* SessionOptionsAppendExecutionProvider_V2(OrtSessionOptions* session_options, OrtEnv* env,
                                                    const OrtEpDevice* const* ep_devices, size_t num_ep_devices,
                                                    const char* const* ep_option_keys,
                                                    const char* const* ep_option_vals, size_t num_ep_options) noexcept {
  const char* entry = "SessionOptionsAppendExecutionProvider_V2";
  return Guard([&] {
    Live(session_options, entry, "session_options");
    Live(env, entry, "env");
    if (num_ep_devices == 0) TS_THROW(kInvalidArgument, entry, ": no EP devices given");
    NotNull(ep_devices, entry, "ep_devices");
    std::vector<const char*> keys, values;
    for (size_t i = 0; i < num_ep_devices; ++i) {
      const OrtEpDevice* d = Live(ep_devices[i], entry, "ep_devices[i]");
      // The provider options apply to every device's provider.
      OrtStatus* st = SessionOptionsAppendExecutionProvider(session_options, d->ep_name.c_str(), ep_option_keys,
                                                            ep_option_vals, num_ep_options);
      if (st) {
        std::string message = st->message;
        ReleaseStatus(st);
        TS_THROW(kInvalidArgument, message);
      }
    }
  });
}

// Plain getters: NULL (or 0) for a handle that is not a live device.
OrtHardwareDeviceType HardwareDevice_Type(const OrtHardwareDevice* device) noexcept {
  return LiveDevice(device) ? device->type : OrtHardwareDeviceType_CPU;
}
uint32_t HardwareDevice_VendorId(const OrtHardwareDevice* device) noexcept {
  return LiveDevice(device) ? device->vendor_id : 0;
}
const char* HardwareDevice_Vendor(const OrtHardwareDevice* device) noexcept {
  return LiveDevice(device) ? device->vendor.c_str() : nullptr;
}
uint32_t HardwareDevice_DeviceId(const OrtHardwareDevice* device) noexcept {
  return LiveDevice(device) ? device->device_id : 0;
}
const OrtKeyValuePairs* HardwareDevice_Metadata(const OrtHardwareDevice* device) noexcept {
  return LiveDevice(device) ? &device->metadata : nullptr;
}
const char* EpDevice_EpName(const OrtEpDevice* ep_device) noexcept {
  return LiveEp(ep_device) ? ep_device->ep_name.c_str() : nullptr;
}
const char* EpDevice_EpVendor(const OrtEpDevice* ep_device) noexcept {
  return LiveEp(ep_device) ? ep_device->ep_vendor.c_str() : nullptr;
}
const OrtKeyValuePairs* EpDevice_EpMetadata(const OrtEpDevice* ep_device) noexcept {
  return LiveEp(ep_device) ? &ep_device->ep_metadata : nullptr;
}
const OrtKeyValuePairs* EpDevice_EpOptions(const OrtEpDevice* ep_device) noexcept {
  return LiveEp(ep_device) ? &ep_device->ep_options : nullptr;
}
const OrtHardwareDevice* EpDevice_Device(const OrtEpDevice* ep_device) noexcept {
  return LiveEp(ep_device) ? ep_device->device : nullptr;
}
const OrtMemoryInfo* EpDevice_MemoryInfo(const OrtEpDevice* ep_device, OrtDeviceMemoryType memory_type) noexcept {
  return LiveEp(ep_device) && memory_type == OrtDeviceMemoryType_DEFAULT ? CpuMemoryInfo() : nullptr;
}

}  // namespace tessera::capi
