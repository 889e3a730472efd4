// Records as Chrome trace events: exact text of each kind of event.
#include <span>
#include <string>

#include "catch.hpp"

#include "traces/trace_events.hpp"

using namespace computeprof::records;
using namespace computeprof::traces;

namespace {
Record kernel() {
  Record r;
  r.kind = RecordKind::kernel;
  r.method = "_Z6vecAddPKfS0_Pfi";
  r.api = "cuLaunchKernel";
  r.gputime_ns = 3'600;
  r.cputime_ns = 12'345;
  r.stream_id = 7;
  r.correlation_id = 42;
  r.grid = {40, 1, 1};
  r.block = {256, 1, 1};
  r.registers = 16;
  r.static_smem = 0;
  r.dynamic_smem = 128;
  r.occupancy = 1.0F;
  return r;
}
}  // namespace

TEST_CASE("a kernel is a complete event on its GPU's stream track, with the log's fields as args", "[trace]") {
  std::string out;
  append_gpu_event(out, kernel(), {{0, 7}, 1'500, 0, 0, 1}, {});
  // No device (the pid), no api (the call's event), no shared memory of 0.
  CHECK(out ==
        R"j({"ph":"X","cat":"kernel","name":"vecAdd(float const*, float const*, float*, int)","pid":0,"tid":7,)j"
        R"j("ts":1.500,"dur":3.600,"args":{"context":1,"stream":7,"correlation":42,)j"
        R"j("method":"_Z6vecAddPKfS0_Pfi","grid":[40,1,1],"block":[256,1,1],)j"
        R"j("registers per thread":16,"dynamic shared memory":128,"theoretical occupancy":1.000}})j");
  // The name given as the writer keeps it: the same text.
  GpuEventNames names;
  make_gpu_event_names(names, kernel());
  CHECK(names.name == R"j("vecAdd(float const*, float const*, float*, int)")j");
  CHECK(names.method == R"j("_Z6vecAddPKfS0_Pfi")j");
  std::string given;
  append_gpu_event(given, kernel(), {{0, 7}, 1'500, 0, 0, 1}, {}, names);
  CHECK(given == out);
}

TEST_CASE("a kernel whose name is not mangled has no method arg: it is the name", "[trace]") {
  Record r = kernel();
  r.method = "vecAdd";
  std::string out;
  append_gpu_event(out, r, {{0, 7}, 0, 0, 0, 1}, {});
  CHECK(out.find(R"j("name":"vecAdd",)j") != std::string::npos);
  CHECK(out.find("method") == std::string::npos);
  GpuEventNames names;
  make_gpu_event_names(names, r);
  CHECK(names.name == R"j("vecAdd")j");
  CHECK(names.method.empty());
}

TEST_CASE("counters are args: values, and n/a where they could not be collected", "[trace]") {
  Record r = kernel();
  CounterValues values;
  values.values[9] = CounterValue::of(123);  // inst_executed
  values.values[2] = CounterValue::unavailable_value();
  r.counter_state = CounterState::measured;
  r.counters = &values;
  std::string out;
  const std::size_t configured[] = {2, 9};
  append_gpu_event(out, r, {{0, 7}, 0, 0, 0, 1}, configured);
  CHECK(out.ends_with(R"j("theoretical occupancy":1.000,"gld_request":"n/a","inst_executed":123}})j"));
}

TEST_CASE("copies and memsets: names of their kinds, bytes, direction and bandwidth", "[trace]") {
  Record c;
  c.kind = RecordKind::memcpy;
  c.method = "memcpyHtoDasync";
  c.api = "cuMemcpyHtoDAsync_v2";
  c.transfer_bytes = 4096;
  c.transfer_dir = TransferDir::host_to_device;
  c.host_mem_type = HostMemType::page_locked;
  c.gputime_ns = 2'048;
  CHECK(gpu_event_name(c) == "Memcpy HtoD (Pinned -> Device)");
  std::string out;
  append_gpu_event(out, c, {{1, 3}, 0, 0, 1, 2}, {});
  // Direction and memory kinds are in the name, the bandwidth is bytes over dur.
  CHECK(out == R"j({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":1,"tid":3,"ts":0.000,)j"
               R"j("dur":2.048,"args":{"context":2,"stream":0,"correlation":0,"method":"memcpyHtoDasync","bytes":4096}})j");
  Record m;
  m.kind = RecordKind::memset;
  m.method = "memset";
  CHECK(gpu_event_name(m) == "Memset (Device)");
}

TEST_CASE("graph nodes, which may overlap on their stream, are async begin and end events", "[trace]") {
  std::string out;
  append_gpu_event(out, kernel(), {{0, 7}, 10'000, 42, 0, 1}, {});
  CHECK(out.starts_with(R"j({"ph":"b","cat":"kernel","id":42,"name":"vecAdd(float const*, float const*, float*, int)",)j"
                        R"j("pid":0,"tid":7,"ts":10.000,"args":{)j"));
  CHECK(out.ends_with(R"j(},
{"ph":"e","cat":"kernel","id":42,"name":"vecAdd(float const*, float const*, float*, int)","pid":0,"tid":7,"ts":13.600})j"));
}

TEST_CASE("the host call, the flow to its GPU work, track names", "[trace]") {
  std::string out;
  append_host_event(out, kernel(), false, {4242, 4243}, 500);
  CHECK(out == R"j({"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":4242,"tid":4243,"ts":0.500,"dur":12.345,)j"
               R"j("args":{"correlation":42}})j");
  // The name given as a writer keeps it, and a call stack: the same text around it.
  std::string given;
  const std::string stack[] = {"main+0x10", "f\"g"};
  append_host_event(given, kernel(), false, {4242, 4243}, 500, stack, R"j("cuLaunchKernel")j");
  CHECK(given == out.substr(0, out.size() - 2) + R"j(,"stack":["main+0x10","f\"g"]}})j");
  CHECK(host_event_name(kernel()) == "cuLaunchKernel");
  Record unnamed = kernel();
  unnamed.api = {};
  CHECK(host_event_name(unnamed) == "unknown");
  out.clear();
  append_flow(out, 9, {4242, 4243}, 500, {0, 7}, 1'500);
  CHECK(out == R"j({"ph":"s","id":9,"pid":4242,"tid":4243,"ts":0.500,"cat":"ac2g","name":"ac2g"},
{"ph":"f","id":9,"pid":0,"tid":7,"ts":1.500,"cat":"ac2g","name":"ac2g","bp":"e"})j");
  out.clear();
  append_process_name(out, 0, "GPU 0", "NVIDIA H100");
  append_thread_name(out, {0, 7}, "stream 7");
  CHECK(out == R"j({"ph":"M","name":"process_name","pid":0,"tid":0,"args":{"name":"GPU 0"}},
{"ph":"M","name":"process_labels","pid":0,"tid":0,"args":{"labels":"NVIDIA H100"}}{"ph":"M","name":"thread_name","pid":0,"tid":7,"args":{"name":"stream 7"}})j");
}

TEST_CASE("strings stay one JSON string: quotes and backslashes escaped, control characters spaced", "[trace]") {
  std::string out;
  append_json_string(out, "a\"b\\c\nd");
  CHECK(out == R"j("a\"b\\c d")j");
}

TEST_CASE("memory in use is a counter event per device, one series per kind", "[trace]") {
  std::string out;
  const CounterSeries series[] = {{"device total", 10289152}, {"device", 5308416}, {"pinned", 0}};
  append_counter_event(out, 0, "GPU memory (bytes)", 11'000'500, series);
  CHECK(out ==
        "{\"ph\":\"C\",\"cat\":\"gpu_memory\",\"name\":\"GPU memory (bytes)\",\"pid\":0,\"tid\":0,\"ts\":11000.500,"
        "\"args\":{\"device total\":10289152,\"device\":5308416,\"pinned\":0}}");
}

namespace {

constexpr std::uint64_t kMost = ~std::uint64_t{0};

// A kernel record whose every number is the largest of its type (the occupancy the most
// negative float: the longest text).
Record largest_kernel() {
  Record r = kernel();
  r.correlation_id = kMost;
  r.stream_id = kMost;
  r.gputime_ns = kMost;
  r.cputime_ns = kMost;
  r.grid = {~0u, ~0u, ~0u};
  r.block = {~0u, ~0u, ~0u};
  r.registers = ~0u;
  r.static_smem = ~0u;
  r.dynamic_smem = ~0u;
  r.occupancy = -3.0e38F;
  return r;
}

}  // namespace

TEST_CASE("events of the largest numbers fit the room made for them", "[trace]") {
  const Record r = largest_kernel();
  std::string out;
  append_flow(out, kMost, {kMost, kMost}, kMost, {kMost, kMost}, kMost);
  CHECK(out.size() == 299);
  out.clear();
  append_host_event(out, r, false, {kMost, kMost}, kMost);
  CHECK(out.ends_with(",\"args\":{\"correlation\":18446744073709551615}}"));
  out.clear();
  append_gpu_event(out, r, {{kMost, kMost}, kMost, kMost, 0, 1}, {});
  CHECK(out.find("\"id\":18446744073709551615,") != std::string::npos);
  CHECK(out.ends_with(",\"ts\":18446744073709551.614}"));  // start + dur, wrapped
}

namespace {

// What a LaunchEventWriter writes for `at`, and what it must equal: the call's event
// (where the launch has one), the operation's and the flow (where it has an id), each
// as written alone.
std::string written_together(LaunchEventWriter& writer, const Record& r, const LaunchPlacement& at,
                             const GpuEventNames& names, std::span<const std::string> stack = {}) {
  std::string out;
  writer.append(out, r, at, {}, names, R"j("cuLaunchKernel")j", stack);
  return out;
}

std::string written_alone(const Record& r, const LaunchPlacement& at, std::span<const std::string> stack = {}) {
  std::string out;
  if (at.host_event) {
    append_host_event(out, r, at.opencl, at.host, at.host_ns, stack);
    out += ",\n";
  }
  append_gpu_event(out, r, at.gpu, {});
  if (at.flow_id != 0) {
    out += ",\n";
    append_flow(out, at.flow_id, at.host, at.host_ns, at.gpu.track, at.gpu.start_ns);
  }
  return out;
}

}  // namespace

TEST_CASE("a launch's events written together are the call's, the operation's and the flow's as written alone",
          "[trace]") {
  const Record r = kernel();
  GpuEventNames names;
  make_gpu_event_names(names, r);
  LaunchEventWriter writer;
  const LaunchPlacement first{{4242, 4243}, 500, false, true, {{0, 7}, 1'500, 0, 0, 1}, 9};
  std::string together = written_together(writer, r, first, names);
  CHECK(together == written_alone(r, first));
  CHECK(together.starts_with(R"j({"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":4242,"tid":4243,)j"));
  CHECK(together.ends_with(R"j({"ph":"f","id":9,"pid":0,"tid":7,"ts":1.500,"cat":"ac2g","name":"ac2g","bp":"e"})j"));

  // The next launch on other tracks, an OpenCL call: the tracks' texts are made again.
  const LaunchPlacement opencl{{4242, 17}, 2'000, true, true, {{100, 3}, 2'500, 0, 0, 1}, 10};
  together = written_together(writer, r, opencl, names);
  CHECK(together == written_alone(r, opencl));
  CHECK(together.find(R"j("cat":"opencl_api")j") != std::string::npos);

  // Another launch configuration: its args are made again.
  Record wider = r;
  wider.grid = {80, 2, 1};
  wider.static_smem = 64;
  wider.occupancy = 0.5F;
  const LaunchPlacement third{{4242, 17}, 3'000, false, true, {{100, 3}, 3'500, 0, 0, 1}, 11};
  together = written_together(writer, wider, third, names);
  CHECK(together == written_alone(wider, third));
  CHECK(together.find(R"j("grid":[80,2,1],"block":[256,1,1],"registers per thread":16,"static shared memory":64,)j"
                      R"j("dynamic shared memory":128,"theoretical occupancy":0.500)j") != std::string::npos);

  // A graph launch's later node: its async pair only. The first, with a call stack.
  const LaunchPlacement node{{4242, 17}, 2'000, false, false, {{0, 7}, 10'000, 42, 0, 1}, 0};
  CHECK(written_together(writer, r, node, names) == written_alone(r, node));
  const std::string stack[] = {"main+0x10"};
  const LaunchPlacement first_node{{4242, 17}, 2'000, false, true, {{0, 7}, 10'000, 42, 0, 1}, 0};
  together = written_together(writer, r, first_node, names, stack);
  CHECK(together == written_alone(r, first_node, stack));
  CHECK(together.find(R"j("args":{"correlation":42,"stack":["main+0x10"]}})j") != std::string::npos);
}

TEST_CASE("a launch's events of the largest numbers fit the room made for them", "[trace]") {
  const Record r = largest_kernel();
  GpuEventNames names;
  make_gpu_event_names(names, r);
  for (const std::uint64_t async_id : {std::uint64_t{0}, kMost}) {
    const LaunchPlacement at{{kMost, kMost}, kMost, true, true, {{kMost, kMost}, kMost, async_id, -1, -1}, kMost};
    LaunchEventWriter writer;
    const std::string together = written_together(writer, r, at, names);
    CHECK(together == written_alone(r, at));
    CHECK(together.find('\0') == std::string::npos);
    CHECK(together.find(R"j("theoretical occupancy":-300000000549775575777803994281145270272.000)j") !=
          std::string::npos);
  }
}
