#pragma once
// glibc's dlsym, and the next layer's, reached without going through the shim's own
// dlsym. C linkage: the dlsym thunk (dlsym_thunk.S) jumps through the next one. Plain
// pointers read and written with atomic builtins, not std::atomic: this path runs
// before sanitizer runtimes initialise, where an out-of-line std::atomic member taken
// from an instrumented object would crash.
extern "C" void* computeprof_real_dlsym;
extern "C" void* computeprof_glibc_dlsym;

namespace computeprof::shim {

// Finds glibc's dlsym by versioned lookup, so the shim's own dlsym is never returned,
// and the next dlsym after the shim. Safe from any thread, any number of times.
void resolve_real_dlsym();

// The next layer's dlsym (an interposer loaded after the shim that hooks dlsym, else
// glibc's): what a lookup the shim passes on would have reached without the shim.
inline void* real_dlsym(void* handle, const char* name) {
  resolve_real_dlsym();
  auto* fn = reinterpret_cast<void* (*)(void*, const char*)>(__atomic_load_n(&computeprof_real_dlsym, __ATOMIC_ACQUIRE));
  return fn ? fn(handle, name) : nullptr;
}

// glibc's own dlsym on a handle: the library's own definition, whatever a layer that
// hooks dlsym would answer.
inline void* glibc_dlsym(void* handle, const char* name) {
  resolve_real_dlsym();
  auto* fn = reinterpret_cast<void* (*)(void*, const char*)>(__atomic_load_n(&computeprof_glibc_dlsym, __ATOMIC_ACQUIRE));
  return fn ? fn(handle, name) : nullptr;
}

// The next definition of `name` after the shim (dlsym(RTLD_NEXT) asked of glibc from the
// shim itself): what a call bound to the shim's symbol would have reached without it. A
// layer's hooked dlsym would resolve RTLD_NEXT from that layer instead, past itself.
void* next_definition(const char* name);

}  // namespace computeprof::shim
