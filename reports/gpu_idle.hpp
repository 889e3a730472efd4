#pragma once
// Why the GPU sat idle (docs/format.md, "GPU idle"): per device, the time no kernel, copy
// or memset ran between its first operation's start and its last one's end, cut into
// gaps, each gap's time put down to what the threads that launch work on the device
// were doing meanwhile, as Nsight Systems' GPU gaps and HTA's idle time breakdown give
// it. Shared by the shim's `summary` and `computeprof stats`.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "records/api_call.hpp"
#include "records/context.hpp"
#include "records/memory_event.hpp"
#include "records/record.hpp"

namespace computeprof::reports {

// In the order a gap's instant is put down to them when threads did several things at
// once: waiting for the GPU explains an idle GPU before a copy's staging does, and so on.
enum class IdleCause : std::uint8_t {
  synchronization,  // inside a stream, context or event synchronize
  pageable_copy,    // inside the call of a copy from or to pageable host memory
  allocation,       // inside a memory allocate or free
  module_load,      // inside a module or library load or unload
  launch_bound,     // inside the launch of the operation that ends a gap shorter than that launch
  host,             // none of the above: the host was busy elsewhere
};
inline constexpr std::size_t kIdleCauses = 6;

// "synchronization", "pageable copy", ..., "host (no CUDA call)".
std::string_view idle_cause_name(IdleCause cause);

// One operation (kernel, copy, memset) as the analysis needs it: when it ran on the GPU,
// and the call on the host that launched it (the records' wall clock, ns).
struct IdleOperation {
  std::uint64_t gpu_start_ns = 0;
  std::uint64_t gpu_end_ns = 0;
  std::uint64_t call_start_ns = 0;
  std::uint64_t call_end_ns = 0;
  std::uint32_t thread_id = 0;
  bool pageable_copy = false;
};

// `record` of `context` as the analysis needs it: its call began at the context's origin
// plus `timestamp` and lasted `cputime`, as the exports place it.
IdleOperation idle_operation(const records::ContextInfo& context, const records::Record& record);

// One idle interval of a device and its time by cause (summing to its length).
struct IdleGap {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::array<std::uint64_t, kIdleCauses> cause_ns{};
};

// A synchronizing call by name and thread: the synchronization row's detail.
using SyncCaller = std::pair<std::string, std::uint32_t>;

// One device analysed.
struct DeviceIdle {
  int device = 0;
  std::uint64_t span_start_ns = 0;  // the first operation's GPU start
  std::uint64_t span_end_ns = 0;    // the last operation's GPU end
  std::uint64_t busy_ns = 0;        // the union of the operations' intervals
  std::vector<IdleGap> gaps;        // in time order; their lengths sum to span - busy
  // Each synchronizing call's (by name and thread) share of the synchronization time.
  std::map<SyncCaller, std::uint64_t> sync_ns;
};

// Every device's operations and every API call of the process, analysed at the end.
class GpuIdleInput {
 public:
  void add_operation(int device, const IdleOperation& operation);
  void add_api_call(const records::ApiCall& call);
  // memtrace's event of an allocation or free: its call, as apitrace would have traced it.
  void add_memory_call(const records::MemoryEvent& event);
  // Devices in ascending order.
  std::vector<DeviceIdle> analyse() const;
  bool empty() const { return operations_.empty(); }

 private:
  std::map<int, std::vector<IdleOperation>> operations_;
  std::vector<records::ApiCall> calls_;
};

// One device's analysis: `operations` are its own, `calls` and `pageable_copies` every
// thread's (the pageable copies of every device); only the calls of the threads that
// launched `operations` count.
DeviceIdle analyse_device(int device, std::vector<IdleOperation> operations, const std::vector<records::ApiCall>& calls,
                          const std::vector<IdleOperation>& pageable_copies);

struct IdleCauseRow {
  IdleCause cause = IdleCause::host;
  std::uint64_t ns = 0;
  std::uint64_t gaps = 0;  // the gaps with any time of this cause
  std::string detail;      // synchronization: "cuStreamSynchronize (thread 1234)"
};

struct DeviceIdleRow {
  int device = 0;
  std::uint64_t span_ns = 0;
  std::uint64_t idle_ns = 0;
  std::uint64_t gaps = 0;
  std::vector<IdleCauseRow> causes;  // those with time, longest first
};

// The analyses of one run or of several (files of `stats`), added per device.
class GpuIdleSummary {
 public:
  void add(const DeviceIdle& device);
  void merge(const GpuIdleSummary& other);
  std::vector<DeviceIdleRow> rows() const;
  bool empty() const { return by_device_.empty(); }

 private:
  struct Totals {
    std::uint64_t span_ns = 0, idle_ns = 0, gaps = 0;
    std::array<std::uint64_t, kIdleCauses> cause_ns{}, cause_gaps{};
    std::map<SyncCaller, std::uint64_t> sync_ns;
  };
  std::map<int, Totals> by_device_;
};

// The share of `part` in `whole`, in percent (0 when `whole` is 0).
double idle_percent(std::uint64_t part, std::uint64_t whole);

// Per device, a "GPU idle (device N):" line that starts with `prefix`, then its causes,
// every line ending with a line break; durations as the GPU activities' table writes
// them.
std::string format_gpu_idle(const std::vector<DeviceIdleRow>& rows, std::string_view prefix);

}  // namespace computeprof::reports
