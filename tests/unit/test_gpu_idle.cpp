// Why the GPU sat idle (docs/format.md, "GPU idle"): gaps, each cause, their order when
// threads do several things at once, concurrent operations, devices, the table.
#include <string_view>

#include "catch.hpp"

#include "reports/gpu_idle.hpp"

using namespace computeprof;
using namespace computeprof::reports;

namespace {

IdleOperation operation(std::uint64_t gpu_start, std::uint64_t gpu_end, std::uint64_t call_start,
                        std::uint64_t call_end, std::uint32_t thread = 1, bool pageable_copy = false) {
  return {gpu_start, gpu_end, call_start, call_end, thread, pageable_copy};
}

records::ApiCall api_call(std::string_view name, records::ApiCallKind kind, std::uint64_t start, std::uint64_t end,
                          std::uint32_t thread = 1) {
  records::ApiCall call;
  call.name = name;
  call.kind = kind;
  call.start_ns = start;
  call.end_ns = end;
  call.thread_id = thread;
  return call;
}

std::uint64_t cause_ns(const IdleGap& gap, IdleCause cause) { return gap.cause_ns[static_cast<std::size_t>(cause)]; }

// The only device of `input`.
DeviceIdle only_device(const GpuIdleInput& input) {
  const std::vector<DeviceIdle> devices = input.analyse();
  REQUIRE(devices.size() == 1);
  return devices.front();
}

}  // namespace

TEST_CASE("GPU idle: nothing recorded, nothing analysed", "[gpu_idle]") {
  GpuIdleInput input;
  CHECK(input.empty());
  CHECK(input.analyse().empty());
  GpuIdleSummary summary;
  CHECK(summary.empty());
  CHECK(summary.rows().empty());
  CHECK(format_gpu_idle(summary.rows(), "==1== ").empty());
}

