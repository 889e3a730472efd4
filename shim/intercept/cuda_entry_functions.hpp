#pragma once
// The shim's wrappers of the entry points of entry_table.hpp, and the functions behind
// them: the next layer's (docs/design.md, "Stacking"), the driver's when no other
// interposer comes after the shim.
#include <atomic>
#include <optional>

#include "shim/intercept/cuda_entry_table.hpp"

// The next layer's functions found so far, by entry: null until the first lookup. Named
// for the trampolines of cuda_trampolines.S, which read it.
extern "C" __attribute__((visibility("hidden"))) std::atomic<void*>
    computeprof_real_functions[computeprof::shim::kEntryCount];

// The wrapper of a RECORDED_ENTRY: its exported symbol NAME is a trampoline
// (cuda_trampolines.S) that jumps straight to the driver while CUDA operations
// are not recorded and calls this otherwise; the body follows the macro:
//   COMPUTEPROF_WRAPPER(cuMemsetD8_v2, (CUdeviceptr d, unsigned char v, size_t n)) { ... }
#define COMPUTEPROF_WRAPPER(NAME, PARAMS) \
  extern "C" __attribute__((visibility("hidden"))) CUresult computeprof_recorded_##NAME PARAMS

namespace computeprof::shim {

// The shim's wrapper for an entry (its exported function).
void* wrapper_of(Entry e);

// The entry whose wrapper (exported function) is at `fn`, if `fn` is one of the shim's.
std::optional<Entry> own_entry_at(const void* fn);

// The function behind an entry: the next definition after the shim, else the already
// loaded libcuda's own; never one of the shim's wrappers; null when none has it.
void* find_real_entry(Entry e);

// The function behind an entry; found lazily (find_real_entry), then one load
// per call.
inline void* real_entry(Entry e) {
  if (void* fn = computeprof_real_functions[static_cast<std::size_t>(e)].load(std::memory_order_acquire)) return fn;
  return find_real_entry(e);
}

// Records in `slot` the function behind entry `e`, when the next layer's lookup (dlsym,
// cuGetProcAddress) has just handed it out. The first one seen is kept; one of the
// shim's own wrappers never is. A different one later is said once (a `computeprof:`
// line): the exception to "no allocation under dlsym", once a process, where one layer
// answers by two paths with two functions.
void note_answer(Entry e, std::atomic<void*>& slot, void* fn);

// note_answer for the function behind an entry's wrapper.
inline void note_real_entry(Entry e, void* fn) {
  note_answer(e, computeprof_real_functions[static_cast<std::size_t>(e)], fn);
}

template <Entry E>
typename EntryType<E>::type real() {
  return reinterpret_cast<typename EntryType<E>::type>(real_entry(E));
}



// The handle of the loaded libcuda, or null while none is loaded.
void* loaded_driver_handle();

// What a wrapper returns when the driver has no such function (it was reached
// without the driver being loaded: nothing sensible can be done); says so once.
CUresult missing_driver_function(Entry e);

// In a wrapper: `real_fn`, the real function of entry E, or return the error above.
#define COMPUTEPROF_REAL_OR_RETURN(E)                                                 \
  auto* real_fn = ::computeprof::shim::real<::computeprof::shim::Entry::E>();          \
  if (!real_fn) return ::computeprof::shim::missing_driver_function(::computeprof::shim::Entry::E)

}  // namespace computeprof::shim
