// What the shim records for OpenCL programs: exact records, fields and files.
#include <string>
#include <vector>

#include "catch.hpp"
#include "opencl_runs.hpp"

using namespace e2e;

namespace {

RunOptions compute_profile_options(bool csv) {
  RunOptions o;
  o.env["COMPUTE_PROFILE"] = "1";
  o.env["COMPUTE_PROFILE_CSV"] = csv ? "1" : "0";
  o.env["COMPUTE_PROFILE_CONFIG"] = "profile.cfg";
  return o;
}

std::vector<std::string> methods(const ParsedLog& log) {
  std::vector<std::string> out;
  for (const Fields& r : log.records) out.push_back(r.at("method"));
  return out;
}

std::uint64_t hex(const std::string& s) { return std::stoull(s, nullptr, 16); }

}  // namespace

TEST_CASE("OpenCL vector add: header and exact CSV records", "[opencl]") {
  const auto run = run_opencl(OPENCL_VECTOR_ADD_PATH, {}, compute_profile_options(true), kAllOpenCLOptions);
  REQUIRE(run.result.exit_code == 0);
  const ParsedLog log = log_of(run, "compute_profile.log");
  REQUIRE(log.header.size() == 5);
  CHECK(log.header[0] == "# OPENCL_PROFILE_LOG_VERSION 2.0");
  CHECK(log.header[1].starts_with("# OPENCL_DEVICE 0 "));
  CHECK(log.header[1].size() > std::string("# OPENCL_DEVICE 0 ").size());
  CHECK(log.header[2] == "# OPENCL_CONTEXT 1");
  CHECK(log.header[3] == "# OPENCL_PROFILE_CSV 1");
  CHECK(log.header[4].starts_with("# TIMESTAMPFACTOR "));
  CHECK(log.column_line ==
        "gpustarttimestamp,gpuendtimestamp,timestamp,method,gputime,cputime,ndrangesizeX,ndrangesizeY,"
        "workgroupsizeX,workgroupsizeY,workgroupsizeZ,localblocksize,occupancy,streamid,memtransfersize,"
        "memtransferdir,memtransferhostmemtype");
  REQUIRE(methods(log) ==
          std::vector<std::string>{"memcpyHtoD", "memcpyHtoDasync", "vec_add", "memcpyDtoHasync", "memcpyDtoH"});
  check_times(log, true);

  const auto& r = log.records;
  const std::string transfers[][3] = {{"16384", "0", "0"}, {"16384", "0", "1"}, {"", "", ""},
                                      {"16384", "1", "0"}, {"16384", "1", "0"}};
  for (std::size_t i = 0; i < r.size(); ++i) {
    INFO("record " << i);
    CHECK(r[i].at("memtransfersize") == transfers[i][0]);
    CHECK(r[i].at("memtransferdir") == transfers[i][1]);
    CHECK(r[i].at("memtransferhostmemtype") == transfers[i][2]);
    CHECK(r[i].at("streamid") == "1");
    CHECK(r[i].at("occupancy").empty());
    CHECK(hex(r[i].at("gpustarttimestamp")) <= hex(r[i].at("gpuendtimestamp")));
    // Both timestamps come from the device: their difference is gputime.
    const std::uint64_t span = hex(r[i].at("gpuendtimestamp")) - hex(r[i].at("gpustarttimestamp"));
    CHECK(span / 1000 == micros_to_ns(r[i].at("gputime")) / 1000);
    if (i > 0) CHECK(micros_to_ns(r[i].at("timestamp")) > micros_to_ns(r[i - 1].at("timestamp")));
  }
  CHECK(r[2].at("ndrangesizeX") == "64");
  CHECK(r[2].at("ndrangesizeY") == "1");
  CHECK(r[2].at("workgroupsizeX") == "64");
  CHECK(r[2].at("workgroupsizeY") == "1");
  CHECK(r[2].at("workgroupsizeZ") == "1");
  CHECK(r[2].at("localblocksize") == "64");
  CHECK(r[0].at("ndrangesizeX").empty());
}

TEST_CASE("OpenCL two queues in one context: one file with both queues", "[opencl]") {
  const auto run = run_opencl(OPENCL_TWO_QUEUES_PATH, {}, compute_profile_options(false), kAllOpenCLOptions);
  REQUIRE(run.result.exit_code == 0);
  CHECK(list_directory(run.directory) == std::vector<std::string>{"compute_profile.log", "profile.cfg"});
  const ParsedLog log = log_of(run, "compute_profile.log");
  REQUIRE(log.records.size() == 8);
  CHECK(log.count("memset") == 2);
  CHECK(log.count("scale") == 2);
  CHECK(log.count("memcpyDtoDasync") == 2);
  CHECK(log.count("memcpyDtoH") == 2);
  check_times(log, true);
  int per_queue[3] = {0, 0, 0};
  for (const Fields& r : log.records) ++per_queue[std::stoi(r.at("streamid"))];
  CHECK(per_queue[1] == 4);
  CHECK(per_queue[2] == 4);
  for (const Fields& k : log.with_method("scale")) {
    // The runtime chose the work-group size: not known to the shim.
    CHECK(k.at("ndrangesize") == "0, 0");
    CHECK(k.at("workgroupsize") == "0, 0, 0");
    CHECK(k.at("localblocksize") == "0");
  }
  CHECK(log.with_method("memset")[0].at("memtransfersize") == "4096");
  CHECK(log.with_method("memcpyDtoDasync")[0].at("memtransferdir") == "2");
}

