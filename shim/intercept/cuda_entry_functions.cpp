#include "shim/intercept/cuda_entry_functions.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <string>

#include "config/report.hpp"

#include "shim/intercept/real_dlsym.hpp"

// Every wrapper, declared with the exact type of its variant.
#define ENTRY(sym, base, version, per_thread, pfn) extern "C" std::remove_pointer_t<pfn> sym;
#include "shim/intercept/cuda_entries.def"
#undef ENTRY

// Zero-initialised: constant initialisation, no constructor (the dlsym hook can run
// before the shim's constructors).
std::atomic<void*> computeprof_real_functions[computeprof::shim::kEntryCount];

namespace computeprof::shim {
namespace {

// Zero-initialised: constant initialisation, no constructor (the dlsym hook can run
// before the shim's constructors).
std::atomic<void*> g_driver_handle{nullptr};

}  // namespace

// A switch, not a table: no static initialiser, so the answer is right even when the
// dlsym hook runs before the shim's constructors.
void* wrapper_of(Entry e) {
  switch (e) {
#define ENTRY(sym, base, version, per_thread, pfn) \
  case Entry::sym:                                 \
    return reinterpret_cast<void*>(&::sym);
#include "shim/intercept/cuda_entries.def"
#undef ENTRY
  }
  return nullptr;
}

void* loaded_driver_handle() {
  if (void* h = g_driver_handle.load(std::memory_order_acquire)) return h;
  // RTLD_NOLOAD: never the shim's doing that the driver is loaded.
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!h) h = dlopen("libcuda.so", RTLD_LAZY | RTLD_NOLOAD);
  if (h) g_driver_handle.store(h, std::memory_order_release);
  return h;
}

std::optional<Entry> own_entry_at(const void* fn) {
  if (!fn) return std::nullopt;
  for (std::size_t i = 0; i < kEntryCount; ++i) {
    if (wrapper_of(static_cast<Entry>(i)) == fn) return static_cast<Entry>(i);
  }
  return std::nullopt;
}

void* find_real_entry(Entry e) {
  auto& slot = computeprof_real_functions[static_cast<std::size_t>(e)];
  if (void* fn = slot.load(std::memory_order_acquire)) return fn;
  // Symbols are string literals, so data() is NUL-terminated.
  const char* symbol = entry_info(e).symbol.data();
  // The next definition after the shim: another layer's, or libcuda's when the
  // application links it.
  void* fn = next_definition(symbol);
  // Loaded RTLD_LOCAL by dlopen, with no layer after the shim: only its own handle finds it.
  if (!fn || own_entry_at(fn)) {
    void* h = loaded_driver_handle();
    fn = h ? glibc_dlsym(h, symbol) : nullptr;
  }
  if (!fn || own_entry_at(fn)) return nullptr;
  void* expected = nullptr;
  slot.compare_exchange_strong(expected, fn, std::memory_order_acq_rel);
  return slot.load(std::memory_order_acquire);
}

CUresult missing_driver_function(Entry e) {
  config::warn_once(std::string("the CUDA driver's ") + std::string(entry_info(e).symbol) +
                    " was not found; returning CUDA_ERROR_SHARED_OBJECT_INIT_FAILED");
  return CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;
}

void note_answer(Entry e, std::atomic<void*>& slot, void* fn) {
  if (!fn || own_entry_at(fn)) return;
  void* kept = nullptr;
  if (slot.compare_exchange_strong(kept, fn, std::memory_order_acq_rel) || kept == fn) return;
  // Two answers for one entry point: another layer hands out a function of its own by
  // one path and not by another. The shim has one function per entry point.
  config::warn_once(std::string("another CUDA interposer answers ") + std::string(entry_info(e).symbol) +
                    " by this lookup with another function than computeprof already calls; computeprof's "
                    "wrapper calls the first it found");
}

}  // namespace computeprof::shim
