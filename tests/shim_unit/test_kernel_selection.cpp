// The kernel filters' evaluation (shim/process/recorded_operation); their parsing is
// tested in tests/unit/test_kernel_filter.cpp.
#include "catch.hpp"

#include <string_view>
#include <vector>

#include "config/kernel_filter.hpp"
#include "config/profile_config.hpp"
#include "shim/process/recorded_operation.hpp"

using namespace computeprof::config;
using namespace computeprof::shim;

namespace {

KernelFilters filters_of(std::string_view text) { return parse_profile_config(text, "cfg").kernel_filters; }

}  // namespace

TEST_CASE("kernel names: plain names equal the mangled or the demangled base name, regex searches both",
          "[filters]") {
  const auto f = filters_of("kernels vecAdd\nkernels _Z4spiny\nkernels regex:^block\nkernels regex:float const\\*\n");
  CHECK(judge_kernel_name(f, "_Z6vecAddPKfS0_Pfi").specs == 0b1001);  // base name; demangled has "float const*"
  CHECK(judge_kernel_name(f, "_Z4spiny").specs == 0b0010);              // mangled
  CHECK(judge_kernel_name(f, "_Z8blockSumPKfPfi").specs == 0b1100);     // regex on the demangled name
  CHECK(judge_kernel_name(f, "_Z5emptyv").specs == 0);
  CHECK_FALSE(judge_kernel_name(f, "_Z5emptyv").excluded);
  CHECK(judge_kernel_name(filters_of("kernelexclude Sum\n"), "_Z8blockSumPKfPfi").excluded);
  CHECK_FALSE(judge_kernel_name(filters_of("kernelexclude Sum\n"), "_Z6vecAddPKfS0_Pfi").excluded);
}

TEST_CASE("launches: context, stream and invocation fields, excludes, then skip and count", "[filters]") {
  const auto f = filters_of("kernels 1:7:spin\nkernels vecAdd:2\nkernelexclude ^_Z8block\n");
  const auto spin = judge_kernel_name(f, "_Z4spiny");
  const auto add = judge_kernel_name(f, "_Z6vecAddPKfS0_Pfi");
  const auto sum = judge_kernel_name(f, "_Z8blockSumPKfPfi");
  CHECK(launch_matches(f, spin, {1, 7, 5}));
  CHECK_FALSE(launch_matches(f, spin, {2, 7, 5}));
  CHECK_FALSE(launch_matches(f, spin, {1, 8, 5}));
  CHECK(launch_matches(f, add, {3, 9, 2}));
  CHECK_FALSE(launch_matches(f, add, {3, 9, 1}));
  CHECK_FALSE(launch_matches(f, add, {3, 9, 0}));  // a graph node has no invocation
  CHECK_FALSE(launch_matches(f, sum, {1, 7, 1}));
  CHECK(names_streams(f));
  CHECK_FALSE(names_streams(filters_of("kernels vecAdd:2\n")));

  const auto excludes_only = filters_of("kernelexclude spin\n");
  CHECK(launch_matches(excludes_only, judge_kernel_name(excludes_only, "_Z6vecAddPKfS0_Pfi"), {}));
  CHECK_FALSE(launch_matches(excludes_only, judge_kernel_name(excludes_only, "_Z4spiny"), {}));

  const auto window = filters_of("launchskip 2\nlaunchcount 3\n");
  std::vector<int> taken;
  for (int n = 1; n <= 8; ++n) {
    if (within_skip_and_count(window, static_cast<std::uint64_t>(n))) taken.push_back(n);
  }
  CHECK(taken == std::vector<int>{3, 4, 5});
  CHECK(within_skip_and_count(filters_of("launchskip 1\n"), 1000));
}
