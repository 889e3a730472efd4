#pragma once
// glibc's dlsym, reached without going through the shim's own dlsym.
// C linkage: the dlsym thunk (dlsym_thunk.S) jumps through it. A plain pointer read
// and written with atomic builtins, not std::atomic: this path runs before sanitizer
// runtimes initialise, where an out-of-line std::atomic member taken from an
// instrumented object would crash.
extern "C" void* computeprof_real_dlsym;

namespace computeprof::shim {

// Finds glibc's dlsym by versioned lookup, so the shim's own dlsym is never returned.
// Safe from any thread, any number of times.
void resolve_real_dlsym();

inline void* real_dlsym(void* handle, const char* name) {
  resolve_real_dlsym();
  auto* fn = reinterpret_cast<void* (*)(void*, const char*)>(__atomic_load_n(&computeprof_real_dlsym, __ATOMIC_ACQUIRE));
  return fn ? fn(handle, name) : nullptr;
}

}  // namespace computeprof::shim
