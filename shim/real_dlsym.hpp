#pragma once
// glibc's dlsym, reached without going through the shim's own dlsym.
#include <atomic>

// C linkage: the dlsym thunk (dlsym_thunk.S) jumps through it.
extern "C" std::atomic<void*> computeprof_real_dlsym;

namespace computeprof::shim {

// Finds glibc's dlsym by versioned lookup, so the shim's own dlsym is never returned.
// Safe from any thread, any number of times.
void resolve_real_dlsym();

inline void* real_dlsym(void* handle, const char* name) {
  resolve_real_dlsym();
  auto* fn = reinterpret_cast<void* (*)(void*, const char*)>(computeprof_real_dlsym.load(std::memory_order_acquire));
  return fn ? fn(handle, name) : nullptr;
}

}  // namespace computeprof::shim
