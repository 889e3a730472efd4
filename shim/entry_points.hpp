#pragma once
// The driver entry points the shim wraps (wrapped_entry_points.def): their names,
// ABI variants, wrappers and the real functions behind them.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "shim/cuda_api.hpp"

namespace computeprof::shim {

enum class Entry : std::uint16_t {
#define ENTRY(sym, base, version, per_thread, pfn) sym,
#include "shim/wrapped_entry_points.def"
#undef ENTRY
};

struct EntryInfo {
  std::string_view symbol;  // exported name of this variant
  std::string_view base;    // name cuGetProcAddress is asked for
  int version;              // CUDA version that introduced this variant
  bool per_thread;          // the _ptds/_ptsz variant
};

inline constexpr std::array kEntries = {
#define ENTRY(sym, base, version, per_thread, pfn) EntryInfo{#sym, base, version, per_thread},
#include "shim/wrapped_entry_points.def"
#undef ENTRY
};
inline constexpr std::size_t kEntryCount = kEntries.size();

constexpr const EntryInfo& entry_info(Entry e) { return kEntries[static_cast<std::size_t>(e)]; }

template <Entry E>
struct EntryType;
#define ENTRY(sym, base, version, per_thread, pfn) \
  template <>                                       \
  struct EntryType<Entry::sym> {                    \
    using type = pfn;                               \
  };
#include "shim/wrapped_entry_points.def"
#undef ENTRY

// The entry whose exported symbol is `symbol`.
std::optional<Entry> find_entry(std::string_view symbol);

// The variant cuGetProcAddress(base, version, flags) designates, as the driver picks
// it: the per-thread one when the flags ask for it and one exists, else the legacy
// one; among those, the newest introduced at or before `version`. Empty when the
// shim wraps no such variant.
std::optional<Entry> select_variant(std::string_view base, int version, std::uint64_t flags);

// The shim's wrapper for an entry (its exported function).
void* wrapper_of(Entry e);

// The driver's function behind an entry; found lazily in the already loaded libcuda.
// Null when the driver does not have it.
void* real_entry(Entry e);

// Records where the driver's function is, when a lookup (dlsym, cuGetProcAddress) has
// just handed it out. The first one seen is kept.
void note_real_entry(Entry e, void* fn);

template <Entry E>
typename EntryType<E>::type real() {
  return reinterpret_cast<typename EntryType<E>::type>(real_entry(E));
}

// The handle of the loaded libcuda, or null while none is loaded.
void* loaded_driver_handle();

}  // namespace computeprof::shim
