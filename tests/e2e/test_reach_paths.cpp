// Every way a program reaches the driver gives the same log: linked symbols, dlsym on
// a libcuda handle, cuGetProcAddress with and without the per-thread flag, and the
// CUDA runtime's own sequence; in key-value and CSV form.
#include "catch.hpp"

#include "e2e_support.hpp"
#include "gputime_check.hpp"

using namespace e2e;

namespace {


void check_copy(const Fields& r, const char* method, const char* dir, const char* host_type) {
  CHECK(r.at("method") == method);
  CHECK(r.at("memtransfersize") == "40960");
  CHECK(r.at("memtransferdir") == dir);
  if (host_type) {
    CHECK(r.at("memtransferhostmemtype") == host_type);
  } else {
    CHECK((!r.count("memtransferhostmemtype") || r.at("memtransferhostmemtype").empty()));
  }
}

// Key-value logs leave out what does not apply; CSV logs leave it empty.
std::string field(const Fields& r, const std::string& key) { return r.count(key) ? r.at(key) : std::string(); }

}  // namespace

TEST_CASE("every reach path logs exactly the operations the program made", "[e2e][reach]") {
  const auto reach = GENERATE(as<std::string>{}, "linked", "dlsym", "procaddress", "procaddress-ptds", "runtime");
  const bool csv = GENERATE(false, true);
  INFO("reach " << reach << (csv ? " CSV" : " key-value"));

  RunOptions options;
  options.directory = make_scratch_directory();
  options.env["COMPUTE_PROFILE"] = "1";
  options.env["COMPUTE_PROFILE_CSV"] = csv ? "1" : "0";
  options.env["COMPUTE_PROFILE_CONFIG"] = write_config(options.directory, kAllOptions);
  const RunResult result = run_client(reach, "basic", options);
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(result.err.empty());
  CHECK(result.out.ends_with("PASS\n"));

  const ParsedLog log = read_log(options.directory + "/compute_profile.log");
  REQUIRE(log.header.size() == (csv ? 5u : 4u));
  CHECK(log.header[0] == "# CUDA_PROFILE_LOG_VERSION 2.0");
  CHECK(log.header[1].starts_with("# CUDA_DEVICE 0 "));
  CHECK(log.header[2] == "# CUDA_CONTEXT 1");
  if (csv) CHECK(log.header[3] == "# CUDA_PROFILE_CSV 1");
  CHECK(log.header.back().starts_with("# TIMESTAMPFACTOR "));
  CHECK(log.column_line ==
        "gpustarttimestamp,gpuendtimestamp,timestamp,method,gputime,cputime,gridsizeX,gridsizeY,gridsizeZ,"
        "threadblocksizeX,threadblocksizeY,threadblocksizeZ,dynsmemperblock,stasmemperblock,regperthread,"
        "occupancy,streamid,memtransfersize,memtransferdir,memtransferhostmemtype");

  // In completion order.
  REQUIRE(log.records.size() == 8);
  const auto& r = log.records;
  check_copy(r[0], "memcpyHtoD", "0", "0");
  check_copy(r[1], "memcpyHtoD", "0", "0");
  CHECK(r[2].at("method") == "_Z6vecAddPKfS0_Pfi");
  CHECK(r[3].at("method") == "_Z4spiny");
  check_copy(r[4], "memcpyDtoHasync", "1", "1");
  check_copy(r[5], "memcpyDtoD", "2", nullptr);
  CHECK(r[6].at("method") == "memset");
  CHECK(r[6].at("memtransfersize") == "40960");
  CHECK(r[7].at("method") == "_Z4spiny");
  CHECK(log.kernels() == 3);

  if (csv) {
    CHECK(r[2].at("gridsizeX") == "40");
    CHECK(r[2].at("gridsizeY") == "1");
    CHECK(r[2].at("gridsizeZ") == "1");
    CHECK(r[2].at("threadblocksizeX") == "256");
    CHECK(r[3].at("threadblocksizeX") == "32");
  } else {
    CHECK(r[2].at("gridsize3d") == "40, 1, 1");
    CHECK(r[2].at("threadblocksize") == "256, 1, 1");
    CHECK(r[3].at("gridsize3d") == "1, 1, 1");
    CHECK(r[3].at("threadblocksize") == "32, 1, 1");
  }
  CHECK(r[2].at("regperthread") == "16");
  CHECK(r[2].at("stasmemperblock") == "0");
  CHECK(r[2].at("dynsmemperblock") == "0");
  CHECK(r[3].at("regperthread") == "8");
  CHECK(field(r[0], "occupancy").empty());
  CHECK(!r[2].at("occupancy").empty());

  check_gputime_near(r[3], 30'000'000);
  check_gputime_near(r[7], 20'000'000);
  for (const auto& rec : r) {
    INFO(rec.at("method"));
    CHECK(micros_to_ns(rec.at("cputime")) >= micros_to_ns(rec.at("gputime")));
    const auto start = std::stoull(rec.at("gpustarttimestamp"), nullptr, 16);
    const auto end = std::stoull(rec.at("gpuendtimestamp"), nullptr, 16);
    CHECK(end - start == micros_to_ns(rec.at("gputime")));
    CHECK(rec.at("gpustarttimestamp").size() == 16);
  }

  // The spin on the created stream, the _ptsz launch on the per-thread stream; with
  // the per-thread flag everything on stream 0 runs on the per-thread stream.
  const std::string created = printed_value(result.out, "stream created");
  const std::string per_thread = printed_value(result.out, "stream per-thread");
  REQUIRE(!created.empty());
  REQUIRE(!per_thread.empty());
  CHECK(r[3].at("streamid") == created);
  CHECK(r[4].at("streamid") == created);
  CHECK(r[7].at("streamid") == per_thread);
  if (reach == "procaddress-ptds") {
    CHECK(r[2].at("streamid") == per_thread);
  } else {
    CHECK(r[2].at("streamid") != per_thread);
  }
}