TEST_CASE("GPU idle: without API calls every gap is the host's", "[gpu_idle]") {
  GpuIdleInput input;
  input.add_operation(0, operation(0, 1'000, 0, 100));
  input.add_operation(0, operation(3'000, 4'000, 100, 200));
  input.add_operation(0, operation(4'000, 5'000, 200, 300));
  const DeviceIdle d = only_device(input);
  CHECK(d.span_start_ns == 0);
  CHECK(d.span_end_ns == 5'000);
  CHECK(d.busy_ns == 3'000);
  REQUIRE(d.gaps.size() == 1);
  CHECK(d.gaps[0].start_ns == 1'000);
  CHECK(d.gaps[0].end_ns == 3'000);
  CHECK(cause_ns(d.gaps[0], IdleCause::host) == 2'000);
  CHECK(d.sync_ns.empty());
}

TEST_CASE("GPU idle: a kernel then cuStreamSynchronize", "[gpu_idle]") {
  // A 2 us kernel; the thread waits for it until 500 ns after it ended, then launches the
  // next one 1 us later.
  GpuIdleInput input;
  input.add_operation(0, operation(1'000, 3'000, 0, 100, 7));
  input.add_api_call(api_call("cuStreamSynchronize", records::ApiCallKind::stream_synchronize, 100, 3'500, 7));
  input.add_operation(0, operation(5'000, 6'000, 4'500, 4'600, 7));
  const DeviceIdle d = only_device(input);
  REQUIRE(d.gaps.size() == 1);
  CHECK(cause_ns(d.gaps[0], IdleCause::synchronization) == 500);
  CHECK(cause_ns(d.gaps[0], IdleCause::host) == 1'500);
  CHECK(d.sync_ns == std::map<SyncCaller, std::uint64_t>{{{"cuStreamSynchronize", 7}, 500}});
}

TEST_CASE("GPU idle: an event synchronized, a context synchronized", "[gpu_idle]") {
  GpuIdleInput input;
  input.add_operation(0, operation(0, 1'000, 0, 10));
  input.add_api_call(api_call("cuEventRecord", records::ApiCallKind::event_record, 10, 20));
  input.add_api_call(api_call("cuEventSynchronize", records::ApiCallKind::event_synchronize, 20, 1'300));
  input.add_operation(0, operation(2'000, 3'000, 1'900, 1'950));
  input.add_api_call(api_call("cuCtxSynchronize", records::ApiCallKind::context_synchronize, 1'960, 3'100));
  input.add_operation(0, operation(4'000, 5'000, 3'900, 3'950));
  const DeviceIdle d = only_device(input);
  REQUIRE(d.gaps.size() == 2);
  // The event's record is no wait: the host's. The context's synchronization begins
  // inside the first gap.
  CHECK(cause_ns(d.gaps[0], IdleCause::synchronization) == 340);
  CHECK(cause_ns(d.gaps[0], IdleCause::host) == 660);
  CHECK(cause_ns(d.gaps[1], IdleCause::synchronization) == 100);
  CHECK(cause_ns(d.gaps[1], IdleCause::host) == 900);
  CHECK(d.sync_ns ==
        std::map<SyncCaller, std::uint64_t>{{{"cuCtxSynchronize", 1}, 140}, {{"cuEventSynchronize", 1}, 300}});
}

TEST_CASE("GPU idle: a copy from pageable memory comes before the launch it is", "[gpu_idle]") {
  // The copy's call (1.7 us) is longer than the gap it ends (1 us): a pageable copy, not
  // a launch, where both apply.
  GpuIdleInput input;
  input.add_operation(0, operation(0, 1'000, 0, 100));
  input.add_operation(0, operation(2'000, 3'000, 1'500, 3'200, 1, true));
  const DeviceIdle d = only_device(input);
  REQUIRE(d.gaps.size() == 1);
  CHECK(cause_ns(d.gaps[0], IdleCause::pageable_copy) == 500);
  CHECK(cause_ns(d.gaps[0], IdleCause::host) == 500);
  CHECK(cause_ns(d.gaps[0], IdleCause::launch_bound) == 0);
}

TEST_CASE("GPU idle: allocation, freeing and module loading", "[gpu_idle]") {
  GpuIdleInput input;
  input.add_operation(0, operation(0, 1'000, 0, 100));
  input.add_api_call(api_call("cuMemAlloc_v2", records::ApiCallKind::memory_allocate, 1'200, 1'500));
  input.add_api_call(api_call("cuMemFree_v2", records::ApiCallKind::memory_free, 1'600, 1'700));
  input.add_api_call(api_call("cuModuleLoadData", records::ApiCallKind::module_load, 1'700, 2'500));
  input.add_operation(0, operation(3'000, 4'000, 2'800, 2'900));
  const DeviceIdle d = only_device(input);
  REQUIRE(d.gaps.size() == 1);
  CHECK(cause_ns(d.gaps[0], IdleCause::allocation) == 400);
  CHECK(cause_ns(d.gaps[0], IdleCause::module_load) == 800);
  CHECK(cause_ns(d.gaps[0], IdleCause::host) == 800);
}

TEST_CASE("GPU idle: memtrace's allocations and frees are their calls", "[gpu_idle]") {
  GpuIdleInput input;
  input.add_operation(0, operation(0, 1'000, 0, 100));
  records::MemoryEvent allocation;
  allocation.api = "cuMemAlloc_v2";
  allocation.start_ns = 1'200;
  allocation.wall_ns = 1'500;
  allocation.thread_id = 1;
  input.add_memory_call(allocation);
  records::MemoryEvent free = allocation;
  free.api = "cuMemFree_v2";
  free.operation = records::MemoryOperation::free;
  free.start_ns = 1'600;
  free.wall_ns = 1'700;
  input.add_memory_call(free);
  // Another thread's allocation, which launches nothing on the device: not a cause.
  records::MemoryEvent elsewhere = allocation;
  elsewhere.thread_id = 2;
  elsewhere.start_ns = 2'000;
  elsewhere.wall_ns = 2'500;
  input.add_memory_call(elsewhere);
  input.add_operation(0, operation(3'000, 4'000, 2'800, 2'900));
  const DeviceIdle d = only_device(input);
  REQUIRE(d.gaps.size() == 1);
  CHECK(cause_ns(d.gaps[0], IdleCause::allocation) == 400);
  CHECK(cause_ns(d.gaps[0], IdleCause::host) == 1'600);
}

TEST_CASE("GPU idle: launch-bound where the gap is shorter than the launch that ends it", "[gpu_idle]") {
  GpuIdleInput input;
  input.add_operation(0, operation(0, 1'000, 0, 100));
  // Gap of 200 ns, launch of 350 ns: launch-bound.
  input.add_operation(0, operation(1'200, 2'200, 900, 1'250));
  // Gap of 800 ns, launch of 350 ns: the host's.
  input.add_operation(0, operation(3'000, 4'000, 2'500, 2'850));
  const DeviceIdle d = only_device(input);
  REQUIRE(d.gaps.size() == 2);
  CHECK(cause_ns(d.gaps[0], IdleCause::launch_bound) == 200);
  CHECK(cause_ns(d.gaps[0], IdleCause::host) == 0);
  CHECK(cause_ns(d.gaps[1], IdleCause::launch_bound) == 0);
  CHECK(cause_ns(d.gaps[1], IdleCause::host) == 800);
}

TEST_CASE("GPU idle: concurrent operations are busy once", "[gpu_idle]") {
  GpuIdleInput input;
  input.add_operation(0, operation(0, 3'000, 0, 10));
  input.add_operation(0, operation(1'000, 2'000, 10, 20));
  input.add_operation(0, operation(2'500, 4'000, 20, 30));
  input.add_operation(0, operation(5'000, 6'000, 30, 40));
  const DeviceIdle d = only_device(input);
  CHECK(d.busy_ns == 5'000);
  REQUIRE(d.gaps.size() == 1);
  CHECK(d.gaps[0].start_ns == 4'000);
  CHECK(d.gaps[0].end_ns == 5'000);
}

TEST_CASE("GPU idle: a gap two threads explain, split by overlap in the causes' order", "[gpu_idle]") {
  GpuIdleInput input;
  input.add_operation(0, operation(0, 1'000, 0, 100, 1));
  input.add_operation(0, operation(5'000, 6'000, 4'800, 4'900, 2));
  // Thread 1 waits to 2 us; thread 2 allocates from 1.5 us to 3 us: synchronization
  // first while both do.
  input.add_api_call(api_call("cuStreamSynchronize", records::ApiCallKind::stream_synchronize, 500, 2'000, 1));
  input.add_api_call(api_call("cuMemAlloc_v2", records::ApiCallKind::memory_allocate, 1'500, 3'000, 2));
  // A thread that launches nothing on the device does not explain its gaps.
  input.add_api_call(api_call("cuCtxSynchronize", records::ApiCallKind::context_synchronize, 3'000, 4'000, 3));
  const DeviceIdle d = only_device(input);
  REQUIRE(d.gaps.size() == 1);
  CHECK(cause_ns(d.gaps[0], IdleCause::synchronization) == 1'000);
  CHECK(cause_ns(d.gaps[0], IdleCause::allocation) == 1'000);
  CHECK(cause_ns(d.gaps[0], IdleCause::host) == 2'000);
}

TEST_CASE("GPU idle: two synchronizations at once go to the one that waited longest", "[gpu_idle]") {
  GpuIdleInput input;
  input.add_operation(0, operation(0, 1'000, 0, 100, 1));
  input.add_operation(0, operation(0, 500, 0, 100, 2));
  input.add_operation(0, operation(3'000, 4'000, 2'900, 2'950, 2));
  input.add_api_call(api_call("cuStreamSynchronize", records::ApiCallKind::stream_synchronize, 100, 2'000, 1));
  input.add_api_call(api_call("cuCtxSynchronize", records::ApiCallKind::context_synchronize, 200, 2'500, 2));
  const DeviceIdle d = only_device(input);
  REQUIRE(d.gaps.size() == 1);
  CHECK(cause_ns(d.gaps[0], IdleCause::synchronization) == 1'500);
  CHECK(d.sync_ns ==
        std::map<SyncCaller, std::uint64_t>{{{"cuCtxSynchronize", 2}, 500}, {{"cuStreamSynchronize", 1}, 1'000}});
}

TEST_CASE("GPU idle: each device by its own launching threads", "[gpu_idle]") {
  GpuIdleInput input;
  input.add_operation(0, operation(0, 1'000, 0, 100, 1));
  input.add_operation(0, operation(2'000, 3'000, 1'900, 1'950, 1));
  input.add_operation(1, operation(0, 500, 0, 100, 2));
  input.add_operation(1, operation(2'500, 3'000, 2'400, 2'450, 2));
  input.add_api_call(api_call("cuStreamSynchronize", records::ApiCallKind::stream_synchronize, 100, 1'500, 2));
  // Thread 2's synchronization explains device 1's gap, not device 0's; thread 1's
  // pageable copy on device 1 explains both.
  input.add_operation(1, operation(2'000, 2'100, 1'500, 1'800, 1, true));
  const std::vector<DeviceIdle> devices = input.analyse();
  REQUIRE(devices.size() == 2);
  CHECK(devices[0].device == 0);
  REQUIRE(devices[0].gaps.size() == 1);
  CHECK(cause_ns(devices[0].gaps[0], IdleCause::pageable_copy) == 300);
  CHECK(cause_ns(devices[0].gaps[0], IdleCause::host) == 700);
  CHECK(devices[1].device == 1);
  REQUIRE(devices[1].gaps.size() == 2);
  CHECK(cause_ns(devices[1].gaps[0], IdleCause::synchronization) == 1'000);
  CHECK(cause_ns(devices[1].gaps[0], IdleCause::pageable_copy) == 300);
  CHECK(cause_ns(devices[1].gaps[0], IdleCause::host) == 200);
  CHECK(cause_ns(devices[1].gaps[1], IdleCause::host) == 400);
}

TEST_CASE("GPU idle: the table, causes longest first, files added per device", "[gpu_idle]") {
  GpuIdleInput input;
  input.add_operation(0, operation(0, 2'000'000, 0, 10'000, 1234));
  input.add_api_call(
      api_call("cuStreamSynchronize", records::ApiCallKind::stream_synchronize, 10'000, 3'000'000, 1234));
  input.add_operation(0, operation(4'000'000, 5'000'000, 3'990'000, 4'000'000, 1234));
  input.add_operation(0, operation(5'000'200, 6'000'000, 4'999'000, 5'000'200, 1234));
  GpuIdleSummary summary;
  for (const DeviceIdle& d : input.analyse()) summary.add(d);
  std::vector<DeviceIdleRow> rows = summary.rows();
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].span_ns == 6'000'000);
  CHECK(rows[0].idle_ns == 2'000'200);
  CHECK(rows[0].gaps == 2);
  CHECK(format_gpu_idle(rows, "==9== ") ==
        "==9== GPU idle (device 0): 33.34% of 6.0000ms, 2 gaps\n"
        "Cause                Time(%)      Time   Gaps  Detail\n"
        "synchronization       50.00%  1.0000ms      1  cuStreamSynchronize (thread 1234)\n"
        "host (no CUDA call)   50.00%  1.0000ms      1\n"
        "launch-bound           0.01%     200ns      1\n");
  GpuIdleSummary twice;
  twice.merge(summary);
  twice.merge(summary);
  rows = twice.rows();
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].span_ns == 12'000'000);
  CHECK(rows[0].idle_ns == 4'000'400);
  CHECK(rows[0].gaps == 4);
  REQUIRE(rows[0].causes.size() == 3);
  CHECK(rows[0].causes[0].ns == 2'000'000);
  CHECK(rows[0].causes[0].gaps == 2);
  CHECK(rows[0].causes[0].detail == "cuStreamSynchronize (thread 1234)");
}

TEST_CASE("GPU idle: a device never idle has a line and no causes", "[gpu_idle]") {
  GpuIdleInput input;
  input.add_operation(3, operation(1'000, 3'000'000, 0, 10));
  GpuIdleSummary summary;
  for (const DeviceIdle& d : input.analyse()) summary.add(d);
  CHECK(format_gpu_idle(summary.rows(), "") == "GPU idle (device 3): 0.00% of 2.9990ms, 0 gaps\n");
}
