#include "shim/intercept/real_dlsym.hpp"

#include <dlfcn.h>

__attribute__((visibility("hidden"))) void* computeprof_real_dlsym = nullptr;

namespace computeprof::shim {

void resolve_real_dlsym() {
  if (__atomic_load_n(&computeprof_real_dlsym, __ATOMIC_ACQUIRE)) return;
  // glibc 2.34 moved dlsym into libc under a new version; older ones only have the
  // base version. Racing threads store the same address.
  void* fn = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
#if defined(__x86_64__)
  if (!fn) fn = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
#elif defined(__aarch64__)
  if (!fn) fn = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.17");
#endif
  __atomic_store_n(&computeprof_real_dlsym, fn, __ATOMIC_RELEASE);
}

}  // namespace computeprof::shim
