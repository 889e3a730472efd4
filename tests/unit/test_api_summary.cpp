// nvprof's "API calls" rows: calls added up per entry point from traced calls,
// operations' calls and memtrace's, merged across files, and printed in the summary's
// table under the GPU activities.
#include "catch.hpp"

#include "reports/api_summary.hpp"

using namespace computeprof;
using namespace computeprof::reports;

namespace {

records::ApiCall traced(std::string_view name, std::uint64_t start_ns, std::uint64_t end_ns, std::int32_t result = 0) {
  records::ApiCall call;
  call.name = name;
  call.start_ns = start_ns;
  call.end_ns = end_ns;
  call.result = result;
  return call;
}

records::Record operation(std::string_view api, std::uint64_t correlation_id, std::uint64_t cputime_ns) {
  records::Record r;
  r.api = api;
  r.correlation_id = correlation_id;
  r.cputime_ns = cputime_ns;
  return r;
}

}  // namespace

TEST_CASE("a row per entry point: calls, total, shortest, longest and errors, longest total first", "[api_summary]") {
  ApiSummary s;
  s.add_traced_call(traced("cuStreamSynchronize", 1'000, 301'000));
  s.add_traced_call(traced("cuStreamSynchronize", 5'000, 25'000));
  s.add_traced_call(traced("cuEventRecord", 100, 600, 400));
  s.add_operation_call(operation("cuLaunchKernel", 7, 13'220));
  // A graph launch's nodes come from one call: counted once.
  s.add_operation_call(operation("cuGraphLaunch", 8, 2'000));
  s.add_operation_call(operation("cuGraphLaunch", 8, 2'000));
  s.add_operation_call(operation("cuGraphLaunch", 9, 1'000));
  records::MemoryEvent allocation;
  allocation.api = "cuMemAlloc_v2";
  allocation.start_ns = 40;
  allocation.wall_ns = 540;
  s.add_memory_call(allocation);
  const std::vector<ApiSummaryRow> rows = s.rows();
  REQUIRE(rows.size() == 5);
  CHECK(rows[0].time.name == "cuStreamSynchronize");
  CHECK(rows[0].time.calls == 2);
  CHECK(rows[0].time.total_ns == 320'000);
  CHECK(rows[0].time.min_ns == 20'000);
  CHECK(rows[0].time.max_ns == 300'000);
  CHECK(rows[0].errors == 0);
  CHECK(rows[1].time.name == "cuLaunchKernel");
  CHECK(rows[1].time.calls == 1);
  CHECK(rows[1].time.total_ns == 13'220);
  CHECK(rows[2].time.name == "cuGraphLaunch");
  CHECK(rows[2].time.calls == 2);
  CHECK(rows[2].time.total_ns == 3'000);
  CHECK(rows[2].time.min_ns == 1'000);
  CHECK(rows[2].time.max_ns == 2'000);
  // Equal totals: by name.
  CHECK(rows[3].time.name == "cuEventRecord");
  CHECK(rows[3].time.total_ns == 500);
  CHECK(rows[3].errors == 1);
  CHECK(rows[4].time.name == "cuMemAlloc_v2");
  CHECK(rows[4].time.total_ns == 500);
  CHECK(rows[4].errors == 0);
}

TEST_CASE("a call that returns before it began counts 0 ns", "[api_summary]") {
  ApiSummary s;
  s.add_traced_call(traced("cuCtxSynchronize", 900, 800));
  const std::vector<ApiSummaryRow> rows = s.rows();
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].time.total_ns == 0);
  CHECK(rows[0].time.calls == 1);
}

TEST_CASE("files' calls merge as if added into one", "[api_summary]") {
  ApiSummary a;
  a.add("cuStreamSynchronize", 300, false);
  a.add("cuLaunchKernel", 50, false);
  ApiSummary b;
  b.add("cuStreamSynchronize", 100, true);
  b.add("cuStreamSynchronize", 700, false);
  b.add("cuEventRecord", 10, true);
  a.merge(b);
  const std::vector<ApiSummaryRow> rows = a.rows();
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].time.name == "cuStreamSynchronize");
  CHECK(rows[0].time.calls == 3);
  CHECK(rows[0].time.total_ns == 1'100);
  CHECK(rows[0].time.min_ns == 100);
  CHECK(rows[0].time.max_ns == 700);
  CHECK(rows[0].errors == 1);
  CHECK(rows[1].time.name == "cuLaunchKernel");
  CHECK(rows[1].time.calls == 1);
  CHECK(rows[2].time.name == "cuEventRecord");
  CHECK(rows[2].errors == 1);
  CHECK_FALSE(a.empty());
  CHECK(ApiSummary().empty());
}

TEST_CASE("the API calls follow the GPU activities in nvprof's one table", "[api_summary][summary]") {
  GpuSummary gpu;
  gpu.add("_Z6vecAddPKfS0_Pfi", 3'703'700);
  gpu.add("memcpyDtoH", 248'130);
  ApiSummary calls;
  calls.add("cudaMemcpy", 300'000, false);
  calls.add("cudaMemcpy", 20'000, false);
  calls.add("cudaLaunchKernel", 13'220, false);
  CHECK(format_summary(gpu.rows(), "==12345== ", {api_calls_section(calls.rows())}) ==
        "==12345== Profiling result:\n"
        "            Type  Time(%)      Time     Calls       Avg       Min       Max  Name\n"
        " GPU activities:   93.72%  3.7037ms         1  3.7037ms  3.7037ms  3.7037ms  "
        "vecAdd(float const*, float const*, float*, int)\n"
        "                    6.28%  248.13us         1  248.13us  248.13us  248.13us  [CUDA memcpy DtoH]\n"
        "      API calls:   96.03%  320.00us         2  160.00us  20.000us  300.00us  cudaMemcpy\n"
        "                    3.97%  13.220us         1  13.220us  13.220us  13.220us  cudaLaunchKernel\n");
}

TEST_CASE("without GPU activities, nvprof's line and then the API calls", "[api_summary][summary]") {
  ApiSummary calls;
  calls.add("cuCtxSynchronize", 1'500, false);
  CHECK(format_summary({}, "", {api_calls_section(calls.rows())}) ==
        "Profiling result:\n"
        "No kernels were profiled.\n"
        "            Type  Time(%)      Time     Calls       Avg       Min       Max  Name\n"
        "      API calls:  100.00%  1.5000us         1  1.5000us  1.5000us  1.5000us  cuCtxSynchronize\n");
  // An empty section prints nothing.
  CHECK(format_summary({}, "", {api_calls_section({})}) == "Profiling result:\nNo kernels were profiled.\n");
}
