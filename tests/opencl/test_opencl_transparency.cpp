// The program cannot tell the shim is there: same output, same exit status, same
// errors.
#include <string>
#include <vector>

#include "catch.hpp"
#include "opencl_runs.hpp"

using namespace e2e;

TEST_CASE("OpenCL programs print and exit the same with and without the shim", "[opencl]") {
  const std::vector<std::vector<std::string>> programs = {{OPENCL_VECTOR_ADD_PATH},
                                                          {OPENCL_TWO_QUEUES_PATH},
                                                          {OPENCL_TWO_QUEUES_PATH, "contexts"},
                                                          {OPENCL_OWN_EVENTS_PATH},
                                                          {OPENCL_ERROR_CLIENT_PATH}};
  for (const auto& program : programs) {
    const std::vector<std::string> args(program.begin() + 1, program.end());
    INFO(program[0] << " " << (args.empty() ? "" : args[0]));
    RunOptions plain;
    plain.preload_shim = false;
    const auto without = run_opencl(program[0], args, plain);
    RunOptions profiled;
    profiled.env["COMPUTE_PROFILE"] = "1";
    const auto with = run_opencl(program[0], args, profiled);
    CHECK(without.result.exit_code == 0);
    CHECK(with.result.exit_code == without.result.exit_code);
    CHECK(with.result.out == without.result.out);
    CHECK(without.result.out.ends_with("PASS\n"));
  }
}

TEST_CASE("OpenCL errors pass through the shim unchanged and are not recorded", "[opencl]") {
  RunOptions o;
  o.env["OPENCL_PROFILE"] = "1";
  const auto run = run_opencl(OPENCL_ERROR_CLIENT_PATH, {}, o);
  REQUIRE(run.result.exit_code == 0);
  CHECK(run.result.out ==
        "clSetKernelArg index 7: -49\n"
        "clSetKernelArg int of 1 byte: -51\n"
        "clEnqueueNDRangeKernel without arguments: -52 event untouched\n"
        "clEnqueueReadBuffer past the end: -30\n"
        "clEnqueueReadBuffer on no queue: -36\n"
        "clEnqueueFillBuffer: 0\n"
        "PASS\n");
  const ParsedLog log = log_of(run, "opencl_profile_0.log");
  REQUIRE(log.records.size() == 1);
  CHECK(log.records[0].at("method") == "memset");
}
