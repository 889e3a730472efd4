// Sanitizer builds only. libcupti opens libnvperf_host.so with RTLD_DEEPBIND, which
// AddressSanitizer refuses by ending the process (google/sanitizers issue 611). An
// executable that uses CUPTI's host API under ASan defines dlopen with this file: the
// same call without RTLD_DEEPBIND, passed on to the next dlopen (ASan's, then glibc's).
#include <dlfcn.h>

extern "C" void* dlopen(const char* file, int mode) noexcept {
  using Dlopen = void* (*)(const char*, int);
  static const Dlopen next_dlopen = reinterpret_cast<Dlopen>(dlsym(RTLD_NEXT, "dlopen"));
  return next_dlopen(file, mode & ~RTLD_DEEPBIND);
}
