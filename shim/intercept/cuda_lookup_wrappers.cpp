// The two ways a program looks up driver functions by name: dlsym on a libcuda handle
// and cuGetProcAddress. Both ask the next layer (another interposer's dlsym or
// cuGetProcAddress, else the driver's), hand out the shim's wrapper of exactly the
// variant it answered with, and its answer unchanged for everything else; the wrapper
// then calls that answer (docs/design.md, "Stacking").
#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <optional>
#include <string_view>

#include "shim/intercept/cuda_entry_functions.hpp"
#include "shim/intercept/cuda_lookup.hpp"
#include "shim/intercept/library_names.hpp"
#include "shim/intercept/object_symbols.hpp"
#include "shim/intercept/real_dlsym.hpp"
#include "shim/process/cuda_runtime_presence.hpp"

namespace computeprof::shim {
namespace {

bool is_driver_handle(void* handle) {
  return handle == loaded_driver_handle() || handle_names_library(handle, "libcuda.so");
}

// NVIDIA's profiling libraries (CUPTI, Perfworks) look driver functions up for their
// own use: kernel replay saves and restores memory with copies the application never
// made. They get the driver's functions, never the wrappers.
bool called_by_profiler_library(const void* caller) {
  return address_in_library(caller, "libcupti") || address_in_library(caller, "libnvperf");
}

// The wrapped variant whose exported address the driver handed out, if any: when the
// driver's table and its exports agree, this is exact whatever our version table says.
// The driver's own exports (glibc's dlsym): a layer hooking dlsym would answer with its
// wrappers.
std::optional<Entry> variant_at_address(std::string_view base, void* fn) {
  void* driver = loaded_driver_handle();
  if (!driver) return std::nullopt;
  for (std::size_t i = 0; i < kEntryCount; ++i) {
    if (kEntries[i].base != base) continue;
    if (glibc_dlsym(driver, kEntries[i].symbol.data()) == fn) return static_cast<Entry>(i);
  }
  return std::nullopt;
}

// The first definition of `name` in the process's global scope, as the program's own
// references bind: looked up on the program's handle (glibc's handles are link maps; the
// program's is the first), whose search list holds the preloaded libraries in their
// order. RTLD_DEFAULT asked from the shim, linked -Bsymbolic, would find the shim's own
// first; dlopen(nullptr) would do under dlsym what the shim does not (section
// "Interposition" of docs/design.md).
void* process_definition(const char* name) {
  link_map* program = _r_debug.r_map;
  return program ? glibc_dlsym(program, name) : nullptr;
}

// The wrapped variant of which `fn` is the process's own definition (the first in the
// global scope), where that is not the shim's: another interposer's, loaded before the
// shim, whose function leads back into the shim. Calling it from the shim would go round
// in a circle; the shim's wrapper of that variant is what the program gets, and it calls
// the next layer after the shim.
std::optional<Entry> variant_defined_above(std::string_view base, void* fn) {
  for (std::size_t i = 0; i < kEntryCount; ++i) {
    if (kEntries[i].base != base) continue;
    if (process_definition(kEntries[i].symbol.data()) == fn) return static_cast<Entry>(i);
  }
  return std::nullopt;
}

// The lookup functions the next layer answered a lookup of "cuGetProcAddress" with, where
// they are not what the export of that variant calls, by variant: the functions behind
// the shim's looked-up lookup wrappers below. A layer may answer that lookup with a
// function other than the one dlsym or linking finds (HAMi-core hands out a wrapper of
// what the driver answered), and each path must lead to its own answer, that layer
// called once per lookup as without the shim. Zero-initialised: no constructor.
std::atomic<void*> g_looked_up_lookup[2];  // cuGetProcAddress, cuGetProcAddress_v2

CUresult looked_up_cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags);
CUresult looked_up_cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                       CUdriverProcAddressQueryResult* symbolStatus);

// The shim's looked-up wrapper of a lookup function variant, and its slot.
struct LookedUpLookup {
  void* wrapper;
  std::atomic<void*>* answer;
};
std::optional<LookedUpLookup> looked_up_lookup(Entry e) {
  if (e == Entry::cuGetProcAddress) {
    return LookedUpLookup{reinterpret_cast<void*>(&looked_up_cuGetProcAddress), &g_looked_up_lookup[0]};
  }
  if (e == Entry::cuGetProcAddress_v2) {
    return LookedUpLookup{reinterpret_cast<void*>(&looked_up_cuGetProcAddress_v2), &g_looked_up_lookup[1]};
  }
  return std::nullopt;
}

bool is_looked_up_lookup(const void* fn) {
  return fn == reinterpret_cast<void*>(&looked_up_cuGetProcAddress) ||
         fn == reinterpret_cast<void*>(&looked_up_cuGetProcAddress_v2);
}

