#include "reports/gpu_idle.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "reports/summary_table.hpp"

namespace computeprof::reports {

namespace {

// The causes a thread's call gives (the others are worked out per gap).
constexpr std::size_t kCallCauses = static_cast<std::size_t>(IdleCause::module_load) + 1;

std::optional<IdleCause> call_cause(records::ApiCallKind kind) {
  if (records::waits_for_gpu(kind)) return IdleCause::synchronization;
  switch (kind) {
    case records::ApiCallKind::memory_allocate:
    case records::ApiCallKind::memory_free: return IdleCause::allocation;
    case records::ApiCallKind::module_load: return IdleCause::module_load;
    default: return std::nullopt;
  }
}

// Where a thread's call begins or ends.
struct Boundary {
  std::uint64_t ns = 0;
  bool opens = false;
  IdleCause cause = IdleCause::host;
  std::size_t call = 0;  // synchronization: the index of the call in `calls`
};

std::uint64_t overlap(std::uint64_t a_start, std::uint64_t a_end, std::uint64_t b_start, std::uint64_t b_end) {
  const std::uint64_t start = std::max(a_start, b_start), end = std::min(a_end, b_end);
  return end > start ? end - start : 0;
}

// The gaps between the union of the (sorted) operations' intervals, each with the launch
// call of the operation that ends it where the gap is shorter than that call.
struct Gaps {
  std::vector<IdleGap> gaps;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> launches;  // (0, 0): none
};

Gaps find_gaps(const std::vector<IdleOperation>& sorted) {
  Gaps out;
  std::uint64_t busy_until = sorted.front().gpu_end_ns;
  for (const IdleOperation& op : sorted) {
    if (op.gpu_start_ns > busy_until) {
      out.gaps.push_back({busy_until, op.gpu_start_ns, {}});
      const std::uint64_t call_ns = op.call_end_ns > op.call_start_ns ? op.call_end_ns - op.call_start_ns : 0;
      const bool launch_bound = op.gpu_start_ns - busy_until < call_ns;
      out.launches.emplace_back(launch_bound ? op.call_start_ns : 0, launch_bound ? op.call_end_ns : 0);
    }
    busy_until = std::max(busy_until, op.gpu_end_ns);
  }
  return out;
}

// The threads' calls that explain idle time, as boundaries in time order.
std::vector<Boundary> call_boundaries(const std::vector<std::uint32_t>& threads,
                                      const std::vector<records::ApiCall>& calls,
                                      const std::vector<IdleOperation>& pageable_copies) {
  const auto launches_here = [&](std::uint32_t thread) {
    return std::binary_search(threads.begin(), threads.end(), thread);
  };
  std::vector<Boundary> out;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const records::ApiCall& call = calls[i];
    const std::optional<IdleCause> cause = call_cause(call.kind);
    if (!cause || call.end_ns <= call.start_ns || !launches_here(call.thread_id)) continue;
    out.push_back({call.start_ns, true, *cause, i});
    out.push_back({call.end_ns, false, *cause, i});
  }
  for (const IdleOperation& copy : pageable_copies) {
    if (copy.call_end_ns <= copy.call_start_ns || !launches_here(copy.thread_id)) continue;
    out.push_back({copy.call_start_ns, true, IdleCause::pageable_copy, 0});
    out.push_back({copy.call_end_ns, false, IdleCause::pageable_copy, 0});
  }
  std::sort(out.begin(), out.end(), [](const Boundary& a, const Boundary& b) { return a.ns < b.ns; });
  return out;
}

// Walks the threads' calls and the gaps together, putting each piece of a gap down to
// the first cause (in IdleCause's order) some thread was in.
class GapAttribution {
 public:
  GapAttribution(DeviceIdle& device, const Gaps& gaps, const std::vector<records::ApiCall>& calls)
      : device_(device), launches_(gaps.launches), calls_(calls) {}

  void run(const std::vector<Boundary>& boundaries) {
    std::uint64_t at = device_.span_start_ns;
    if (!boundaries.empty()) at = std::min(at, boundaries.front().ns);
    for (const Boundary& b : boundaries) {
      if (b.ns > at) attribute(at, b.ns);
      at = std::max(at, b.ns);
      apply(b);
    }
    if (device_.span_end_ns > at) attribute(at, device_.span_end_ns);
  }

 private:
  void apply(const Boundary& b) {
    const auto c = static_cast<std::size_t>(b.cause);
    if (b.opens) {
      ++open_[c];
      if (b.cause == IdleCause::synchronization) open_syncs_.emplace(calls_[b.call].start_ns, b.call);
    } else {
      --open_[c];
      if (b.cause == IdleCause::synchronization) open_syncs_.erase({calls_[b.call].start_ns, b.call});
    }
  }

