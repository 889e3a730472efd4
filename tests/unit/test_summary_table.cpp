// nvprof's summary table: rows, order, durations as nvprof printed them.
#include "catch.hpp"

#include "reports/summary_table.hpp"

using namespace computeprof::reports;

TEST_CASE("durations print as nvprof printed them", "[summary]") {
  CHECK(format_summary_duration(0) == "0ns");
  CHECK(format_summary_duration(992) == "992ns");
  CHECK(format_summary_duration(2'656) == "2.6560us");
  CHECK(format_summary_duration(49'113) == "49.113us");
  CHECK(format_summary_duration(183'000) == "183.00us");
  CHECK(format_summary_duration(999'999) == "1.0000ms");
  CHECK(format_summary_duration(1'574'100) == "1.5741ms");
  CHECK(format_summary_duration(97'765'000) == "97.765ms");
  CHECK(format_summary_duration(1'700'040'000) == "1.70004s");
  CHECK(format_summary_duration(8'914'430'000) == "8.91443s");
}

TEST_CASE("a row per kernel and per kind of copy, async and not together, longest total first", "[summary]") {
  GpuSummary s;
  s.add("memcpyHtoD", 1'000);
  s.add("_Z6vecAddPKfS0_Pfi", 3'000);
  s.add("memcpyHtoDasync", 2'000);
  s.add("memset", 500);
  s.add("_Z4spiny", 30'000'000);
  s.add("_Z4spiny", 20'000'000);
  const auto rows = s.rows();
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].name == "spin(unsigned long long)");
  CHECK(rows[0].calls == 2);
  CHECK(rows[0].total_ns == 50'000'000);
  CHECK(rows[0].min_ns == 20'000'000);
  CHECK(rows[0].max_ns == 30'000'000);
  CHECK(rows[1].name == "[CUDA memcpy HtoD]");
  CHECK(rows[1].calls == 2);
  CHECK(rows[1].total_ns == 3'000);
  CHECK(rows[2].name == "vecAdd(float const*, float const*, float*, int)");
  CHECK(rows[3].name == "[CUDA memset]");
}

TEST_CASE("the table has nvprof's columns and widths", "[summary]") {
  GpuSummary s;
  s.add("_Z4spiny", 30'000'000);
  s.add("_Z4spiny", 10'000'000);
  s.add("memcpyDtoH", 10'000'000);
  CHECK(format_summary(s.rows(), "==42== ") ==
        "==42== Profiling result:\n"
        "            Type  Time(%)      Time     Calls       Avg       Min       Max  Name\n"
        " GPU activities:   80.00%  40.000ms         2  20.000ms  10.000ms  30.000ms  spin(unsigned long long)\n"
        "                   20.00%  10.000ms         1  10.000ms  10.000ms  10.000ms  [CUDA memcpy DtoH]\n");
  CHECK(format_summary({}, "") == "Profiling result:\nNo kernels were profiled.\n");
}
