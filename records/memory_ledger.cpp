#include "records/memory_ledger.hpp"

#include <algorithm>

namespace computeprof::records {
namespace {

void sort_largest_first(std::vector<Allocation>& allocations) {
  std::sort(allocations.begin(), allocations.end(), [](const Allocation& a, const Allocation& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.sequence < b.sequence;
  });
}

std::size_t index(MemoryKind kind) { return static_cast<std::size_t>(kind); }

}  // namespace

MemoryLedger::Space MemoryLedger::space_of(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::array: return Space::array;
    case MemoryKind::physical: return Space::physical;
    case MemoryKind::mapping: return Space::mapping;
    default: return Space::address;
  }
}

void MemoryLedger::apply(MemoryEvent& event) {
  ++events_;
  if (first_ns_ == 0) first_ns_ = event.wall_ns;
  last_ns_ = std::max(last_ns_, event.wall_ns);
  if (event.operation == MemoryOperation::allocation) {
    allocated(event);
  } else {
    freed(event);
  }
  if (event.unknown) return;
  if (event.device_used != 0) samples_[event.device].push_back({event.wall_ns, event.device_used});
  if (event.pool != 0) {
    PoolUse& pool = pools_[event.pool];
    pool.device = event.device;
    pool.peak_reserved = std::max(pool.peak_reserved, event.pool_reserved);
    pool.peak_used = std::max(pool.peak_used, event.pool_used);
  }
}

void MemoryLedger::allocated(MemoryEvent& event) {
  const Key key{space_of(event.kind), event.address};
  if (auto old = live_.find(key); old != live_.end()) {
    // The address came back without a free the profiler saw (freed through a path it
    // does not trace): the old allocation ends here.
    MemoryEvent implied = event;
    implied.operation = MemoryOperation::free;
    freed(implied);
  }
  live_[key] = Allocation{event.address, event.bytes,      event.wall_ns,    event.sequence, event.pool,
                          event.api,     event.device,     event.context_id, event.stack_id, event.kind};
  DeviceUse& use = devices_[event.device];
  const std::size_t k = index(event.kind);
  use.by_kind[k] += event.bytes;
  use.peak_by_kind[k] = std::max(use.peak_by_kind[k], use.by_kind[k]);
  if (counts_toward_device(event.kind)) {
    use.current += event.bytes;
    if (use.current > use.peak) {
      use.peak = use.current;
      use.peak_ns = event.wall_ns;
      use.peak_sequence = event.sequence;
      use.peak_api = event.api;
      freed_since_peak_[event.device].clear();
    }
  }
  record_steps(event, use);
}

void MemoryLedger::freed(MemoryEvent& event) {
  auto it = live_.find({space_of(event.kind), event.address});
  if (it == live_.end()) {
    event.unknown = true;
    event.bytes = 0;
    ++unknown_frees_;
    if (unknown_free_events_.size() < kMaxUnknownFreesKept) unknown_free_events_.push_back(event);
    return;
  }
  const Allocation a = it->second;
  live_.erase(it);
  event.bytes = a.bytes;
  event.kind = a.kind;
  event.device = a.device;
  event.context_id = a.context_id;
  if (event.pool == 0) event.pool = a.pool;
  DeviceUse& use = devices_[a.device];
  use.by_kind[index(a.kind)] -= a.bytes;
  if (counts_toward_device(a.kind)) {
    use.current -= a.bytes;
    if (use.peak != 0 && a.sequence <= use.peak_sequence) freed_since_peak_[a.device].push_back(a);
  }
  record_steps(event, use);
}

void MemoryLedger::record_steps(const MemoryEvent& event, const DeviceUse& use) {
  add_step(steps_[{event.device, event.kind}], event.wall_ns, use.by_kind[index(event.kind)]);
  if (counts_toward_device(event.kind)) add_step(total_steps_[event.device], event.wall_ns, use.current);
}

void MemoryLedger::add_step(std::vector<UsageStep>& steps, std::uint64_t wall_ns, std::uint64_t bytes) {
  steps.push_back({wall_ns, bytes});
  if (steps.size() <= kMaxSteps) return;
  // Neighbours merge, the higher value kept: a peak stays visible in the picture.
  std::size_t out = 0;
  for (std::size_t i = 0; i + 1 < steps.size(); i += 2) {
    steps[out++] = {steps[i].wall_ns, std::max(steps[i].bytes, steps[i + 1].bytes)};
  }
  if (steps.size() % 2 != 0) steps[out++] = steps.back();
  steps.resize(out);
}

std::vector<Allocation> MemoryLedger::live_at_peak(std::uint32_t device) const {
  std::vector<Allocation> at_peak;
  const auto use = devices_.find(device);
  if (use == devices_.end() || use->second.peak == 0) return at_peak;
  for (const auto& [key, a] : live_) {
    if (a.device == device && counts_toward_device(a.kind) && a.sequence <= use->second.peak_sequence) {
      at_peak.push_back(a);
    }
  }
  if (auto freed = freed_since_peak_.find(device); freed != freed_since_peak_.end()) {
    at_peak.insert(at_peak.end(), freed->second.begin(), freed->second.end());
  }
  sort_largest_first(at_peak);
  return at_peak;
}

std::vector<Allocation> MemoryLedger::live() const {
  std::vector<Allocation> all;
  all.reserve(live_.size());
  for (const auto& [key, a] : live_) all.push_back(a);
  sort_largest_first(all);
  return all;
}

const std::vector<UsageStep>* MemoryLedger::steps(std::uint32_t device, MemoryKind kind) const {
  auto it = steps_.find({device, kind});
  return it == steps_.end() ? nullptr : &it->second;
}

const std::vector<UsageStep>* MemoryLedger::total_steps(std::uint32_t device) const {
  auto it = total_steps_.find(device);
  return it == total_steps_.end() ? nullptr : &it->second;
}

const DriverSample* MemoryLedger::sample_near_peak(std::uint32_t device) const {
  const auto use = devices_.find(device);
  const auto samples = samples_.find(device);
  if (use == devices_.end() || samples == samples_.end() || samples->second.empty()) return nullptr;
  const std::uint64_t peak = use->second.peak_ns;
  const auto distance = [peak](const DriverSample& s) { return s.wall_ns > peak ? s.wall_ns - peak : peak - s.wall_ns; };
  return &*std::min_element(samples->second.begin(), samples->second.end(),
                            [&](const DriverSample& a, const DriverSample& b) { return distance(a) < distance(b); });
}

}  // namespace computeprof::records
