#pragma once
// What memory the program holds, event by event (docs/format.md, "Memory tracing"):
// live allocations, each device's use and its peak with what was live then, what was
// never freed, and the steps of use over time that the picture draws. Pure: events in,
// answers out; fed in the order the program made the calls.
#include <array>
#include <cstdint>
#include <map>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "records/memory_event.hpp"

namespace computeprof::records {

struct Allocation {
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  std::uint64_t allocated_ns = 0;  // wall ns
  std::uint64_t sequence = 0;      // of the allocation event
  std::uint64_t pool = 0;
  std::string_view api;
  std::uint32_t device = 0;
  std::uint32_t context_id = 0;
  std::uint32_t stack_id = 0;  // where it was allocated (callstack)
  MemoryKind kind = MemoryKind::device;
};

// Use of one device: its device-resident kinds together (counts_toward_device).
struct DeviceUse {
  std::uint64_t current = 0;
  std::uint64_t peak = 0;
  std::uint64_t peak_ns = 0;         // wall ns of the event that reached the peak
  std::uint64_t peak_sequence = 0;
  std::string_view peak_api;
  std::array<std::uint64_t, kMemoryKindCount> by_kind{};       // current bytes of each kind
  std::array<std::uint64_t, kMemoryKindCount> peak_by_kind{};  // each kind's own peak
};

struct PoolUse {
  std::uint32_t device = 0;
  std::uint64_t peak_reserved = 0;
  std::uint64_t peak_used = 0;
};

// A device's bytes of one kind after an event (what the picture steps through).
struct UsageStep {
  std::uint64_t wall_ns = 0;
  std::uint64_t bytes = 0;
};

// cuMemGetInfo's used memory, as the wrappers sampled it.
struct DriverSample {
  std::uint64_t wall_ns = 0;
  std::uint64_t used = 0;
};

class MemoryLedger {
 public:
  // A series keeps at most this many steps; beyond, neighbours merge (the higher kept).
  static constexpr std::size_t kMaxSteps = 1 << 16;

  // Applies one event and completes it: a free gets its allocation's bytes, kind,
  // device, context and pool, or is marked unknown (no live allocation at that address).
  void apply(MemoryEvent& event);

  std::uint64_t events() const { return events_; }
  std::uint64_t unknown_frees() const { return unknown_frees_; }
  // The first kMaxUnknownFreesKept of them.
  const std::vector<MemoryEvent>& unknown_free_events() const { return unknown_free_events_; }
  static constexpr std::size_t kMaxUnknownFreesKept = 100;
  std::uint64_t first_ns() const { return first_ns_; }
  std::uint64_t last_ns() const { return last_ns_; }
  const std::map<std::uint32_t, DeviceUse>& devices() const { return devices_; }
  const std::map<std::uint64_t, PoolUse>& pools() const { return pools_; }

  // The device-resident allocations live when `device` peaked, largest first.
  std::vector<Allocation> live_at_peak(std::uint32_t device) const;
  // Allocations live now (at the end: never freed), largest first; of every kind.
  std::vector<Allocation> live() const;
  // Steps of `kind` on `device`, in time order; null when it had none.
  const std::vector<UsageStep>* steps(std::uint32_t device, MemoryKind kind) const;
  // Steps of the device's use (its device-resident kinds together).
  const std::vector<UsageStep>* total_steps(std::uint32_t device) const;
  // The device's cuMemGetInfo sample nearest its peak, if any was taken.
  const DriverSample* sample_near_peak(std::uint32_t device) const;

 private:
  // Arrays and physical memory are named by handles, mappings by the address range
  // they map: each its own space, apart from the addresses of allocations.
  enum class Space : std::uint8_t { address, array, physical, mapping };
  static Space space_of(MemoryKind kind);
  using Key = std::pair<Space, std::uint64_t>;
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return std::hash<std::uint64_t>{}(k.second) ^ static_cast<std::size_t>(k.first);
    }
  };

  static void add_step(std::vector<UsageStep>& steps, std::uint64_t wall_ns, std::uint64_t bytes);
  void record_steps(const MemoryEvent& event, const DeviceUse& use);
  void allocated(MemoryEvent& event);
  void freed(MemoryEvent& event);

  std::uint64_t events_ = 0;
  std::uint64_t unknown_frees_ = 0;
  std::vector<MemoryEvent> unknown_free_events_;
  std::uint64_t first_ns_ = 0;
  std::uint64_t last_ns_ = 0;
  std::unordered_map<Key, Allocation, KeyHash> live_;
  std::map<std::uint32_t, DeviceUse> devices_;
  std::map<std::uint64_t, PoolUse> pools_;
  // Device-resident allocations freed since their device's peak, that were live at it.
  std::map<std::uint32_t, std::vector<Allocation>> freed_since_peak_;
  std::map<std::pair<std::uint32_t, MemoryKind>, std::vector<UsageStep>> steps_;
  std::map<std::uint32_t, std::vector<UsageStep>> total_steps_;
  std::map<std::uint32_t, std::vector<DriverSample>> samples_;
};

}  // namespace computeprof::records