TEST_CASE("the runtime's lookups get the shim's wrappers, and only for wrapped variants", "[e2e][reach]") {
  RunOptions options;
  options.env["COMPUTE_PROFILE"] = "1";
  const RunResult with = run_client("runtime", "basic", options, {"--show-origins"});
  INFO(with.out << with.err);
  REQUIRE(with.exit_code == 0);
  CHECK(printed_value(with.out, "origin cuGetProcAddress@11030") == "shim");
  CHECK(printed_value(with.out, "origin cuGetProcAddress@12000") == "shim");
  CHECK(printed_value(with.out, "origin cuMemcpyHtoD@2000") == "driver");  // 32-bit legacy ABI
  for (const char* wrapped : {"cuLaunchKernel", "cuLaunchKernel_ptsz", "cuMemcpyHtoD_v2", "cuMemcpyDtoHAsync_v2",
                              "cuMemcpy", "cuMemsetD8_v2", "cuGraphLaunch", "cuModuleGetFunction",
                              "cuLibraryGetKernel", "cuDevicePrimaryCtxRelease_v2", "cuProfilerStart",
                              "cuMemAlloc_v2", "cuCtxSynchronize", "cuStreamSynchronize"}) {
    INFO(wrapped);
    CHECK(printed_value(with.out, std::string("origin ") + wrapped) == "shim");
  }
  for (const char* passed : {"cuInit", "cuStreamCreate", "cuStreamGetId"}) {
    INFO(passed);
    CHECK(printed_value(with.out, std::string("origin ") + passed) == "driver");
  }

  options.preload_shim = false;
  const RunResult without = run_client("runtime", "basic", options, {"--show-origins"});
  REQUIRE(without.exit_code == 0);
  CHECK(printed_value(without.out, "origin cuGetProcAddress@12000") == "driver");
  CHECK(printed_value(without.out, "origin cuLaunchKernel") == "driver");
}

TEST_CASE("dlsym on a libcuda handle gives wrappers, other lookups are untouched", "[e2e][reach]") {
  RunOptions options;
  options.env["COMPUTE_PROFILE"] = "1";
  const RunResult r = run_client("dlsym", "basic", options, {"--show-origins"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(printed_value(r.out, "origin cuLaunchKernel_ptsz") == "shim");
  CHECK(printed_value(r.out, "origin cuMemcpyHtoD_v2") == "shim");
  CHECK(printed_value(r.out, "origin cuMemAlloc_v2") == "shim");
  CHECK(printed_value(r.out, "origin cuStreamCreate") == "driver");
}
