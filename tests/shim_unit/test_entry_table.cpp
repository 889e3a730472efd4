// Which wrapper a cuGetProcAddress request designates: exactly the variant the driver
// picks for (base name, version, flags), never another ABI.
#include "catch.hpp"

#include <set>

#include "shim/intercept/cuda_entry_table.hpp"

using namespace computeprof::shim;

namespace {
constexpr std::uint64_t kPerThread = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
constexpr std::uint64_t kLegacyStream = CU_GET_PROC_ADDRESS_LEGACY_STREAM;

std::string_view selected(std::string_view base, int version, std::uint64_t flags) {
  const auto e = select_variant(base, version, flags);
  return e ? entry_info(*e).symbol : std::string_view("none");
}
}  // namespace

TEST_CASE("cuGetProcAddress itself: the 4-argument ABI from 11030, the 5-argument one from 12000", "[entries]") {
  CHECK(selected("cuGetProcAddress", 11030, 0) == "cuGetProcAddress");
  CHECK(selected("cuGetProcAddress", 11080, 0) == "cuGetProcAddress");
  CHECK(selected("cuGetProcAddress", 12000, 0) == "cuGetProcAddress_v2");
  CHECK(selected("cuGetProcAddress", 13000, kPerThread) == "cuGetProcAddress_v2");
  CHECK(selected("cuGetProcAddress", 11020, 0) == "none");
}

TEST_CASE("launches: the runtime's (4000, 0) and (7000, 2)", "[entries]") {
  CHECK(selected("cuLaunchKernel", 4000, 0) == "cuLaunchKernel");
  CHECK(selected("cuLaunchKernel", 7000, kPerThread) == "cuLaunchKernel_ptsz");
  CHECK(selected("cuLaunchKernel", 13000, 0) == "cuLaunchKernel");
  CHECK(selected("cuLaunchKernel", 13000, kLegacyStream) == "cuLaunchKernel");
  CHECK(selected("cuLaunchKernel", 3020, 0) == "none");
  CHECK(selected("cuLaunchKernelEx", 11060, kPerThread) == "cuLaunchKernelEx_ptsz");
  CHECK(selected("cuLaunchKernelEx", 11050, 0) == "none");
  CHECK(selected("cuLaunchCooperativeKernel", 9000, kPerThread) == "cuLaunchCooperativeKernel_ptsz");
  CHECK(selected("cuGraphLaunch", 12000, 0) == "cuGraphLaunch");
}

TEST_CASE("copies: the 32-bit legacy ABI is never substituted, _v2 and _ptds are", "[entries]") {
  CHECK(selected("cuMemcpyHtoD", 2000, 0) == "none");
  CHECK(selected("cuMemcpyHtoD", 3010, 0) == "none");
  CHECK(selected("cuMemcpyHtoD", 3020, 0) == "cuMemcpyHtoD_v2");
  CHECK(selected("cuMemcpyHtoD", 3020, kPerThread) == "cuMemcpyHtoD_v2");  // no per-thread variant yet at 3020
  CHECK(selected("cuMemcpyHtoD", 7000, kPerThread) == "cuMemcpyHtoD_v2_ptds");
  CHECK(selected("cuMemcpyHtoDAsync", 7000, kPerThread) == "cuMemcpyHtoDAsync_v2_ptsz");
  CHECK(selected("cuMemcpy", 4000, 0) == "cuMemcpy");
  CHECK(selected("cuMemcpy2DUnaligned", 12000, kPerThread) == "cuMemcpy2DUnaligned_v2_ptds");
  CHECK(selected("cuMemsetD8Async", 3020, 0) == "cuMemsetD8Async");
  CHECK(selected("cuMemsetD2D32", 13000, kPerThread) == "cuMemsetD2D32_v2_ptds");
}

TEST_CASE("batched copies: the 12.8 ABI at 12080, the 13.0 ABI from 13000", "[entries]") {
  CHECK(selected("cuMemcpyBatchAsync", 12080, 0) == "cuMemcpyBatchAsync");
  CHECK(selected("cuMemcpyBatchAsync", 12090, kPerThread) == "cuMemcpyBatchAsync_ptsz");
  CHECK(selected("cuMemcpyBatchAsync", 13000, 0) == "cuMemcpyBatchAsync_v2");
  CHECK(selected("cuMemcpyBatchAsync", 13000, kPerThread) == "cuMemcpyBatchAsync_v2_ptsz");
  CHECK(selected("cuMemcpy3DBatchAsync", 13000, kPerThread) == "cuMemcpy3DBatchAsync_v2_ptsz");
  CHECK(selected("cuMemcpyBatchAsync", 12000, 0) == "none");
}

TEST_CASE("names are matched exactly", "[entries]") {
  CHECK(selected("cuLaunch", 13000, 0) == "none");
  CHECK(selected("cuLaunchKernelX", 13000, 0) == "none");
  CHECK(selected("cudnnCreate", 13000, 0) == "none");
  CHECK(!find_entry("cuMemcpyHtoD"));  // the 32-bit legacy export
  CHECK(find_entry("cuMemcpyHtoD_v2_ptds") == Entry::cuMemcpyHtoD_v2_ptds);
  CHECK(find_entry("cuMemAlloc_v2") == Entry::cuMemAlloc_v2);
  CHECK(!find_entry("cuStreamCreate"));
}

TEST_CASE("the table: unique symbols, every per-thread variant has a legacy twin", "[entries]") {
  std::set<std::string_view> symbols;
  for (const auto& e : kEntries) {
    CHECK(symbols.insert(e.symbol).second);
    CHECK(e.symbol.starts_with(e.base));
    if (e.per_thread) {
      CHECK((e.symbol.ends_with("_ptds") || e.symbol.ends_with("_ptsz")));
      bool twin = false;
      for (const auto& l : kEntries) twin |= (l.base == e.base && !l.per_thread && l.version <= e.version);
      CHECK(twin);
    }
  }
  CHECK(kEntryCount == 144);
}