TEST_CASE("OpenCL two contexts: one file each numbered in order", "[opencl]") {
  RunOptions o;
  o.env["OPENCL_PROFILE"] = "1";
  const auto run = run_opencl(OPENCL_TWO_QUEUES_PATH, {"contexts"}, o);
  REQUIRE(run.result.exit_code == 0);
  CHECK(list_directory(run.directory) ==
        std::vector<std::string>{"opencl_profile_0.log", "opencl_profile_0_2.log"});
  const ParsedLog first = log_of(run, "opencl_profile_0.log");
  const ParsedLog second = log_of(run, "opencl_profile_0_2.log");
  CHECK(first.header[2] == "# OPENCL_CONTEXT 1");
  CHECK(second.header[2] == "# OPENCL_CONTEXT 2");
  CHECK(methods(first) == std::vector<std::string>{"memset", "scale", "memcpyDtoDasync", "memcpyDtoH"});
  CHECK(methods(second) == std::vector<std::string>{"memset", "scale", "memcpyDtoDasync", "memcpyDtoH"});
  CHECK(run.result.err.find("context 2 would share log 'opencl_profile_0.log' with context 1") != std::string::npos);
}

TEST_CASE("OpenCL program events: three records and callbacks once", "[opencl]") {
  const auto run = run_opencl(OPENCL_OWN_EVENTS_PATH, {}, compute_profile_options(false), kAllOpenCLOptions);
  REQUIRE(run.result.exit_code == 0);
  CHECK(run.result.out.find("callbacks: once each\n") != std::string::npos);
  const ParsedLog log = log_of(run, "compute_profile.log");
  REQUIRE(methods(log) == std::vector<std::string>{"memcpyHtoDasync", "double_all", "memcpyDtoHasync"});
  // Held back by the program's user event: recorded at completion, not waited for.
  check_times(log, false);
  const Fields& task = log.records[1];
  CHECK(task.at("ndrangesize") == "1, 1");
  CHECK(task.at("workgroupsize") == "1, 1, 1");
  CHECK(task.at("localblocksize") == "1");
  CHECK(log.records[0].at("memtransfersize") == "1024");
}

TEST_CASE("OpenCL conckerneltrace: every record written at completion", "[opencl]") {
  for (const char* program : {OPENCL_VECTOR_ADD_PATH, OPENCL_TWO_QUEUES_PATH}) {
    INFO(program);
    const auto run = run_opencl(program, {}, compute_profile_options(true),
                                std::string(kAllOpenCLOptions) + "conckerneltrace\n");
    REQUIRE(run.result.exit_code == 0);
    const ParsedLog log = log_of(run, "compute_profile.log");
    CHECK(log.records.size() == (program == std::string(OPENCL_VECTOR_ADD_PATH) ? 5u : 8u));
    check_times(log, false);
  }
}

TEST_CASE("OpenCL queue created without profiling is timed and keeps its properties", "[opencl]") {
  const auto run = run_opencl(OPENCL_VECTOR_ADD_PATH, {}, compute_profile_options(false));
  REQUIRE(run.result.exit_code == 0);
  CHECK(run.result.out.find("queue properties: 0\nprofiling info: not available\n") != std::string::npos);
  const ParsedLog log = log_of(run, "compute_profile.log");
  CHECK(log.column_line == "method,gputime,cputime,occupancy");
  CHECK(log.records.size() == 5);
  check_times(log, true);
  for (const Fields& r : log.records) CHECK(r.count("occupancy") == 0);
}

TEST_CASE("OpenCL through dlopen and dlsym on the loader: the same records as a linked program", "[opencl]") {
  RunOptions plain;
  plain.preload_shim = false;
  const auto without = run_opencl(OPENCL_DLSYM_CLIENT_PATH, {}, plain);
  REQUIRE(without.result.exit_code == 0);
  const auto run = run_opencl(OPENCL_DLSYM_CLIENT_PATH, {}, compute_profile_options(false), kAllOpenCLOptions);
  INFO(run.result.out << run.result.err);
  REQUIRE(run.result.exit_code == 0);
  CHECK(run.result.out == without.result.out);
  CHECK(run.result.err.empty());
  const ParsedLog log = log_of(run, "compute_profile.log");
  REQUIRE(methods(log) == std::vector<std::string>{"memcpyHtoD", "vec_add", "memcpyDtoH"});
  check_times(log, true);
  CHECK(log.records[0].at("memtransfersize") == "16384");
  CHECK(log.records[1].at("ndrangesize") == "64, 1");
  CHECK(log.records[1].at("workgroupsize") == "64, 1, 1");
  CHECK(log.records[2].at("memtransfersize") == "16384");
}
