#include "catch.hpp"

#include <string>
#include <vector>

#include "records/memory_ledger.hpp"
#include "reports/memory_report.hpp"
#include "reports/memory_svg.hpp"

using namespace computeprof::records;
using namespace computeprof::reports;

namespace {

constexpr std::uint64_t MiB = 1 << 20;
constexpr std::uint64_t KiB = 1 << 10;
constexpr std::uint64_t kStart = 1'700'000'000'000'000'000;

// Events as the wrappers make them: frees carry no bytes or kind of their own.
struct Script {
  MemoryLedger ledger;
  std::uint64_t sequence = 0;
  std::uint64_t now = kStart;

  MemoryEvent& apply(MemoryEvent e) {
    e.sequence = ++sequence;
    e.wall_ns = now;
    now += 1'000'000;  // a millisecond apart
    events.push_back(e);
    ledger.apply(events.back());
    return events.back();
  }
  MemoryEvent& allocate(std::string_view api, MemoryKind kind, std::uint64_t address, std::uint64_t bytes,
                        std::uint32_t device = 0) {
    MemoryEvent e;
    e.api = api;
    e.kind = kind;
    e.address = address;
    e.bytes = bytes;
    e.device = device;
    return apply(e);
  }
  MemoryEvent& free(std::string_view api, MemoryKind space, std::uint64_t address) {
    MemoryEvent e;
    e.api = api;
    e.kind = space;
    e.address = address;
    e.operation = MemoryOperation::free;
    return apply(e);
  }
  std::vector<MemoryEvent> events{};

  Script() { events.reserve(64); }
};

// The memory client's sequence (tests/e2e/memory_client.cpp, "peak"), addresses made up.
void run_peak_scenario(Script& s) {
  s.allocate("cuMemAlloc_v2", MemoryKind::device, 0x1000000, 1 * MiB);          // d1, never freed
  s.allocate("cuMemAllocPitch_v2", MemoryKind::device, 0x2000000, 64 * KiB);    // d2
  s.allocate("cuMemAllocHost_v2", MemoryKind::pinned, 0x3000000, 64 * KiB);     // h1
  s.allocate("cuMemHostAlloc", MemoryKind::pinned, 0x4000000, 32 * KiB);        // h2
  s.allocate("cuMemHostRegister_v2", MemoryKind::registered, 0x5000000, 16 * KiB);
  s.allocate("cuMemAllocManaged", MemoryKind::managed, 0x6000000, 256 * KiB);
  s.allocate("cuArrayCreate_v2", MemoryKind::array, 0xa1, 256 * KiB);
  MemoryEvent& p1 = s.allocate("cuMemAllocAsync", MemoryKind::pool, 0x7000000, 2 * MiB);
  (void)p1;
  s.allocate("cuMemAllocFromPoolAsync", MemoryKind::pool, 0x8000000, 512 * KiB);
  s.allocate("cuMemCreate", MemoryKind::physical, 0xb1, 2 * MiB);
  s.allocate("cuMemMap", MemoryKind::mapping, 0x9000000, 2 * MiB);
  MemoryEvent d3;
  d3.api = "cuMemAlloc_v2";
  d3.address = 0xc000000;
  d3.bytes = 4 * MiB;
  d3.device_used = 512 * MiB + 10'289'152;  // the simulated driver's cuMemGetInfo at the peak
  s.apply(d3);
  s.free("cuMemFree_v2", MemoryKind::device, 0xc000000);
  s.free("cuMemFreeAsync", MemoryKind::device, 0x7000000);
  s.free("cuMemFreeAsync", MemoryKind::device, 0x8000000);
  s.free("cuMemUnmap", MemoryKind::mapping, 0x9000000);
  s.free("cuMemRelease", MemoryKind::physical, 0xb1);
  s.free("cuArrayDestroy", MemoryKind::array, 0xa1);
  s.free("cuMemFree_v2", MemoryKind::device, 0x2000000);
  s.free("cuMemFree_v2", MemoryKind::device, 0x6000000);
  s.free("cuMemFreeHost", MemoryKind::pinned, 0x3000000);
  s.free("cuMemFreeHost", MemoryKind::pinned, 0x4000000);
  s.free("cuMemHostUnregister", MemoryKind::registered, 0x5000000);
  s.allocate("cuGraphAddMemAllocNode", MemoryKind::graph, 0xd000000, 1 * MiB);
  s.free("cuGraphAddMemFreeNode", MemoryKind::device, 0xd000000);
}

}  // namespace

