#pragma once
// The driver entry points the shim wraps (wrapped_entry_points.def): names, ABI
// variants, and which variant a cuGetProcAddress request designates. Pure data and
// functions, tested on their own.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "shim/intercept/cuda_api.hpp"

namespace computeprof::shim {

enum class Entry : std::uint16_t {
#define ENTRY(sym, base, version, per_thread, pfn) sym,
#include "shim/intercept/cuda_entries.def"
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
#include "shim/intercept/cuda_entries.def"
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
#include "shim/intercept/cuda_entries.def"
#undef ENTRY

// The entry whose exported symbol is `symbol`.
std::optional<Entry> find_entry(std::string_view symbol);

// The variant cuGetProcAddress(base, version, flags) designates, as the driver picks
// it: the per-thread one when the flags ask for it and one exists, else the legacy
// one; among those, the newest introduced at or before `version`. Empty when the
// shim wraps no such variant.
std::optional<Entry> select_variant(std::string_view base, int version, std::uint64_t flags);

}  // namespace computeprof::shim
