#include "reports/memory_report.hpp"

#include <fmt/format.h>

#include <numeric>
#include <vector>

namespace computeprof::reports {
namespace {

// Milliseconds since the first event, three decimals, from integer nanoseconds.
std::string ms_since(const records::MemoryLedger& ledger, std::uint64_t wall_ns) {
  const std::uint64_t ns = wall_ns >= ledger.first_ns() ? wall_ns - ledger.first_ns() : 0;
  return fmt::format("{}.{:03} ms", ns / 1'000'000, ns / 1000 % 1000);
}

std::string mib(std::uint64_t bytes) { return fmt::format("{:.3f} MiB", static_cast<double>(bytes) / (1 << 20)); }

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::uint64_t total_bytes(const std::vector<records::Allocation>& allocations) {
  return std::accumulate(allocations.begin(), allocations.end(), std::uint64_t{0},
                         [](std::uint64_t sum, const records::Allocation& a) { return sum + a.bytes; });
}

void append_allocations(std::string& out, const records::MemoryLedger& ledger, const std::vector<records::Allocation>& allocations,
                        const CallSite& call_site) {
  for (const records::Allocation& a : allocations) {
    fmt::format_to(std::back_inserter(out), "    {} {} {:#x} {} at {}", a.bytes, records::memory_kind_name(a.kind), a.address,
                   a.api, ms_since(ledger, a.allocated_ns));
    if (a.stack_id != 0 && call_site) {
      fmt::format_to(std::back_inserter(out), " from {} (stack {})", call_site(a.stack_id), a.stack_id);
    }
    out.push_back('\n');
  }
}

void append_list(std::string& out, const records::MemoryLedger& ledger, std::string_view title,
                 const std::vector<records::Allocation>& allocations, const CallSite& call_site) {
  fmt::format_to(std::back_inserter(out), "  {}: {}, {} bytes\n", title,
                 plural(allocations.size(), "allocation", "allocations"), total_bytes(allocations));
  append_allocations(out, ledger, allocations, call_site);
}

constexpr records::MemoryKind kHostKinds[] = {records::MemoryKind::managed, records::MemoryKind::pinned, records::MemoryKind::registered};

}  // namespace

std::string memory_report(const records::MemoryLedger& ledger, const CallSite& call_site) {
  std::string out = "# COMPUTEPROF_MEMORY 1\n";
  fmt::format_to(std::back_inserter(out),
                 "# time 0 is {} ns since the epoch (the first event); times are ms from it\n", ledger.first_ns());
  fmt::format_to(std::back_inserter(out), "# {}, {}\n", plural(ledger.events(), "event", "events"),
                 plural(ledger.unknown_frees(), "free of an unknown address", "frees of unknown addresses"));
  const std::vector<records::Allocation> live = ledger.live();
  for (const auto& [device, use] : ledger.devices()) {
    fmt::format_to(std::back_inserter(out), "device {}\n", device);
    if (use.peak == 0) {
      out += "  peak: 0 bytes\n";
    } else {
      fmt::format_to(std::back_inserter(out), "  peak: {} bytes ({}) at {}, reached by {}\n", use.peak, mib(use.peak),
                     ms_since(ledger, use.peak_ns), use.peak_api);
    }
    if (const records::DriverSample* sample = ledger.sample_near_peak(device)) {
      fmt::format_to(std::back_inserter(out), "  cuMemGetInfo used: {} bytes ({}) at {}\n", sample->used,
                     mib(sample->used), ms_since(ledger, sample->wall_ns));
    } else {
      out += "  cuMemGetInfo used: not sampled\n";
    }
    append_list(out, ledger, "live at the peak", ledger.live_at_peak(device), call_site);
    std::vector<records::Allocation> leaks;
    for (const records::Allocation& a : live) {
      if (a.device == device && records::counts_toward_device(a.kind)) leaks.push_back(a);
    }
    append_list(out, ledger, "never freed", leaks, call_site);
    out += "  peak of each kind:";
    for (std::size_t k = 0; k < records::kMemoryKindCount; ++k) {
      const auto kind = static_cast<records::MemoryKind>(k);
      if (records::counts_toward_device(kind) && use.peak_by_kind[k] != 0) {
        fmt::format_to(std::back_inserter(out), " {} {}", records::memory_kind_name(kind), use.peak_by_kind[k]);
      }
    }
    out += "\n";
  }
  out += "host and managed memory (not in the devices' peaks)\n";
  for (records::MemoryKind kind : kHostKinds) {
    std::uint64_t peak = 0;
    for (const auto& [device, use] : ledger.devices()) peak += use.peak_by_kind[static_cast<std::size_t>(kind)];
    std::vector<records::Allocation> leaks;
    for (const records::Allocation& a : live) {
      if (a.kind == kind) leaks.push_back(a);
    }
    fmt::format_to(std::back_inserter(out), "  {}: peak {} bytes; never freed: {}, {} bytes\n", records::memory_kind_name(kind),
                   peak, plural(leaks.size(), "allocation", "allocations"), total_bytes(leaks));
    append_allocations(out, ledger, leaks, call_site);
  }
  out += "memory pools\n";
  for (const auto& [pool, use] : ledger.pools()) {
    fmt::format_to(std::back_inserter(out), "  {:#x} (device {}): peak reserved {} bytes, peak used {} bytes\n", pool,
                   use.device, use.peak_reserved, use.peak_used);
  }
  fmt::format_to(std::back_inserter(out), "frees of unknown addresses: {}\n", ledger.unknown_frees());
  for (const records::MemoryEvent& e : ledger.unknown_free_events()) {
    fmt::format_to(std::back_inserter(out), "    {} {:#x} at {}\n", e.api, e.address, ms_since(ledger, e.wall_ns));
  }
  return out;
}

std::string memory_report_summary(const records::MemoryLedger& ledger, std::string_view report_path) {
  std::string out;
  for (const auto& [device, use] : ledger.devices()) {
    if (use.peak == 0) continue;
    fmt::format_to(std::back_inserter(out), "computeprof: memory: device {} peak {} at {} ({} live)\n", device,
                   mib(use.peak), ms_since(ledger, use.peak_ns),
                   plural(ledger.live_at_peak(device).size(), "allocation", "allocations"));
  }
  const std::vector<records::Allocation> leaks = ledger.live();
  fmt::format_to(std::back_inserter(out), "computeprof: memory: {} never freed ({}); details in {}\n",
                 plural(leaks.size(), "allocation", "allocations"), mib(total_bytes(leaks)), report_path);
  return out;
}

}  // namespace computeprof::reports
