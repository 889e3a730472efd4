#include "shim/intercept/real_dlsym.hpp"

#include <dlfcn.h>

__attribute__((visibility("hidden"))) void* computeprof_real_dlsym = nullptr;
__attribute__((visibility("hidden"))) void* computeprof_glibc_dlsym = nullptr;

namespace computeprof::shim {

void resolve_real_dlsym() {
  if (__atomic_load_n(&computeprof_real_dlsym, __ATOMIC_ACQUIRE)) return;
  // glibc 2.34 moved dlsym into libc under a new version; older ones only have the
  // base version. Racing threads store the same address.
  void* glibc = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
#if defined(__x86_64__)
  if (!glibc) glibc = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
#elif defined(__aarch64__)
  if (!glibc) glibc = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.17");
#endif
  // The next dlsym after the shim, versioned or not: an interposer loaded after the shim
  // that hooks dlsym too (dlvsym would skip an unversioned one) sees the lookups the
  // shim passes on. glibc resolves RTLD_NEXT from its caller, this library.
  using Dlsym = void* (*)(void*, const char*);
  void* next = glibc ? reinterpret_cast<Dlsym>(glibc)(RTLD_NEXT, "dlsym") : nullptr;
  __atomic_store_n(&computeprof_glibc_dlsym, glibc, __ATOMIC_RELEASE);
  __atomic_store_n(&computeprof_real_dlsym, next ? next : glibc, __ATOMIC_RELEASE);
}

// Out of line and never a tail call: glibc resolves RTLD_NEXT from the address its call
// returns to, which must lie in the shim.
__attribute__((noinline)) void* next_definition(const char* name) {
  void* fn = glibc_dlsym(RTLD_NEXT, name);
  __asm__ volatile("" : : "r"(fn) : "memory");
  return fn;
}

}  // namespace computeprof::shim
