// Facts the interposition rests on (docs/design.md, "Interposition"): no DT_NEEDED on libcuda, dlsym keeps
// its caller, nothing happens to a program that never uses CUDA.
#include "catch.hpp"

#include "e2e_support.hpp"

using namespace e2e;

TEST_CASE("the shim does not load the driver: a program without CUDA keeps its address space", "[e2e][facts]") {
  RunOptions o;
  o.argv = {"/bin/cat", "/proc/self/maps"};
  o.env["COMPUTE_PROFILE"] = "1";
  const auto r = run(o);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("libcomputeprof.so") != std::string::npos);
  CHECK(r.out.find("libcuda") == std::string::npos);
  CHECK(r.err.empty());
  CHECK(list_directory(o.directory).empty());
}

TEST_CASE("the shim has no DT_NEEDED on libcuda", "[e2e][facts]") {
  RunOptions o;
  o.argv = {"/usr/bin/readelf", "-d", SHIM_PATH};
  o.preload_shim = false;
  const auto r = run(o);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("(NEEDED)") != std::string::npos);
  CHECK(r.out.find("libcuda") == std::string::npos);
}

TEST_CASE("dlsym(RTLD_NEXT) resolves from the real caller under the shim", "[e2e][facts]") {
  RunOptions o;
  o.argv = {RTLD_NEXT_CLIENT_PATH};
  o.env["COMPUTE_PROFILE"] = "1";
  const auto with = run(o);
  o.preload_shim = false;
  const auto without = run(o);
  REQUIRE(without.exit_code == 0);
  CHECK(without.out == "main next A\ndefault A\nB next C\n");
  CHECK(with.exit_code == 0);
  CHECK(with.out == without.out);
}

TEST_CASE("CUPTI's own driver lookups get the driver and the program's get the wrappers", "[e2e][facts]") {
  RunOptions o;
  o.argv = {LOOKALIKE_CLIENT_PATH};
  o.env["COMPUTE_PROFILE"] = "1";
  const auto r = run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "program: " SHIM_PATH "\nprofiler library: " SIMDRIVER_DIR "/libcuda.so.1\n");
}

TEST_CASE("installed but not enabled, every reach path runs the program as without the shim", "[e2e][facts]") {
  const auto reach = GENERATE(as<std::string>{}, "linked", "dlsym", "procaddress", "procaddress-ptds", "runtime");
  const auto scenario = GENERATE(as<std::string>{}, "basic", "graph-nodes", "library");
  INFO(reach << " " << scenario);
  RunOptions plain;
  plain.preload_shim = false;
  const auto expected = run_client(reach, scenario, plain);
  REQUIRE(expected.exit_code == 0);
  RunOptions dormant;  // preloaded, no variable set: the trampolines jump to the driver
  dormant.directory = make_scratch_directory();
  const auto r = run_client(reach, scenario, dormant);
  CHECK(r.exit_code == 0);
  CHECK(r.out == expected.out);
  CHECK(r.err.empty());
  CHECK(list_directory(dormant.directory).empty());
}

TEST_CASE("each trampoline jumps to its own entry point of the driver", "[e2e][facts]") {
  RunOptions o;
  o.argv = {TRAMPOLINE_PROBE_PATH};
  o.simulated_driver = false;
  o.env["LD_LIBRARY_PATH"] = FAKE_DRIVER_DIR;
  const auto r = run(o);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "131 entry points checked, 0 reached another\n");
}