TEST_CASE("memory ledger: the peak, what was live then, what was never freed", "[memory]") {
  Script s;
  run_peak_scenario(s);
  const MemoryLedger& l = s.ledger;
  REQUIRE(l.devices().size() == 1);
  const DeviceUse& use = l.devices().at(0);
  // d1 + d2 + array + p1 + p2 + physical + d3; not the mapping, managed or host memory.
  constexpr std::uint64_t kPeak = 1 * MiB + 64 * KiB + 256 * KiB + 2 * MiB + 512 * KiB + 2 * MiB + 4 * MiB;
  CHECK(use.peak == kPeak);
  CHECK(use.peak == 10'289'152);
  CHECK(use.peak_ns == kStart + 11 * 1'000'000);
  CHECK(use.peak_api == "cuMemAlloc_v2");
  CHECK(use.current == 1 * MiB);

  const auto at_peak = l.live_at_peak(0);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> seen;  // bytes, address
  for (const Allocation& a : at_peak) seen.emplace_back(a.bytes, a.address);
  CHECK(seen == std::vector<std::pair<std::uint64_t, std::uint64_t>>{{4 * MiB, 0xc000000},
                                                                     {2 * MiB, 0x7000000},
                                                                     {2 * MiB, 0xb1},
                                                                     {1 * MiB, 0x1000000},
                                                                     {512 * KiB, 0x8000000},
                                                                     {256 * KiB, 0xa1},
                                                                     {64 * KiB, 0x2000000}});

  const auto leaks = l.live();
  REQUIRE(leaks.size() == 1);
  CHECK(leaks[0].address == 0x1000000);
  CHECK(leaks[0].bytes == 1 * MiB);
  CHECK(leaks[0].api == "cuMemAlloc_v2");
  CHECK(l.unknown_frees() == 0);

  // Frees were completed from their allocations.
  CHECK(s.events[12].bytes == 4 * MiB);
  CHECK(s.events[12].kind == MemoryKind::device);
  CHECK(s.events[13].kind == MemoryKind::pool);
  CHECK(s.events[13].bytes == 2 * MiB);
  CHECK(s.events[17].kind == MemoryKind::array);
  CHECK(s.events[24].kind == MemoryKind::graph);

  CHECK(use.peak_by_kind[static_cast<std::size_t>(MemoryKind::managed)] == 256 * KiB);
  CHECK(use.peak_by_kind[static_cast<std::size_t>(MemoryKind::pinned)] == 96 * KiB);
  const auto* total = l.total_steps(0);
  REQUIRE(total != nullptr);
  // One step per device-resident event: 7 allocations, 6 frees, the graph's two (not
  // the mapping, managed or host memory).
  CHECK(total->size() == 15);
  CHECK(total->front().bytes == 1 * MiB);
  CHECK(total->back().bytes == 1 * MiB);
}

TEST_CASE("memory ledger: a later, higher peak replaces the live set, freed allocations stay in it", "[memory]") {
  Script s;
  s.allocate("cuMemAlloc_v2", MemoryKind::device, 0x10, 100);
  s.allocate("cuMemAlloc_v2", MemoryKind::device, 0x20, 200);  // peak 300: 0x10, 0x20
  s.free("cuMemFree_v2", MemoryKind::device, 0x10);
  s.free("cuMemFree_v2", MemoryKind::device, 0x20);
  auto first = s.ledger.live_at_peak(0);
  REQUIRE(first.size() == 2);
  CHECK(first[0].address == 0x20);
  CHECK(first[1].address == 0x10);
  s.allocate("cuMemAlloc_v2", MemoryKind::device, 0x30, 250);
  CHECK(s.ledger.devices().at(0).peak == 300);
  s.allocate("cuMemAlloc_v2", MemoryKind::device, 0x40, 60);  // peak 310: 0x30, 0x40
  auto second = s.ledger.live_at_peak(0);
  REQUIRE(second.size() == 2);
  CHECK(second[0].address == 0x30);
  CHECK(second[1].address == 0x40);
  CHECK(s.ledger.devices().at(0).peak == 310);
}

TEST_CASE("memory ledger: a free of an unknown address is counted, never applied", "[memory]") {
  Script s;
  s.allocate("cuMemAlloc_v2", MemoryKind::device, 0x10, 100);
  MemoryEvent& bad = s.free("cuMemFree_v2", MemoryKind::device, 0x99);
  CHECK(bad.unknown);
  CHECK(bad.bytes == 0);
  // The same number in another space (an array handle) is not the allocation either.
  CHECK(s.free("cuArrayDestroy", MemoryKind::array, 0x10).unknown);
  CHECK(s.ledger.unknown_frees() == 2);
  CHECK(s.ledger.devices().at(0).current == 100);
  // An address handed out again without a free seen: the old allocation ends there.
  s.allocate("cuMemAlloc_v2", MemoryKind::device, 0x10, 40);
  CHECK(s.ledger.devices().at(0).current == 40);
  CHECK(s.ledger.live().size() == 1);
}

