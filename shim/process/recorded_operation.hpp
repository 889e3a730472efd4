#pragma once
// Recording an operation: whether, and how.
// Whether: which kernel launches the profile covers (docs/format.md, "Choosing
// kernels"), every decision of the kernel filters (config/kernel_filter.hpp), keyed on
// the kind of record a call makes. Copies, memsets and graph launches are always
// recorded; a kernel launched directly is recorded, counted or neither (select_launch);
// a kernel node of a graph launch is recorded when its name, context and stream match
// (graph_node_selected). What depends on a kernel's name is judged once per kernel (the
// shim keeps the verdict with the kernel): no regular expression runs on the launch path
// after a kernel's first launch.
// How: the one sequence every recorded operation goes through, CUDA and OpenCL alike
// (record_operation): claim a record from the operation's timing, say which call made it
// and describe it, make the real call inside the timing, and when the driver (or
// runtime) accepted the call, complete it: the timing fills in the times and hands the
// record on. A call the driver rejected executed nothing: its error goes back unchanged
// and nothing is recorded. The timings: shim/timing/operation_timing.hpp (CUDA),
// shim/opencl/command_timer.hpp.
#include <atomic>
#include <cstdint>
#include <string_view>

#include "config/kernel_filter.hpp"
#include "records/record.hpp"
#include "shim/process/call_stacks.hpp"
#include "shim/process/context_registry.hpp"
#include "shim/process/operation_ids.hpp"
#include "shim/process/profiling_state.hpp"
#include "shim/process/range_path.hpp"

namespace computeprof::shim {

// Which call made the operation: `api` is the wrapper's entry point (a literal);
// `stack_depth` the frames to capture (OperationSettings::callstack_depth).
inline void identify(records::Record& record, std::string_view api, unsigned stack_depth) {
  record.api = api;
  record.correlation_id = next_operation_id();
  record.thread_id = this_thread_id();
  record.range_path = thread_range_path();
  if (stack_depth != 0) record.stack_id = capture_call_stack(stack_depth);  // else 0: no stack
}

// `timing` times one operation:
//   records::Record& record()  the record it claimed for the operation (claimed when it
//                              was made)
//   around(call)               what it does just before and just after the real call,
//                              which it makes; returns the call's result
//   void complete()            the call succeeded: fills in the record's times and
//                              hands it on (now, or once the GPU times are known)
// `describe(record)` fills what the operation is, before the call (it may look at
// pointers the call is about to use). Forced inline, with the timing's own steps: once
// per operation, and a wrapper holds several timings.
template <typename Timing, typename Describe, typename Call>
[[gnu::always_inline]] inline auto record_operation(Timing& timing, std::string_view api, unsigned stack_depth,
                                                    Describe&& describe, Call&& call) {
  records::Record& record = timing.record();
  identify(record, api, stack_depth);
  describe(record);
  const auto result = timing.around(call);
  // CUDA_SUCCESS and CL_SUCCESS are both 0.
  if (result != decltype(result){}) return result;
  timing.complete();
  return result;
}

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

// The process's CUDA filters.
inline const config::KernelFilters& kernel_filters() { return process_profile().cuda.settings.config.kernel_filters; }

// What the shim keeps with each kernel for the filters.
struct KernelSelectionState {
  // The filters' verdict on the name, judged when the kernel is first seen.
  KernelNameVerdict verdict;
  // Launches of this kernel so far (counted only when a filter needs it).
  mutable std::atomic<std::uint64_t> launches{0};
};

// The verdict kept with a kernel when the shim first sees its name (empty when no filter
// is given).
KernelNameVerdict kernel_name_verdict(std::string_view mangled);

// What becomes of a kernel launched directly.
enum class LaunchSelection : std::uint8_t {
  recorded,  // timed and written
  counted,   // recorded, with its counters collected
  unseen,    // made, not recorded (kernelfilterscope all)
};

namespace detail {
// launchskip and launchcount count the matching launches of the process.
extern std::atomic<std::uint64_t> g_matching_launches;

// With filters or counters configured. Out of line, its arguments by value: on the
// common path nothing of it is made (a few instructions per launch otherwise).
template <typename Context, typename Kernel, typename StreamId>
[[gnu::noinline]] LaunchSelection select_filtered_launch(Context context, Kernel kernel, StreamId stream_id) {
  const config::KernelFilters& filters = kernel_filters();
  bool selected = true;
  if (filters.active()) {
    const KernelSelectionState& state = kernel();
    LaunchPlace place;
    place.context = static_cast<std::uint64_t>(context().number);
    if (names_streams(filters)) place.stream = stream_id();
    if (filters.counts_launches()) place.invocation = state.launches.fetch_add(1, std::memory_order_relaxed) + 1;
    selected = launch_matches(filters, state.verdict, place) &&
               ((filters.skip == 0 && !filters.count) ||
                within_skip_and_count(filters, g_matching_launches.fetch_add(1, std::memory_order_relaxed) + 1));
  }
  // Scope counters: every launch recorded, the selected ones counted. Scope all: the
  // others are not recorded at all.
  if (selected && process_profile().cuda.operations.counters) return LaunchSelection::counted;
  if (!selected && filters.scope == config::FilterScope::all) return LaunchSelection::unseen;
  return LaunchSelection::recorded;
}
}  // namespace detail

// A kernel launched directly: `context()` gives its ProfiledContext, `kernel()` its
// kernel's KernelSelectionState, `stream_id()` its stream's id; each is asked only when
// a filter needs it. Inline: without filters or counters (plain_launches) it is one
// test, where the filters' own take a dozen instructions.
template <typename Context, typename Kernel, typename StreamId>
LaunchSelection select_launch(Context context, Kernel kernel, StreamId stream_id) {
  if (process_profile().cuda.plain_launches) return LaunchSelection::recorded;
  return detail::select_filtered_launch(context, kernel, stream_id);
}

// Whether records that graph launches' activities make are filtered (kernelfilterscope
// all with filters): then graph_node_selected decides each.
bool selects_graph_nodes();

// A record made by an activity of a graph launch (one of its nodes): a kernel is
// recorded only if the filters select it by name, context and stream (invocation,
// launchskip and launchcount count direct launches); copies and memsets always.
bool graph_node_selected(const ProfiledContext& context, const records::Record& node);

}  // namespace computeprof::shim
