// The samples under the shim: per-device files, the collision rule, the variable
// families, unchanged program output, and many threads at once.
#include "catch.hpp"

#include "e2e_support.hpp"

using namespace e2e;

namespace {

RunOptions sample(const char* path, std::vector<std::string> args = {}) {
  RunOptions o;
  o.directory = make_scratch_directory();
  o.argv = {path};
  for (auto& a : args) o.argv.push_back(std::move(a));
  return o;
}

std::vector<std::string> logs_in(const std::string& dir) { return list_directory(dir); }

}  // namespace

TEST_CASE("samples print the same and exit the same with and without the shim", "[e2e][samples]") {
  for (const char* path : {VECTOR_ADD_PATH, MULTI_DEVICE_PATH, MULTI_THREAD_PATH}) {
    INFO(path);
    auto plain = sample(path);
    plain.preload_shim = false;
    const auto without = run(plain);
    auto profiled = sample(path);
    profiled.env["COMPUTE_PROFILE"] = "1";
    const auto with = run(profiled);
    CHECK(without.exit_code == 0);
    CHECK(with.exit_code == without.exit_code);
    CHECK(with.out == without.out);
    CHECK(without.out.ends_with("PASS\n"));
    CHECK(logs_in(plain.directory).empty());
    CHECK(!logs_in(profiled.directory).empty());
  }
}

TEST_CASE("%d gives one file per device, each with its own header", "[e2e][files]") {
  auto o = sample(MULTI_DEVICE_PATH);
  o.env["COMPUTE_PROFILE"] = "1";
  o.env["COMPUTE_PROFILE_LOG"] = "dev%d.log";
  const auto r = run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  REQUIRE(logs_in(o.directory) == std::vector<std::string>{"dev0.log", "dev1.log"});
  for (int device : {0, 1}) {
    const auto log = read_log(o.directory + "/dev" + std::to_string(device) + ".log");
    CHECK(log.header[1].starts_with("# CUDA_DEVICE " + std::to_string(device) + " "));
    CHECK(log.header[2] == "# CUDA_CONTEXT " + std::to_string(device + 1));
    CHECK(log.count("_Z6vecAddPKfS0_Pfi") == 1);
    CHECK(log.count("_Z8blockSumPKfPfi") == 1);
    CHECK(log.count("memcpyHtoD") >= 1);
    CHECK(log.count("memcpyDtoH") >= 1);
  }
}

TEST_CASE("two contexts that would share a file get their own, and stderr says so", "[e2e][files]") {
  auto o = sample(MULTI_DEVICE_PATH);
  o.env["COMPUTE_PROFILE"] = "1";
  const auto r = run(o);
  REQUIRE(r.exit_code == 0);
  REQUIRE(logs_in(o.directory) == std::vector<std::string>{"compute_profile.log", "compute_profile_2.log"});
  CHECK(r.err ==
        "computeprof: context 2 would share log 'compute_profile.log' with context 1; it writes "
        "'compute_profile_2.log'\n");
  CHECK(read_log(o.directory + "/compute_profile_2.log").header[2] == "# CUDA_CONTEXT 2");
}

TEST_CASE("the variable families: aliases, defaults and precedence", "[e2e][files]") {
  struct Case {
    std::map<std::string, std::optional<std::string>> env;
    std::vector<std::string> files;
    bool csv;
  };
  const std::vector<Case> cases = {
      {{{"CUDA_PROFILE", "1"}}, {"cuda_profile_0.log", "cuda_profile_1.log"}, false},
      {{{"CUDA_PROFILE", "1"}, {"CUDA_PROFILE_CSV", "1"}}, {"cuda_profile_0.log", "cuda_profile_1.log"}, true},
      {{{"CUDA_PROFILE", "1"}, {"CUDA_PROFILE_LOG", "c%d.txt"}}, {"c0.txt", "c1.txt"}, false},
      {{{"COMPUTE_PROFILE", "0"}, {"CUDA_PROFILE", "1"}}, {}, false},
      {{{"COMPUTE_PROFILE", "1"}, {"CUDA_PROFILE_LOG", "ignored%d.log"}, {"COMPUTE_PROFILE_LOG", "w%d.log"}},
       {"w0.log", "w1.log"},
       false},
      {{{"OPENCL_PROFILE", "1"}}, {}, false},
  };
  for (const auto& c : cases) {
    auto o = sample(MULTI_DEVICE_PATH);
    o.env = c.env;
    const auto r = run(o);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(logs_in(o.directory) == c.files);
    for (const auto& f : c.files) CHECK(read_log(o.directory + "/" + f).csv == c.csv);
  }
}

TEST_CASE("8 threads x 10000 launches give exactly 80000 kernel records", "[e2e][threads]") {
  auto o = sample(MULTI_THREAD_PATH, {"8", "10000"});
  o.env["COMPUTE_PROFILE"] = "1";
  o.env["COMPUTE_PROFILE_LOG"] = "threads_%d.log";
  o.timeout_seconds = 300;
  const auto r = run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::size_t kernels = 0, copies = 0;
  const auto files = logs_in(o.directory);
  for (const auto& f : files) {
    const auto log = read_log(o.directory + "/" + f);
    kernels += log.count("_Z5emptyv");
    copies += log.count("memcpyHtoDasync") + log.count("memcpyDtoHasync");
    CHECK(log.records.size() == log.count("_Z5emptyv") + log.count("memcpyHtoDasync") + log.count("memcpyDtoHasync"));
  }
  CHECK(kernels == 80000);
  CHECK(copies == 16);
}