TEST_CASE("memory ledger: pools keep their highest reserved and used bytes, cuMemGetInfo nearest the peak", "[memory]") {
  Script s;
  MemoryEvent e;
  e.api = "cuMemAllocAsync";
  e.kind = MemoryKind::pool;
  e.address = 0x100;
  e.bytes = 3 * MiB;
  e.pool = 0xabc;
  e.pool_reserved = 4 * MiB;
  e.pool_used = 3 * MiB;
  e.device_used = 600 * MiB;
  s.apply(e);
  MemoryEvent f;
  f.api = "cuMemFreeAsync";
  f.kind = MemoryKind::device;
  f.address = 0x100;
  f.operation = MemoryOperation::free;
  f.pool_reserved = 0;
  f.pool_used = 0;
  f.pool = 0xabc;
  f.device_used = 512 * MiB;
  s.apply(f);
  REQUIRE(s.ledger.pools().size() == 1);
  CHECK(s.ledger.pools().at(0xabc).peak_reserved == 4 * MiB);
  CHECK(s.ledger.pools().at(0xabc).peak_used == 3 * MiB);
  const DriverSample* sample = s.ledger.sample_near_peak(0);
  REQUIRE(sample != nullptr);
  CHECK(sample->used == 600 * MiB);
}

TEST_CASE("memory report: exact text of the client's scenario", "[memory]") {
  Script s;
  run_peak_scenario(s);
  CHECK(memory_report(s.ledger) ==
        "# COMPUTEPROF_MEMORY 1\n"
        "# time 0 is 1700000000000000000 ns since the epoch (the first event); times are ms from it\n"
        "# 25 events, 0 frees of unknown addresses\n"
        "device 0\n"
        "  peak: 10289152 bytes (9.812 MiB) at 11.000 ms, reached by cuMemAlloc_v2\n"
        "  cuMemGetInfo used: 547160064 bytes (521.812 MiB) at 11.000 ms\n"
        "  live at the peak: 7 allocations, 10289152 bytes\n"
        "    4194304 device 0xc000000 cuMemAlloc_v2 at 11.000 ms\n"
        "    2097152 pool 0x7000000 cuMemAllocAsync at 7.000 ms\n"
        "    2097152 physical 0xb1 cuMemCreate at 9.000 ms\n"
        "    1048576 device 0x1000000 cuMemAlloc_v2 at 0.000 ms\n"
        "    524288 pool 0x8000000 cuMemAllocFromPoolAsync at 8.000 ms\n"
        "    262144 array 0xa1 cuArrayCreate_v2 at 6.000 ms\n"
        "    65536 device 0x2000000 cuMemAllocPitch_v2 at 1.000 ms\n"
        "  never freed: 1 allocation, 1048576 bytes\n"
        "    1048576 device 0x1000000 cuMemAlloc_v2 at 0.000 ms\n"
        "  peak of each kind: device 5308416 pool 2621440 physical 2097152 graph 1048576 array 262144\n"
        "host and managed memory (not in the devices' peaks)\n"
        "  managed: peak 262144 bytes; never freed: 0 allocations, 0 bytes\n"
        "  pinned: peak 98304 bytes; never freed: 0 allocations, 0 bytes\n"
        "  registered: peak 16384 bytes; never freed: 0 allocations, 0 bytes\n"
        "memory pools\n"
        "frees of unknown addresses: 0\n");
  CHECK(memory_report_summary(s.ledger, "run.memory") ==
        "computeprof: memory: device 0 peak 9.812 MiB at 11.000 ms (7 allocations live)\n"
        "computeprof: memory: 1 allocation never freed (1.000 MiB); details in run.memory\n");
}

TEST_CASE("memory picture: one step line per kind and the total, values readable back", "[memory]") {
  Script s;
  s.allocate("cuMemAlloc_v2", MemoryKind::device, 0x10, 3 * MiB);
  s.allocate("cuMemAllocManaged", MemoryKind::managed, 0x20, 1 * MiB);
  s.free("cuMemFree_v2", MemoryKind::device, 0x10);
  const std::string svg = memory_svg(s.ledger);
  CHECK(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"960\" height=\"420\""));
  CHECK(svg.ends_with("</svg>\n"));
  CHECK(svg.find("data-series=\"device total\" data-steps=\"0:3145728 2000000:0\"") != std::string::npos);
  CHECK(svg.find("data-series=\"device\" data-steps=\"0:3145728 2000000:0\"") != std::string::npos);
  CHECK(svg.find("data-series=\"managed\" data-steps=\"1000000:1048576\"") != std::string::npos);
  CHECK(svg.find("GPU memory in use, device 0") != std::string::npos);
  CHECK(svg.find("time since the first allocation (ms)") != std::string::npos);
  CHECK(svg.find("in use (MiB)") != std::string::npos);
  // The total: up to 3 MiB at x=90 (time 0) until 2 ms (the right edge), then 0. The y
  // range is 3 MiB and 5 % (3.15 MiB) rounded up to a whole tick of 1 MiB: 4 MiB.
  const double top = 50, height = 420 - 50 - 60;
  const double y3 = top + height * (1 - 3.0 / 4.0);
  char expected[160];
  std::snprintf(expected, sizeof expected, "d=\"M90.00,%.2f V%.2f H790.00 V%.2f H790.00\"", top + height, y3, top + height);
  CHECK(svg.find(expected) != std::string::npos);
}
