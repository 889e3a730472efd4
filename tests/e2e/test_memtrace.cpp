// memtrace: every allocation and free the program makes, whichever way it reaches the
// driver, in the report, the picture, the trace's counters and the database; nothing
// when memtrace is off.
#include <algorithm>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"

#include "database_query.hpp"
#include "e2e_support.hpp"

using namespace e2e;

namespace {

// The report with what varies from run to run (times, addresses, the epoch) replaced
// by '?'.
std::string normalized(std::string text) {
  text = std::regex_replace(text, std::regex("0x[0-9a-f]+"), "0x?");
  text = std::regex_replace(text, std::regex("[0-9]+\\.[0-9]{3} ms"), "? ms");
  text = std::regex_replace(text, std::regex("time 0 is [0-9]+ ns"), "time 0 is ? ns");
  return text;
}

// driver_client's "basic": four device buffers and one pinned one of 40960 bytes, all
// freed before the end. cuMemGetInfo is read at the first allocation only (the others
// add up to less than 1/64 of the memory used then); the simulated driver counts 512 MiB
// and the device buffers.
const char* const kBasicReport =
    "# COMPUTEPROF_MEMORY 1\n"
    "# time 0 is ? ns since the epoch (the first event); times are ms from it\n"
    "# 10 events, 0 frees of unknown addresses\n"
    "device 0\n"
    "  peak: 163840 bytes (0.156 MiB) at ? ms, reached by cuMemAlloc_v2\n"
    "  cuMemGetInfo used: 536911872 bytes (512.039 MiB) at ? ms\n"
    "  live at the peak: 4 allocations, 163840 bytes\n"
    "    40960 device 0x? cuMemAlloc_v2 at ? ms\n"
    "    40960 device 0x? cuMemAlloc_v2 at ? ms\n"
    "    40960 device 0x? cuMemAlloc_v2 at ? ms\n"
    "    40960 device 0x? cuMemAlloc_v2 at ? ms\n"
    "  never freed: 0 allocations, 0 bytes\n"
    "  peak of each kind: device 163840\n"
    "host and managed memory (not in the devices' peaks)\n"
    "  managed: peak 0 bytes; never freed: 0 allocations, 0 bytes\n"
    "  pinned: peak 40960 bytes; never freed: 0 allocations, 0 bytes\n"
    "  registered: peak 0 bytes; never freed: 0 allocations, 0 bytes\n"
    "memory pools\n"
    "frees of unknown addresses: 0\n";

// The lines between `from` and `to` (exclusive) in sorted order: for lists whose order
// depends on addresses (the memory pools).
std::string sorted_between(std::string text, const std::string& from, const std::string& to) {
  const auto begin = text.find(from);
  const auto end = text.find(to);
  if (begin == std::string::npos || end == std::string::npos || end < begin) return text;
  std::vector<std::string> lines;
  std::istringstream in(text.substr(begin + from.size(), end - begin - from.size()));
  for (std::string line; std::getline(in, line);) lines.push_back(line + "\n");
  std::sort(lines.begin(), lines.end());
  std::string middle;
  for (const auto& l : lines) middle += l;
  return text.substr(0, begin + from.size()) + middle + text.substr(end);
}

// memory_client's peak (tests/e2e/memory_client.cpp): its allocations, the peak right
// after d3, d1 never freed, the sim's cuMemGetInfo (512 MiB and the device-resident bytes
// with the pools' 2 MiB reservations: test_memory_client.cpp) read at d1 and at d3, the
// allocation that takes what was allocated since d1 past 1/64 of the memory used then.
std::string expected_peak_report(const std::string& reach) {
  const std::string ptsz = reach == "procaddress-ptds" ? "_ptsz" : "";
  return "# COMPUTEPROF_MEMORY 1\n"
         "# time 0 is ? ns since the epoch (the first event); times are ms from it\n"
         "# 27 events, 0 frees of unknown addresses\n"
         "device 0\n"
         "  peak: 10289152 bytes (9.812 MiB) at ? ms, reached by cuMemAlloc_v2\n"
         "  cuMemGetInfo used: 548732928 bytes (523.312 MiB) at ? ms\n"
         "  live at the peak: 7 allocations, 10289152 bytes\n"
         "    4194304 device 0x? cuMemAlloc_v2 at ? ms\n"
         "    2097152 pool 0x? cuMemAllocAsync" + ptsz + " at ? ms\n"
         "    2097152 physical 0x? cuMemCreate at ? ms\n"
         "    1048576 device 0x? cuMemAlloc_v2 at ? ms\n"
         "    524288 pool 0x? cuMemAllocFromPoolAsync" + ptsz + " at ? ms\n"
         "    262144 array 0x? cuArrayCreate_v2 at ? ms\n"
         "    65536 device 0x? cuMemAllocPitch_v2 at ? ms\n"
         "  never freed: 1 allocation, 1048576 bytes\n"
         "    1048576 device 0x? cuMemAlloc_v2 at ? ms\n"
         "  peak of each kind: device 5308416 pool 2621440 physical 2097152 graph 1048576 array 262144\n"
         "host and managed memory (not in the devices' peaks)\n"
         "  managed: peak 262144 bytes; never freed: 0 allocations, 0 bytes\n"
         "  pinned: peak 98304 bytes; never freed: 0 allocations, 0 bytes\n"
         "  registered: peak 16384 bytes; never freed: 0 allocations, 0 bytes\n"
         "memory pools\n"
         "  0x? (device 0): peak reserved 2097152 bytes, peak used 2097152 bytes\n"
         "  0x? (device 0): peak reserved 2097152 bytes, peak used 524288 bytes\n"
         "frees of unknown addresses: 0\n";
}

}  // namespace

