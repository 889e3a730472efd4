// A shared library that uses NVTX on its own, as libtorch or NCCL do: NVTX's loader
// runs a second time for it, with its own function tables.
#include <nvtx3/nvToolsExt.h>

// Opens the range "layer" of domain "lib" (a registered string), calls `work` inside
// it, and closes it.
extern "C" __attribute__((visibility("default"))) void run_layer(void (*work)()) {
  static nvtxDomainHandle_t domain = nvtxDomainCreateA("lib");
  static nvtxStringHandle_t layer = nvtxDomainRegisterStringA(domain, "layer");
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = layer;
  nvtxDomainRangePushEx(domain, &a);
  work();
  nvtxDomainRangePop(domain);
}
