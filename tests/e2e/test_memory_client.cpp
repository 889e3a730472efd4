// memory_client on the simulated driver alone (no profiler): every reach path makes the
// same allocations and frees, cuMemGetInfo at the peak counts what the simulated driver
// says it counts (tests/sim/device_memory.cpp), and memory another program made can be
// imported, used and released.
#include <cstdint>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "catch.hpp"

#include "e2e_support.hpp"

using namespace e2e;

namespace {

constexpr std::uint64_t KiB = std::uint64_t{1} << 10;
constexpr std::uint64_t MiB = std::uint64_t{1} << 20;
constexpr std::uint64_t GiB = std::uint64_t{1} << 30;

// Device 0 at the peak (right after d3): the contexts' fixed 512 MiB, then d1 (1 MiB),
// d2 (pitch 1024 x 64 rows), a1 (256 x 256 floats), the default pool's reservation for
// p1 (2 MiB) and the created pool's for p2 (512 KiB rounded up to 2 MiB), the physical
// memory behind va (2 MiB) and d3 (4 MiB); host and managed memory are not counted.
constexpr std::uint64_t kPeakUsed = 512 * MiB + 1 * MiB + 1024 * 64 + 256 * 256 * 4 + 2 * MiB + 2 * MiB + 2 * MiB + 4 * MiB;
static_assert(kPeakUsed == 548'732'928);
constexpr std::uint64_t kTotal = 80 * GiB;
static_assert(kTotal - kPeakUsed == 85'350'612'992);

// The run's stdout with addresses replaced by 0x?, for `reach`'s names of the stream
// calls (procaddress-ptds reaches their _ptsz variants).
std::string expected_peak(const std::string& reach) {
  const std::string ptsz = reach == "procaddress-ptds" ? "_ptsz" : "";
  return "alloc d1 cuMemAlloc_v2 0x? 1048576\n"
         "alloc d2 cuMemAllocPitch_v2 0x? 65536\n"
         "alloc h1 cuMemAllocHost_v2 0x? 65536\n"
         "alloc h2 cuMemHostAlloc 0x? 32768\n"
         "alloc r1 cuMemHostRegister_v2 0x? 16384\n"
         "alloc m1 cuMemAllocManaged 0x? 262144\n"
         "alloc a1 cuArrayCreate_v2 0x? 262144\n"
         "alloc p1 cuMemAllocAsync" + ptsz + " 0x? 2097152\n"
         "alloc p2 cuMemAllocFromPoolAsync" + ptsz + " 0x? 524288\n"
         "alloc handle cuMemCreate 0x? 2097152\n"
         "alloc va cuMemMap 0x? 2097152\n"
         "alloc d3 cuMemAlloc_v2 0x? 4194304\n"
         "meminfo " + std::to_string(kTotal - kPeakUsed) + " " + std::to_string(kTotal) + "\n"
         "free d3 cuMemFree_v2 0x?\n"
         "free p1 cuMemFreeAsync" + ptsz + " 0x?\n"
         "free p2 cuMemFreeAsync" + ptsz + " 0x?\n"
         "free va cuMemUnmap 0x?\n"
         "free handle cuMemRelease 0x?\n"
         "free a1 cuArrayDestroy 0x?\n"
         "free d2 cuMemFree_v2 0x?\n"
         "free m1 cuMemFree_v2 0x?\n"
         "free h1 cuMemFreeHost 0x?\n"
         "free h2 cuMemFreeHost 0x?\n"
         "free r1 cuMemHostUnregister 0x?\n"
         "alloc g1 cuGraphAddMemAllocNode 0x? 1048576\n"
         "free g1 cuGraphAddMemFreeNode 0x?\n"
         "alloc mm1 cuMipmappedArrayCreate 0x? 16384\n"
         "free mm1 cuMipmappedArrayDestroy 0x?\n"
         "PASS\n";
}

// Each free names the address its label's allocation (or import) printed.
void check_frees_match_allocations(const std::string& out) {
  std::istringstream lines(out);
  std::map<std::string, std::string> allocated;
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string verb, label, api, address;
    words >> verb >> label >> api >> address;
    INFO(line);
    if (verb == "alloc" || verb == "import") allocated[label] = address;
    if (verb == "free") CHECK(allocated[label] == address);
  }
}

RunResult run_memory_client(const std::string& reach, const std::string& scenario) {
  RunOptions o;
  o.directory = make_scratch_directory();
  o.preload_shim = false;
  return e2e::run_memory_client(reach, scenario, o);
}

std::string without_addresses(const std::string& out) { return std::regex_replace(out, std::regex("0x[0-9a-f]+"), "0x?"); }

}  // namespace

TEST_CASE("memory_client peak: the same allocations and frees on every reach path, and cuMemGetInfo at the peak",
          "[e2e][memory_client]") {
  const auto reach = GENERATE(as<std::string>{}, "linked", "dlsym", "procaddress", "procaddress-ptds");
  INFO("reach " << reach);
  const RunResult r = run_memory_client(reach, "peak");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(without_addresses(r.out) == expected_peak(reach));
  check_frees_match_allocations(r.out);
}

TEST_CASE("memory_client unknown-free: physical memory another program made, imported, used and released",
          "[e2e][memory_client]") {
  const auto reach = GENERATE(as<std::string>{}, "linked", "dlsym", "procaddress", "procaddress-ptds");
  INFO("reach " << reach);
  const RunResult r = run_memory_client(reach, "unknown-free");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(without_addresses(r.out) ==
        "import x1 cuMemImportFromShareableHandle 0x? 2097152\n"
        "alloc xva cuMemMap 0x? 2097152\n"
        "free xva cuMemUnmap 0x?\n"
        "free x1 cuMemRelease 0x?\n"
        "PASS\n");
  check_frees_match_allocations(r.out);
}