TEST_CASE("memtrace: every reach path gives the same report, picture, counters and rows", "[e2e][memtrace]") {
  const auto reach = GENERATE(as<std::string>{}, "linked", "dlsym", "procaddress", "procaddress-ptds", "runtime");
  INFO("reach " << reach);
  auto o = profiling("memtrace\nexport json,sqlite\n");
  const auto r = run_client(reach, "basic", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.ends_with("PASS\n"));

  const std::string stem = o.directory + "/compute_profile";
  CHECK(normalized(read_file(stem + ".memory")) == kBasicReport);
  CHECK(normalized(r.err).find("computeprof: memory: device 0 peak 0.156 MiB at ? ms (4 allocations live)\n"
                               "computeprof: memory: 0 allocations never freed (0.000 MiB); details in "
                               "compute_profile.memory\n") != std::string::npos);

  // The picture: the device's total steps up by 40960 four times, then down to 0.
  const std::string svg = read_file(stem + "_memory.svg");
  const std::regex total("data-series=\"device total\" data-steps=\"([^\"]*)\"");
  std::smatch m;
  REQUIRE(std::regex_search(svg, m, total));
  const std::string steps = m[1];
  const std::regex step("[0-9]+:([0-9]+)");
  std::vector<std::string> values;
  for (auto it = std::sregex_iterator(steps.begin(), steps.end(), step); it != std::sregex_iterator(); ++it) {
    values.push_back((*it)[1]);
  }
  CHECK(values == std::vector<std::string>{"40960", "81920", "122880", "163840", "122880", "81920", "40960", "0"});

  // The trace: a counter event per allocation and free; the last one back at 0.
  const std::string trace = read_file(stem + ".json");
  CHECK(count_of(trace, "\"ph\":\"C\",\"cat\":\"gpu_memory\"") == 10);
  const auto last = trace.rfind("\"ph\":\"C\"");
  CHECK(trace.find("\"args\":{\"device total\":0,\"device\":0,\"pinned\":0}", last) != std::string::npos);

  // The database, as the nsys memory scripts read it.
  const std::string db = stem + ".sqlite";
  CHECK(query(db, "SELECT memoryOperationType, memKind, bytes, count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS "
                  "GROUP BY 1, 2, 3 ORDER BY 1, 2") ==
        std::vector<std::string>{"0|1|40960|1", "0|2|40960|4", "1|1|40960|1", "1|2|40960|4"});
  // Each event joins exactly one driver call that contains it in time.
  CHECK(query(db, "SELECT count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS e JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                  "ON r.correlationId = e.correlationId AND r.eventClass = 1 AND r.start <= e.start AND "
                  "e.start <= r.end AND r.globalTid / 16777216 = e.globalPid / 16777216") ==
        std::vector<std::string>{"10"});
  CHECK(query(db, "SELECT s.value, count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS e JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                  "ON r.correlationId = e.correlationId JOIN StringIds s ON s.id = r.nameId GROUP BY 1 ORDER BY 1") ==
        std::vector<std::string>{"cuMemAllocHost_v2|1", "cuMemAlloc_v2|4", "cuMemFreeHost|1", "cuMemFree_v2|4"});
  // The watermark of device memory, as a running sum in event order.
  CHECK(query(db, "SELECT max(used) FROM (SELECT sum(CASE memoryOperationType WHEN 0 THEN bytes ELSE -bytes END) "
                  "OVER (ORDER BY start, rowid) AS used FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE memKind = 2)") ==
        std::vector<std::string>{"163840"});
  // Every allocation was freed, at the same address, with the same size.
  CHECK(query(db, "SELECT count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS a WHERE a.memoryOperationType = 0 AND NOT "
                  "EXISTS (SELECT 1 FROM CUDA_GPU_MEMORY_USAGE_EVENTS f WHERE f.memoryOperationType = 1 AND "
                  "f.address = a.address AND f.bytes = a.bytes AND f.start >= a.start)") ==
        std::vector<std::string>{"0"});
}

TEST_CASE("memtrace off: no memory files, and allocations reach the driver as before", "[e2e][memtrace]") {
  auto o = profiling("export json,sqlite\n");
  const auto r = run_client("dlsym", "basic", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.ends_with("PASS\n"));
  const std::string stem = o.directory + "/compute_profile";
  CHECK_FALSE(file_exists(stem + ".memory"));
  CHECK_FALSE(file_exists(stem + "_memory.svg"));
  CHECK(read_file(stem + ".json").find("\"ph\":\"C\"") == std::string::npos);
  CHECK(query(stem + ".sqlite", "SELECT count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS") ==
        std::vector<std::string>{"0"});
  CHECK(r.err.find("computeprof: memory:") == std::string::npos);
}

TEST_CASE("memtrace: memory_client's peak, live set and leak, whichever way it reaches the driver", "[e2e][memtrace]") {
  const auto reach = GENERATE(as<std::string>{}, "linked", "dlsym", "procaddress", "procaddress-ptds");
  INFO("reach " << reach);
  auto o = profiling("memtrace\nexport sqlite\n");
  const auto r = run_memory_client(reach, "peak", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.ends_with("PASS\n"));
  const std::string stem = o.directory + "/compute_profile";
  const std::string report = normalized(read_file(stem + ".memory"));
  CHECK(sorted_between(report, "memory pools\n", "frees of") ==
        sorted_between(expected_peak_report(reach), "memory pools\n", "frees of"));
  CHECK(normalized(r.err).find("computeprof: memory: device 0 peak 9.812 MiB at ? ms (7 allocations live)\n"
                               "computeprof: memory: 1 allocation never freed (1.000 MiB); details in "
                               "compute_profile.memory\n") != std::string::npos);

  // The leak is d1, at the address the program printed.
  const std::string d1 = printed_value(r.out, "alloc d1 cuMemAlloc_v2").substr(0, printed_value(r.out, "alloc d1 cuMemAlloc_v2").find(' '));
  const std::string raw = read_file(stem + ".memory");
  CHECK(raw.find("  never freed: 1 allocation, 1048576 bytes\n    1048576 device " + d1 + " cuMemAlloc_v2") !=
        std::string::npos);

  // The nsys scripts' watermark and leaks on the database: device memory (memKind 2)
  // and arrays (3), a running sum in event order; what has no free is the leak.
  const std::string db = stem + ".sqlite";
  CHECK(query(db, "SELECT max(used) FROM (SELECT sum(CASE memoryOperationType WHEN 0 THEN bytes ELSE -bytes END) "
                  "OVER (ORDER BY start, rowid) AS used FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE memKind IN (2, 3))") ==
        std::vector<std::string>{"10289152"});
  CHECK(query(db, "SELECT printf('0x%x', a.address), a.bytes FROM CUDA_GPU_MEMORY_USAGE_EVENTS a WHERE "
                  "a.memoryOperationType = 0 AND a.memKind IN (2, 3) AND NOT EXISTS (SELECT 1 FROM "
                  "CUDA_GPU_MEMORY_USAGE_EVENTS f WHERE f.memoryOperationType = 1 AND f.address = a.address AND "
                  "f.memKind = a.memKind AND f.start >= a.start)") ==
        std::vector<std::string>{d1 + "|1048576"});
  // Stream-ordered rows carry their stream and pool.
  CHECK(query(db, "SELECT memoryOperationType, count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE streamId IS NOT NULL "
                  "AND localMemoryPoolAddress IS NOT NULL GROUP BY 1") ==
        std::vector<std::string>{"0|2", "1|2"});
  // No row for the mapping: its memory is the physical allocation's.
  CHECK(query(db, "SELECT count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS") == std::vector<std::string>{"25"});
}

TEST_CASE("memtrace: a free of memory the process never allocated is counted, the program runs on", "[e2e][memtrace]") {
  auto o = profiling("memtrace\n");
  const auto r = run_memory_client("dlsym", "unknown-free", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.ends_with("PASS\n"));
  const std::string report = normalized(read_file(o.directory + "/compute_profile.memory"));
  CHECK(report.find("# 3 events, 1 free of an unknown address\n") != std::string::npos);
  CHECK(report.ends_with("frees of unknown addresses: 1\n    cuMemRelease 0x? at ? ms\n"));
}

TEST_CASE("memtrace: cuArray3DCreate's arrays, 3D and with depth 0, on every reach path", "[e2e][memtrace]") {
  const auto reach = GENERATE(as<std::string>{}, "linked", "dlsym", "procaddress", "procaddress-ptds");
  INFO(reach);
  auto o = profiling("memtrace\n");
  const auto r = run_memory_client(reach, "arrays", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.ends_with("PASS\n"));
  // 64 x 32 x 8 two-channel floats, then 128 x 128 bytes with depth 0 (one layer).
  CHECK(normalized(read_file(o.directory + "/compute_profile.memory")) ==
        "# COMPUTEPROF_MEMORY 1\n"
        "# time 0 is ? ns since the epoch (the first event); times are ms from it\n"
        "# 3 events, 0 frees of unknown addresses\n"
        "device 0\n"
        "  peak: 147456 bytes (0.141 MiB) at ? ms, reached by cuArray3DCreate_v2\n"
        "  cuMemGetInfo used: 537001984 bytes (512.125 MiB) at ? ms\n"
        "  live at the peak: 2 allocations, 147456 bytes\n"
        "    131072 array 0x? cuArray3DCreate_v2 at ? ms\n"
        "    16384 array 0x? cuArray3DCreate_v2 at ? ms\n"
        "  never freed: 1 allocation, 16384 bytes\n"
        "    16384 array 0x? cuArray3DCreate_v2 at ? ms\n"
        "  peak of each kind: array 147456\n"
        "host and managed memory (not in the devices' peaks)\n"
        "  managed: peak 0 bytes; never freed: 0 allocations, 0 bytes\n"
        "  pinned: peak 0 bytes; never freed: 0 allocations, 0 bytes\n"
        "  registered: peak 0 bytes; never freed: 0 allocations, 0 bytes\n"
        "memory pools\n"
        "frees of unknown addresses: 0\n");
}
