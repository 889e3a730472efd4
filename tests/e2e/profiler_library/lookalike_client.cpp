// Looks up cuLaunchKernel on a libcuda handle twice, from the program and from
// libcupti_lookalike.so, and prints the file each address lies in:
//   program: <file>
//   profiler library: <file>
#include <dlfcn.h>

#include <cstdio>

extern "C" void* lookalike_dlsym(void* handle, const char* name);

namespace {
const char* file_of(void* address) {
  Dl_info info;
  if (!address || dladdr(address, &info) == 0 || !info.dli_fname) return "(none)";
  return info.dli_fname;
}
}  // namespace

int main() {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  std::printf("program: %s\n", file_of(dlsym(driver, "cuLaunchKernel")));
  std::printf("profiler library: %s\n", file_of(lookalike_dlsym(driver, "cuLaunchKernel")));
  return 0;
}