  // [start, end): no boundary inside it.
  void attribute(std::uint64_t start, std::uint64_t end) {
    std::vector<IdleGap>& gaps = device_.gaps;
    while (next_gap_ < gaps.size() && gaps[next_gap_].end_ns <= start) ++next_gap_;
    for (std::size_t g = next_gap_; g < gaps.size() && gaps[g].start_ns < end; ++g) {
      const std::uint64_t piece_start = std::max(start, gaps[g].start_ns), piece_end = std::min(end, gaps[g].end_ns);
      if (piece_end > piece_start) attribute_piece(g, piece_start, piece_end);
    }
  }

  void attribute_piece(std::size_t g, std::uint64_t start, std::uint64_t end) {
    std::array<std::uint64_t, kIdleCauses>& by_cause = device_.gaps[g].cause_ns;
    for (std::size_t c = 0; c < kCallCauses; ++c) {
      if (open_[c] == 0) continue;
      by_cause[c] += end - start;
      if (c == static_cast<std::size_t>(IdleCause::synchronization)) {
        // The call that has waited longest.
        const records::ApiCall& call = calls_[open_syncs_.begin()->second];
        device_.sync_ns[{std::string(call.name), call.thread_id}] += end - start;
      }
      return;
    }
    const std::uint64_t launching = overlap(start, end, launches_[g].first, launches_[g].second);
    by_cause[static_cast<std::size_t>(IdleCause::launch_bound)] += launching;
    by_cause[static_cast<std::size_t>(IdleCause::host)] += end - start - launching;
  }

  DeviceIdle& device_;
  const std::vector<std::pair<std::uint64_t, std::uint64_t>>& launches_;
  const std::vector<records::ApiCall>& calls_;
  std::array<std::size_t, kCallCauses> open_{};
  std::set<std::pair<std::uint64_t, std::size_t>> open_syncs_;  // by start, then index
  std::size_t next_gap_ = 0;
};

std::string gaps_text(std::uint64_t gaps) { return fmt::format("{} gap{}", gaps, gaps == 1 ? "" : "s"); }

}  // namespace

std::string_view idle_cause_name(IdleCause cause) {
  switch (cause) {
    case IdleCause::synchronization: return "synchronization";
    case IdleCause::pageable_copy: return "pageable copy";
    case IdleCause::allocation: return "allocation";
    case IdleCause::module_load: return "module load";
    case IdleCause::launch_bound: return "launch-bound";
    case IdleCause::host: return "host (no CUDA call)";
  }
  return "host (no CUDA call)";
}

IdleOperation idle_operation(const records::ContextInfo& context, const records::Record& record) {
  const std::uint64_t call_start_ns = context.origin.wall_ns + record.timestamp_ns;
  return {record.gpu_start_ns,
          record.gpu_end_ns,
          call_start_ns,
          call_start_ns + record.cputime_ns,
          record.thread_id,
          record.kind == records::RecordKind::memcpy && record.host_mem_type == records::HostMemType::pageable};
}

void GpuIdleInput::add_operation(int device, const IdleOperation& operation) {
  operations_[device].push_back(operation);
}

void GpuIdleInput::add_api_call(const records::ApiCall& call) { calls_.push_back(call); }

void GpuIdleInput::add_memory_call(const records::MemoryEvent& event) {
  records::ApiCall call;
  call.name = event.api;
  call.kind = event.operation == records::MemoryOperation::allocation ? records::ApiCallKind::memory_allocate
                                                                       : records::ApiCallKind::memory_free;
  call.start_ns = event.start_ns;
  call.end_ns = event.wall_ns;
  call.thread_id = event.thread_id;
  calls_.push_back(call);
}

std::vector<DeviceIdle> GpuIdleInput::analyse() const {
  std::vector<IdleOperation> pageable_copies;
  for (const auto& [device, operations] : operations_) {
    std::copy_if(operations.begin(), operations.end(), std::back_inserter(pageable_copies),
                 [](const IdleOperation& op) { return op.pageable_copy; });
  }
  std::vector<DeviceIdle> out;
  for (const auto& [device, operations] : operations_) {
    out.push_back(analyse_device(device, operations, calls_, pageable_copies));
  }
  return out;
}