void substitute_wrapper(const char* symbol, void** pfn, int version, cuuint64_t flags) {
  if (!symbol || !pfn || !*pfn) return;
  if (std::string_view(symbol) == "cuGetProcAddress") note_cuda_runtime();
  // Already one of the shim's wrappers (a layer between resolved the name through the
  // process's symbols, or a driver answered a per-thread request with the default-stream
  // function, found that way): the variant it is, whatever was asked. Handed out as it
  // is; noting it for the variant asked for would have one wrapper call another, and
  // the operation recorded twice.
  if (own_entry_at(*pfn) || is_looked_up_lookup(*pfn)) return;
  if (auto above = variant_defined_above(symbol, *pfn)) {
    *pfn = wrapper_of(*above);
    return;
  }
  auto entry = variant_at_address(symbol, *pfn);
  if (!entry) entry = select_variant(symbol, version, flags);
  if (!entry) return;
  if (auto lookup = looked_up_lookup(*entry)) {
    // The function the export calls: handed out as the export, which a layer before the
    // shim recognises as its next definition (and replaces with its own).
    if (*pfn == real_entry(*entry)) {
      *pfn = wrapper_of(*entry);
      return;
    }
    note_answer(*entry, *lookup->answer, *pfn);
    *pfn = lookup->wrapper;
    return;
  }
  note_real_entry(*entry, *pfn);
  *pfn = wrapper_of(*entry);
}

// A lookup's result as its caller gets it: on success, the shim's wrapper in place of the
// function found, unless CUPTI or Perfworks asked (`caller`), whose replay must get the
// driver's own.
CUresult handed_on(CUresult result, const void* caller, const char* symbol, void** pfn, int version,
                   cuuint64_t flags) {
  if (result == CUDA_SUCCESS && !called_by_profiler_library(caller)) substitute_wrapper(symbol, pfn, version, flags);
  return result;
}

}  // namespace

void* cuda_dlsym_substitute(void* handle, const char* name, const void* caller) {
  const auto entry = find_entry(name);
  if (!entry || !is_driver_handle(handle) || called_by_profiler_library(caller) ||
      // Another interposer after the shim looking up the function it wraps itself, to
      // call it: it gets what it would get without the shim. The shim's wrapper would
      // call that layer again, a loop. (One before the shim gets the wrapper: the shim
      // is its next layer.)
      (object_defines(caller, name) && loaded_after(caller, reinterpret_cast<const void*>(&cuda_dlsym_substitute)))) {
    return nullptr;
  }
  // The next layer's answer: a layer hooking dlsym may hand out its own wrapper.
  void* real = real_dlsym(handle, name);
  if (!real) return nullptr;
  if (own_entry_at(real)) return real;
  // A layer before the shim (its answer is the process's definition of the name): the
  // wrapper calls the next layer after the shim instead, as for cuGetProcAddress.
  if (process_definition(name) != real) note_real_entry(*entry, real);
  return wrapper_of(*entry);
}

}  // namespace computeprof::shim

using namespace computeprof::shim;

COMPUTEPROF_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                                CUdriverProcAddressQueryResult* symbolStatus) {
  COMPUTEPROF_REAL_OR_RETURN(cuGetProcAddress_v2);
  return handed_on(real_fn(symbol, pfn, cudaVersion, flags, symbolStatus), __builtin_return_address(0), symbol, pfn,
                   cudaVersion, flags);
}

COMPUTEPROF_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags) {
  COMPUTEPROF_REAL_OR_RETURN(cuGetProcAddress);
  return handed_on(real_fn(symbol, pfn, cudaVersion, flags), __builtin_return_address(0), symbol, pfn,
                   cudaVersion, flags);
}

namespace computeprof::shim {
namespace {

// The lookup functions a lookup of "cuGetProcAddress" handed out: as the exports above,
// calling what the next layer answered that lookup with.
CUresult looked_up_cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags) {
  auto* real_fn = reinterpret_cast<PFN_cuGetProcAddress_v11030>(g_looked_up_lookup[0].load(std::memory_order_acquire));
  return handed_on(real_fn(symbol, pfn, cudaVersion, flags), __builtin_return_address(0), symbol, pfn,
                   cudaVersion, flags);
}

CUresult looked_up_cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                       CUdriverProcAddressQueryResult* symbolStatus) {
  auto* real_fn = reinterpret_cast<PFN_cuGetProcAddress_v12000>(g_looked_up_lookup[1].load(std::memory_order_acquire));
  return handed_on(real_fn(symbol, pfn, cudaVersion, flags, symbolStatus), __builtin_return_address(0), symbol, pfn,
                   cudaVersion, flags);
}

}  // namespace
}  // namespace computeprof::shim
