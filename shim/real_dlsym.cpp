#include "shim/real_dlsym.hpp"

#include <dlfcn.h>

__attribute__((visibility("hidden"))) std::atomic<void*> computeprof_real_dlsym{nullptr};

namespace computeprof::shim {

void resolve_real_dlsym() {
  if (computeprof_real_dlsym.load(std::memory_order_acquire)) return;
  // glibc 2.34 moved dlsym into libc under a new version; older ones only have the
  // base version. Racing threads store the same address.
  void* fn = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
#if defined(__x86_64__)
  if (!fn) fn = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
#elif defined(__aarch64__)
  if (!fn) fn = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.17");
#endif
  computeprof_real_dlsym.store(fn, std::memory_order_release);
}

}  // namespace computeprof::shim
