#include "shim/intercept/cuda_entry_table.hpp"

namespace computeprof::shim {

std::optional<Entry> find_entry(std::string_view symbol) {
  for (std::size_t i = 0; i < kEntryCount; ++i) {
    if (kEntries[i].symbol == symbol) return static_cast<Entry>(i);
  }
  return std::nullopt;
}

std::optional<Entry> select_variant(std::string_view base, int version, std::uint64_t flags) {
  auto newest = [&](bool per_thread) {
    std::optional<Entry> best;
    for (std::size_t i = 0; i < kEntryCount; ++i) {
      const auto& e = kEntries[i];
      if (e.base != base || e.per_thread != per_thread || e.version > version) continue;
      if (!best || entry_info(*best).version < e.version) best = static_cast<Entry>(i);
    }
    return best;
  };
  // The per-thread variant when asked for and one exists at that version; else legacy.
  if (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) {
    if (auto e = newest(true)) return e;
  }
  return newest(false);
}


}  // namespace computeprof::shim
