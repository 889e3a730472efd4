#pragma once
// A per-thread cache in front of a process-wide map keyed on OpenCL handles, so that the
// commands of a thread take no lock once their handles are known. The runtime reuses
// handles: the map counts its changes in a generation, and an entry holds while the
// generation it was filled under is the map's.
#include <array>
#include <cstddef>
#include <cstdint>

namespace computeprof::shim {

template <typename Handle, typename Value, std::size_t Size>
class HandleCache {
 public:
  // The value cached for `handle` under `generation`; null when there is none.
  const Value* find(Handle handle, std::uint64_t generation) const {
    const Entry& entry = entries_[slot(handle)];
    return entry.handle == handle && entry.generation == generation ? &entry.value : nullptr;
  }

  // Replaces whatever shared `handle`'s entry.
  void put(Handle handle, std::uint64_t generation, Value value) { entries_[slot(handle)] = {handle, generation, value}; }

 private:
  struct Entry {
    Handle handle{};
    std::uint64_t generation = 0;  // generations count from 1: an empty entry matches none
    Value value{};
  };

  // Direct-mapped on the handle's bits above their alignment.
  static std::size_t slot(Handle handle) {
    const auto h = reinterpret_cast<std::uintptr_t>(handle);
    return (h >> 4 ^ h >> 12) % Size;
  }

  std::array<Entry, Size> entries_{};
};

}  // namespace computeprof::shim
