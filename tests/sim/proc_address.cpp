// cuGetProcAddress: hands out the simulated driver's OWN entry points, like the real
// driver (never a preloaded library's functions of the same names: the library links
// with -Bsymbolic). No cuda.h here, so every entry point can be declared alike.
//
// SIMCUDA_PER_THREAD_AS_DEFAULT=1: a request with the per-thread flag is answered with
// the default-stream variant, as drivers answer for an entry point that has no
// per-thread variant, found by its name in the process's global scope (as a layer that
// resolves names with dlsym(RTLD_DEFAULT) finds it): under an interposer, the
// interposer's function of the default-stream variant.
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#ifdef SIMCUDA_OLD_DRIVER
#define SIM_NEW_DRIVER_ENTRY(base, symbol, version, per_thread)
constexpr int kDriverVersion = 12020;
#else
#define SIM_NEW_DRIVER_ENTRY SIM_ENTRY
constexpr int kDriverVersion = 13000;
#endif

// Declared alike (as `void f()`) only to take their addresses; the lookup functions
// themselves are defined below with their real signatures.
#define SIM_ENTRY(base, symbol, version, per_thread) extern "C" void symbol();
#include "proc_address_table.def"
#undef SIM_ENTRY

namespace {

// Values of cuda.h.
constexpr int kSuccess = 0;
constexpr int kInvalidValue = 1;
constexpr unsigned long long kPerThreadFlag = 1ull << 1;
enum Status { kFound = 0, kSymbolNotFound = 1, kVersionNotSufficient = 2 };

struct Entry {
  const char* base;
  const char* symbol;
  void (*address)();
  int version;
  bool per_thread;
};

extern "C" int cuGetProcAddress(const char*, void**, int, unsigned long long);
extern "C" int cuGetProcAddress_v2(const char*, void**, int, unsigned long long, int*);

const Entry kEntries[] = {
#define SIM_ENTRY(base, symbol, version, per_thread) {#base, #symbol, &symbol, version, per_thread != 0},
#include "proc_address_table.def"
#undef SIM_ENTRY
    {"cuGetProcAddress", "cuGetProcAddress", reinterpret_cast<void (*)()>(&cuGetProcAddress), 11030, false},
    {"cuGetProcAddress", "cuGetProcAddress_v2", reinterpret_cast<void (*)()>(&cuGetProcAddress_v2), 12000, false},
};

int lookup(const char* symbol, void** pfn, int version, unsigned long long flags, int* status) {
  if (!symbol || !pfn) return kInvalidValue;
  if (version > kDriverVersion) return kInvalidValue;
  *pfn = nullptr;
  const bool want_per_thread = (flags & kPerThreadFlag) != 0;
  const Entry* best = nullptr;
  const Entry* best_per_thread = nullptr;
  bool known = false;
  for (const Entry& e : kEntries) {
    if (std::strcmp(e.base, symbol) != 0) continue;
    known = true;
    if (e.version > version) continue;
    const Entry*& slot = e.per_thread ? best_per_thread : best;
    if (!slot || slot->version < e.version) slot = &e;
  }
  static const bool per_thread_as_default = [] {
    const char* v = std::getenv("SIMCUDA_PER_THREAD_AS_DEFAULT");
    return v && std::strcmp(v, "1") == 0;
  }();
  const Entry* chosen = want_per_thread && best_per_thread ? best_per_thread : best;
  if (chosen) *pfn = reinterpret_cast<void*>(chosen->address);
  if (want_per_thread && per_thread_as_default && best) {
    chosen = best;
    *pfn = dlsym(RTLD_DEFAULT, best->symbol);
  }
  if (status) *status = chosen ? kFound : known ? kVersionNotSufficient : kSymbolNotFound;
  return kSuccess;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int cuGetProcAddress_v2(const char* symbol, void** pfn, int version,
                                                                         unsigned long long flags, int* status) {
  return lookup(symbol, pfn, version, flags, status);
}

extern "C" __attribute__((visibility("default"))) int cuGetProcAddress(const char* symbol, void** pfn, int version,
                                                                      unsigned long long flags) {
  return lookup(symbol, pfn, version, flags, nullptr);
}
