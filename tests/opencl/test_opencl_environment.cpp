// The three variable families for OpenCL programs (docs/format.md, "Environment").
#include <string>
#include <vector>

#include "catch.hpp"
#include "opencl_runs.hpp"

using namespace e2e;

TEST_CASE("OPENCL_PROFILE alone writes opencl_profile_0.log", "[opencl]") {
  RunOptions o;
  o.env["OPENCL_PROFILE"] = "1";
  const auto run = run_opencl(OPENCL_VECTOR_ADD_PATH, {}, o);
  REQUIRE(run.result.exit_code == 0);
  REQUIRE(list_directory(run.directory) == std::vector<std::string>{"opencl_profile_0.log"});
  const ParsedLog log = log_of(run, "opencl_profile_0.log");
  CHECK(log.header.size() == 3);
  CHECK(log.records.size() == 5);
  CHECK(log.kernels() == 1);
}

TEST_CASE("COMPUTE_PROFILE writes compute_profile.log for OpenCL", "[opencl]") {
  RunOptions o;
  o.env["COMPUTE_PROFILE"] = "1";
  o.env["OPENCL_PROFILE"] = "0";
  const auto run = run_opencl(OPENCL_VECTOR_ADD_PATH, {}, o);
  REQUIRE(run.result.exit_code == 0);
  REQUIRE(list_directory(run.directory) == std::vector<std::string>{"compute_profile.log"});
  CHECK(log_of(run, "compute_profile.log").records.size() == 5);
}

TEST_CASE("CUDA_PROFILE alone does not profile OpenCL", "[opencl]") {
  RunOptions o;
  o.env["CUDA_PROFILE"] = "1";
  const auto run = run_opencl(OPENCL_VECTOR_ADD_PATH, {}, o);
  REQUIRE(run.result.exit_code == 0);
  CHECK(list_directory(run.directory).empty());
  CHECK(run.result.out.find("queue properties: 0\n") != std::string::npos);
}

TEST_CASE("COMPUTE_PROFILE=0 wins over OPENCL_PROFILE=1", "[opencl]") {
  RunOptions o;
  o.env["COMPUTE_PROFILE"] = "0";
  o.env["OPENCL_PROFILE"] = "1";
  const auto run = run_opencl(OPENCL_VECTOR_ADD_PATH, {}, o);
  REQUIRE(run.result.exit_code == 0);
  CHECK(list_directory(run.directory).empty());
}
