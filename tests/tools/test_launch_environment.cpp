#include "catch.hpp"

#include <string>
#include <vector>

#include "tools/launch_environment.hpp"

using computeprof::tools::build_launch_environment;
using computeprof::tools::LaunchSettings;
using Environment = std::vector<std::string>;

namespace {

LaunchSettings minimal_settings() {
  LaunchSettings settings;
  settings.shim_path = "/opt/cp/lib/libcomputeprof.so";
  settings.log_index_path = "/tmp/computeprof-logs-abc123";
  return settings;
}

// NVTX's loader finds the shim (docs/format.md, "NVTX ranges").
const std::string kNvtx = "NVTX_INJECTION64_PATH=/opt/cp/lib/libcomputeprof.so";

}  // namespace

TEST_CASE("the shim becomes LD_PRELOAD when there was none", "[environment]") {
  const Environment parent{"HOME=/root", "PATH=/usr/bin"};
  CHECK(build_launch_environment(parent, minimal_settings()) ==
        Environment{"HOME=/root", "PATH=/usr/bin", "LD_PRELOAD=/opt/cp/lib/libcomputeprof.so", "COMPUTE_PROFILE=1",
                    "COMPUTEPROF_LOG_INDEX=/tmp/computeprof-logs-abc123", kNvtx});
}

TEST_CASE("the shim goes before an inherited LD_PRELOAD, after a sanitizer runtime in it", "[environment]") {
  const Environment parent{"LD_PRELOAD=/opt/mpi/hook.so:/usr/lib/libasan.so.8 other.so", "PATH=/usr/bin"};
  CHECK(build_launch_environment(parent, minimal_settings()) ==
        Environment{"PATH=/usr/bin",
                    "LD_PRELOAD=/usr/lib/libasan.so.8:/opt/cp/lib/libcomputeprof.so:/opt/mpi/hook.so:other.so",
                    "COMPUTE_PROFILE=1", "COMPUTEPROF_LOG_INDEX=/tmp/computeprof-logs-abc123", kNvtx});
  const Environment tsan{"LD_PRELOAD=libtsan.so.2:libclang_rt.ubsan_standalone-x86_64.so"};
  CHECK(build_launch_environment(tsan, minimal_settings()).front() ==
        "LD_PRELOAD=libtsan.so.2:libclang_rt.ubsan_standalone-x86_64.so:/opt/cp/lib/libcomputeprof.so");
  const Environment lookalike{"LD_PRELOAD=/opt/libasanitizer_fake.so"};
  CHECK(build_launch_environment(lookalike, minimal_settings()).front() ==
        "LD_PRELOAD=/opt/cp/lib/libcomputeprof.so:/opt/libasanitizer_fake.so");
}

TEST_CASE("an empty inherited LD_PRELOAD adds no separator", "[environment]") {
  const Environment parent{"LD_PRELOAD="};
  CHECK(build_launch_environment(parent, minimal_settings()) ==
        Environment{"LD_PRELOAD=/opt/cp/lib/libcomputeprof.so", "COMPUTE_PROFILE=1",
                    "COMPUTEPROF_LOG_INDEX=/tmp/computeprof-logs-abc123", kNvtx});
}

TEST_CASE("every option becomes its variable and replaces an inherited one", "[environment]") {
  const Environment parent{"COMPUTE_PROFILE=0", "COMPUTE_PROFILE_LOG=old.log", "USER=me", "COMPUTE_PROFILE_CSV=0",
                           "COMPUTE_PROFILE_CONFIG=old.cfg", "COMPUTEPROF_LOG_INDEX=/old/index"};
  LaunchSettings settings = minimal_settings();
  settings.csv = true;
  settings.log_path = "run_%d.log";
  settings.config_path = "/tmp/computeprof-config-xyz";
  CHECK(build_launch_environment(parent, settings) ==
        Environment{"USER=me", "LD_PRELOAD=/opt/cp/lib/libcomputeprof.so", "COMPUTE_PROFILE=1", "COMPUTE_PROFILE_CSV=1",
                    "COMPUTE_PROFILE_LOG=run_%d.log", "COMPUTE_PROFILE_CONFIG=/tmp/computeprof-config-xyz",
                    "COMPUTEPROF_LOG_INDEX=/tmp/computeprof-logs-abc123", kNvtx});
}

TEST_CASE("variables no option names keep their inherited values", "[environment]") {
  const Environment parent{"COMPUTE_PROFILE_CSV=1", "COMPUTE_PROFILE_LOG=mine.log", "COMPUTE_PROFILE_CONFIG=mine.cfg",
                           "CUDA_PROFILE=1"};
  CHECK(build_launch_environment(parent, minimal_settings()) ==
        Environment{"COMPUTE_PROFILE_CSV=1", "COMPUTE_PROFILE_LOG=mine.log", "COMPUTE_PROFILE_CONFIG=mine.cfg",
                    "CUDA_PROFILE=1", "LD_PRELOAD=/opt/cp/lib/libcomputeprof.so", "COMPUTE_PROFILE=1",
                    "COMPUTEPROF_LOG_INDEX=/tmp/computeprof-logs-abc123", kNvtx});
}

TEST_CASE("names are matched whole", "[environment]") {
  const Environment parent{"LD_PRELOAD_PATH=/x", "COMPUTE_PROFILE_X=1", "NOEQUALS"};
  CHECK(build_launch_environment(parent, minimal_settings()) ==
        Environment{"LD_PRELOAD_PATH=/x", "COMPUTE_PROFILE_X=1", "NOEQUALS", "LD_PRELOAD=/opt/cp/lib/libcomputeprof.so",
                    "COMPUTE_PROFILE=1", "COMPUTEPROF_LOG_INDEX=/tmp/computeprof-logs-abc123", kNvtx});
}

TEST_CASE("an inherited NVTX_INJECTION64_PATH is kept: another tool holds NVTX", "[environment]") {
  const Environment parent{"NVTX_INJECTION64_PATH=/opt/other/libtool.so"};
  CHECK(build_launch_environment(parent, minimal_settings()) ==
        Environment{"NVTX_INJECTION64_PATH=/opt/other/libtool.so", "LD_PRELOAD=/opt/cp/lib/libcomputeprof.so",
                    "COMPUTE_PROFILE=1", "COMPUTEPROF_LOG_INDEX=/tmp/computeprof-logs-abc123"});
}
