// A libcuda.so.1 whose every wrapped entry point only notes its own name when called:
// which driver function a call through the shim reached, whatever its arguments.
#include <cstdint>

namespace {
const char* g_last = "";
}

extern "C" __attribute__((visibility("default"))) const char* fake_driver_last_called() { return g_last; }

#define FAKE_ENTRY(sym) \
  extern "C" __attribute__((visibility("default"))) int sym() { g_last = #sym; return 0; }
#define ENTRY(sym, base, version, per_thread, pfn) FAKE_ENTRY(sym)
#include "shim/intercept/cuda_entries.def"
