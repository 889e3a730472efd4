// Occupancy of OpenCL kernels on NVIDIA GPUs, on PoCL made to look like NVIDIA's OpenCL
// (nvidia_disguise.cpp: compute capability 9.0, registers as the test says).
#include <string>
#include <vector>

#include "catch.hpp"
#include "opencl_runs.hpp"

using namespace e2e;

namespace {

RunOptions on_nvidia(const std::string& registers) {
  RunOptions o;
  o.preload_after = {NVIDIA_DISGUISE_PATH};
  o.env["COMPUTEPROF_TEST_REGISTERS"] = registers;
  o.env["COMPUTE_PROFILE"] = "1";
  o.env["COMPUTE_PROFILE_CONFIG"] = "profile.cfg";
  return o;
}

}  // namespace

TEST_CASE("OpenCL on an NVIDIA GPU: a kernel's occupancy from its registers and work-group size", "[opencl]") {
  // vec_add: work-groups of 64 (2 warps). 64 registers: 2048 per warp, 32 warps by
  // registers, 16 blocks: 32 of 64 warps. 255: 8192 per warp, 8 warps, 4 blocks: 8 of 64.
  for (const auto& [registers, occupancy] : std::vector<std::pair<std::string, std::string>>{
           {"vec_add=64", "0.500"}, {"vec_add=255", "0.125"}, {"vec_add=16", "1.000"}}) {
    INFO(registers);
    const auto run = run_opencl(OPENCL_VECTOR_ADD_PATH, {}, on_nvidia(registers), kAllOpenCLOptions);
    INFO(run.result.out << run.result.err);
    REQUIRE(run.result.exit_code == 0);
    CHECK(run.result.err.empty());
    const ParsedLog log = log_of(run, "compute_profile.log");
    REQUIRE(log.records.size() == 5);
    for (const Fields& r : log.records) {
      INFO(r.at("method"));
      if (r.at("method") == "vec_add") {
        CHECK(r.at("occupancy") == occupancy);
      } else {
        CHECK(r.count("occupancy") == 0);
      }
    }
  }
}

TEST_CASE("OpenCL on an NVIDIA GPU: the program sees its own build options and log", "[opencl]") {
  for (const auto& args : {std::vector<std::string>{}, std::vector<std::string>{"verbose"}}) {
    const bool verbose = !args.empty();
    INFO((verbose ? "verbose" : "not verbose"));
    RunOptions plain = on_nvidia("");
    plain.preload_shim = false;
    const auto without = run_opencl(OPENCL_BUILD_INFO_CLIENT_PATH, args, plain);
    const auto with = run_opencl(OPENCL_BUILD_INFO_CLIENT_PATH, args, on_nvidia(""));
    CHECK(without.result.exit_code == 0);
    CHECK(with.result.exit_code == 0);
    const std::string expected = std::string("options: ") +
                                 (verbose ? "-cl-mad-enable -cl-nv-verbose" : "-cl-mad-enable") +
                                 "\nptxas lines in the log: " + (verbose ? "yes" : "no") + "\nPASS\n";
    CHECK(without.result.out == expected);
    CHECK(with.result.out == expected);
  }
}