DeviceIdle analyse_device(int device, std::vector<IdleOperation> operations, const std::vector<records::ApiCall>& calls,
                          const std::vector<IdleOperation>& pageable_copies) {
  DeviceIdle out;
  out.device = device;
  if (operations.empty()) return out;
  for (IdleOperation& op : operations) op.gpu_end_ns = std::max(op.gpu_end_ns, op.gpu_start_ns);
  std::sort(operations.begin(), operations.end(), [](const IdleOperation& a, const IdleOperation& b) {
    return a.gpu_start_ns != b.gpu_start_ns ? a.gpu_start_ns < b.gpu_start_ns : a.gpu_end_ns < b.gpu_end_ns;
  });
  out.span_start_ns = operations.front().gpu_start_ns;
  for (const IdleOperation& op : operations) out.span_end_ns = std::max(out.span_end_ns, op.gpu_end_ns);
  Gaps gaps = find_gaps(operations);
  out.gaps = std::move(gaps.gaps);
  std::uint64_t idle_ns = 0;
  for (const IdleGap& gap : out.gaps) idle_ns += gap.end_ns - gap.start_ns;
  out.busy_ns = out.span_end_ns - out.span_start_ns - idle_ns;

  std::vector<std::uint32_t> threads;
  for (const IdleOperation& op : operations) threads.push_back(op.thread_id);
  std::sort(threads.begin(), threads.end());
  threads.erase(std::unique(threads.begin(), threads.end()), threads.end());
  GapAttribution(out, gaps, calls).run(call_boundaries(threads, calls, pageable_copies));
  return out;
}

void GpuIdleSummary::add(const DeviceIdle& device) {
  Totals& t = by_device_[device.device];
  t.span_ns += device.span_end_ns - device.span_start_ns;
  t.gaps += device.gaps.size();
  for (const IdleGap& gap : device.gaps) {
    t.idle_ns += gap.end_ns - gap.start_ns;
    for (std::size_t c = 0; c < kIdleCauses; ++c) {
      t.cause_ns[c] += gap.cause_ns[c];
      t.cause_gaps[c] += gap.cause_ns[c] > 0 ? 1 : 0;
    }
  }
  for (const auto& [caller, ns] : device.sync_ns) t.sync_ns[caller] += ns;
}

void GpuIdleSummary::merge(const GpuIdleSummary& other) {
  for (const auto& [device, theirs] : other.by_device_) {
    Totals& t = by_device_[device];
    t.span_ns += theirs.span_ns;
    t.idle_ns += theirs.idle_ns;
    t.gaps += theirs.gaps;
    for (std::size_t c = 0; c < kIdleCauses; ++c) {
      t.cause_ns[c] += theirs.cause_ns[c];
      t.cause_gaps[c] += theirs.cause_gaps[c];
    }
    for (const auto& [caller, ns] : theirs.sync_ns) t.sync_ns[caller] += ns;
  }
}

std::vector<DeviceIdleRow> GpuIdleSummary::rows() const {
  std::vector<DeviceIdleRow> out;
  for (const auto& [device, t] : by_device_) {
    DeviceIdleRow row{device, t.span_ns, t.idle_ns, t.gaps, {}};
    for (std::size_t c = 0; c < kIdleCauses; ++c) {
      if (t.cause_ns[c] == 0) continue;
      row.causes.push_back({static_cast<IdleCause>(c), t.cause_ns[c], t.cause_gaps[c], {}});
      if (static_cast<IdleCause>(c) != IdleCause::synchronization) continue;
      // The first of the calls with the most time (by name, then thread).
      const auto most = std::max_element(t.sync_ns.begin(), t.sync_ns.end(),
                                         [](const auto& a, const auto& b) { return a.second < b.second; });
      row.causes.back().detail = fmt::format("{} (thread {})", most->first.first, most->first.second);
    }
    std::stable_sort(row.causes.begin(), row.causes.end(),
                     [](const IdleCauseRow& a, const IdleCauseRow& b) { return a.ns > b.ns; });
    out.push_back(std::move(row));
  }
  return out;
}

double idle_percent(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

std::string format_gpu_idle(const std::vector<DeviceIdleRow>& rows, std::string_view prefix) {
  std::string out;
  auto it = std::back_inserter(out);
  for (const DeviceIdleRow& row : rows) {
    fmt::format_to(it, "{}GPU idle (device {}): {:.2f}% of {}, {}\n", prefix, row.device,
                   idle_percent(row.idle_ns, row.span_ns), format_summary_duration(row.span_ns), gaps_text(row.gaps));
    if (row.causes.empty()) continue;
    fmt::format_to(it, "{:<19}  {:>7}  {:>8}  {:>5}  {}\n", "Cause", "Time(%)", "Time", "Gaps", "Detail");
    for (const IdleCauseRow& cause : row.causes) {
      fmt::format_to(it, "{:<19}  {:>7}  {:>8}  {:>5}", idle_cause_name(cause.cause),
                     fmt::format("{:.2f}%", idle_percent(cause.ns, row.idle_ns)), format_summary_duration(cause.ns),
                     cause.gaps);
      if (!cause.detail.empty()) fmt::format_to(it, "  {}", cause.detail);
      out.push_back('\n');
    }
  }
  return out;
}

}  // namespace computeprof::reports
