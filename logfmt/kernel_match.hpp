#pragma once
// Which launches the kernel filters select (config/kernel_filter.hpp, docs/format.md
// "Choosing kernels"), as pure functions. What depends on a kernel's name is judged once
// per kernel (the shim keeps the verdict with the kernel): no regular expression runs on
// the launch path after a kernel's first launch.
#include <cstdint>
#include <string_view>

#include "config/kernel_filter.hpp"

namespace computeprof::logfmt {

// A kernel's name against the filters: which `kernels` lines it matches by name (bit i
// for line i) and whether a `kernelexclude` line excludes it.
struct KernelNameVerdict {
  std::uint64_t specs = 0;
  bool excluded = false;
};

// At most this many `kernels` lines take part (one bit each); the config says so.
inline constexpr std::size_t kMaxKernelSpecs = 64;

KernelNameVerdict judge_kernel_name(const config::KernelFilters& filters, std::string_view mangled);

// Where and how often: what the name alone cannot decide.
struct LaunchPlace {
  std::uint64_t context = 0;     // the logs' context number
  std::uint64_t stream = 0;      // the stream's id (only read when a line names one)
  std::uint64_t invocation = 0;  // the kernel's launches so far, this one included
};

// Whether the launch matches the includes (any line: name, context, stream and
// invocation) and no exclude. launchskip and launchcount are applied after, in order.
bool launch_matches(const config::KernelFilters& filters, const KernelNameVerdict& verdict, const LaunchPlace& place);

// Whether some line names a stream (the stream's id is then read per launch).
bool names_streams(const config::KernelFilters& filters);

// launchskip and launchcount: whether the n-th matching launch of the process (from 1)
// is taken.
bool within_skip_and_count(const config::KernelFilters& filters, std::uint64_t n);

}  // namespace computeprof::logfmt
