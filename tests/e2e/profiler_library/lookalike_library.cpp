// Built as libcupti_lookalike.so: a library the shim takes for one of NVIDIA's
// profiling libraries (by its file name), looking driver functions up for itself.
#include <dlfcn.h>

// Not a tail call: dlsym must see this library as its caller, as it does for CUPTI's
// own calls (a sibling call would hand it the program's return address).
extern "C" __attribute__((visibility("default"))) void* lookalike_dlsym(void* handle, const char* name) {
  void* address = dlsym(handle, name);
  asm volatile("" : : "r"(address) : "memory");
  return address;
}
