// export nvprof: the .nvvp of a driver-API program and of one driven by the CUDA runtime,
// in both timing modes, read as the public tools for nvprof's files read it
// (check_nvvp.py against the schema fixture nvprof_schema.txt); NVTX ranges as MARKER
// rows (nvtx_client); readable after a kill.
#include <sys/wait.h>

#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "catch.hpp"

#include "database_query.hpp"
#include "e2e_support.hpp"

using namespace e2e;

namespace {

std::string check_nvvp(const std::string& database) {
  const CommandOutput r = command_output(std::string(PYTHON3_PATH) + " " + CHECK_NVVP_PATH + " " + database + " " +
                                          NVPROF_SCHEMA_PATH);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  return r.out;
}

// What both reaches share: the schema, the device, the GPU rows (driver_client's "basic").
const std::string kSchema =
    "schema: 49 tables, 36 indexes, as nvprof's\n"
    "version: 11\n"
    "nulls: 0\n"
    "strings: _Z4spiny, _Z6vecAddPKfS0_Pfi, computeprof simulated GPU\n";
const std::string kDevice =
    "device 0: computeprof simulated GPU, cc 9.0, 132 SMs, 85899345920 bytes, 3352320000 KB/s, "
    "uuid 000102030405060708090a0b0c0d0e0f\n"
    "context 1: device 0, api 1\n";
const std::string kGpuRows =
    "kernel _Z4spiny grid 1,1,1 block 32,1,1 launch 0 x2\n"
    "kernel _Z6vecAddPKfS0_Pfi grid 40,1,1 block 256,1,1 launch 0 x1\n"
    "memcpy kind 1 src 1 dst 3 flags 0 bytes 40960 x2\n"
    "memcpy kind 2 src 3 dst 2 flags 1 bytes 40960 x1\n"
    "memcpy kind 8 src 3 dst 3 flags 0 bytes 40960 x1\n"
    "memset bytes 40960 flags 0 memoryKind 3\n"
    "joined: 8 GPU rows to their calls, each after its call\n"
    "marker ranges: 0\n";

}  // namespace

TEST_CASE("export nvprof: a driver-API program's calls are DRIVER rows, its work nvprof's rows", "[e2e][nvprof]") {
  const bool concurrent = GENERATE(false, true);
  const auto reach = GENERATE(as<std::string>{}, "linked", "dlsym");
  INFO(reach << (concurrent ? ", conckerneltrace" : ", serialized"));
  auto o = profiling(std::string("export nvprof\n") + (concurrent ? "conckerneltrace\n" : ""));
  const auto r = run_client(reach, "basic", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == "computeprof: writing compute_profile.nvvp from 'compute_profile.cprof'\n");
  CHECK(list_directory(o.directory).size() == 3);  // profile.cfg, the log, the database
  CHECK(check_nvvp(o.directory + "/compute_profile.nvvp") ==
        kSchema +
            "rows: CONCURRENT_KERNEL 3, CONTEXT 1, DEVICE 1, DRIVER 22, MEMCPY 4, MEMSET 1, SYNCHRONIZATION 3\n" +
            kDevice +
            // cuCtxSynchronize, cuModuleLoadData, cuMemFreeHost, cuStreamSynchronize, cuMemAlloc_v2,
            // cuMemFree_v2 (apitrace), cuMemsetD8_v2, cuMemcpyHtoD_v2, cuMemcpyDtoHAsync_v2,
            // cuMemAllocHost_v2 (apitrace), cuMemcpy, cuLaunchKernel, cuLaunchKernel_ptsz
            "driver cbids: 17 x1, 19 x1, 38 x1, 126 x2, 243 x4, 245 x4, 249 x1, 276 x2, 279 x1, 294 x1, 305 x1, 307 x2, "
            "442 x1\n" +
            kGpuRows);
  // The process and thread ids of the calls, 32 bits.
  CHECK(query(o.directory + "/compute_profile.nvvp",
              "SELECT count(DISTINCT processId), count(DISTINCT threadId), max(threadId) < 4294967296, "
              "min(processId) > 0 FROM CUPTI_ACTIVITY_KIND_DRIVER") == std::vector<std::string>{"1|1|1|1"});
}

TEST_CASE("export nvprof: a program driven by the CUDA runtime has RUNTIME rows with the runtime's ids",
          "[e2e][nvprof]") {
  const bool concurrent = GENERATE(false, true);
  INFO((concurrent ? "conckerneltrace" : "serialized"));
  auto o = profiling(std::string("export nvprof,sqlite\n") + (concurrent ? "conckerneltrace\n" : ""));
  const auto r = run_client("runtime", "basic", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == "computeprof: writing compute_profile.sqlite, compute_profile.nvvp from 'compute_profile.cprof'\n");
  const std::string database = o.directory + "/compute_profile.nvvp";
  CHECK(check_nvvp(database) ==
        kSchema +
            "rows: CONCURRENT_KERNEL 3, CONTEXT 1, DEVICE 1, DRIVER 1, MEMCPY 4, MEMSET 1, RUNTIME 21, "
            "SYNCHRONIZATION 3\n" +
            kDevice +
            // cudaMalloc, cudaFree, cudaMallocHost, cudaFreeHost (apitrace), cudaMemcpy,
            // cudaMemcpyAsync, cudaMemset, cudaStreamSynchronize and cudaDeviceSynchronize
            // (apitrace), cudaLaunchKernel, cudaLaunchKernel_ptsz
            "runtime cbids: 20 x4, 22 x4, 25 x1, 26 x1, 31 x3, 41 x1, 49 x1, 131 x2, 165 x1, 211 x2, 214 x1\n"
            // The program's own module load, which no runtime function makes: a DRIVER row.
            "driver cbids: 19 x1\n" +
            kGpuRows);
  // Kernels joined to their calls, as the tools join them; the copies carry the runtime's id too.
  CHECK(query(database,
              "SELECT s.value, r.cbid, count(*) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL k JOIN "
              "CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId JOIN StringTable s ON s._id_ = k.name "
              "WHERE k.start >= r.start GROUP BY 1, 2 ORDER BY 1, 2") ==
        std::vector<std::string>{"_Z4spiny|211|1", "_Z4spiny|214|1", "_Z6vecAddPKfS0_Pfi|211|1"});
  CHECK(query(database, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE runtimeCorrelationId = correlationId") ==
        std::vector<std::string>{"4"});
  // KERNEL exists and stays empty: kernels are CONCURRENT_KERNEL's in both timing modes.
  CHECK(query(database, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL") == std::vector<std::string>{"0"});
  // The same calls as the other database, the synchronizations, allocations and frees
  // among them.
  CHECK(query(o.directory + "/compute_profile.sqlite", "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME") ==
        std::vector<std::string>{"22"});
}

TEST_CASE("export nvprof: the driver sample's database, named after the log template", "[e2e][nvprof]") {
  auto o = profiling("export nvprof\n");
  o.argv = {VECTOR_ADD_PATH};
  o.env["COMPUTE_PROFILE_LOG"] = "vector_%p.log";
  const auto r = run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::string nvvp;
  for (const auto& f : list_directory(o.directory)) {
    if (f.ends_with(".nvvp")) nvvp = f;
  }
  REQUIRE(nvvp.starts_with("vector_"));
  const std::string database = o.directory + "/" + nvvp;
  CHECK(check_nvvp(database).find("joined: ") != std::string::npos);
  CHECK(query(database, "SELECT s.value, count(*) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL k JOIN StringTable s ON "
                        "s._id_ = k.name GROUP BY 1 ORDER BY 1") == std::vector<std::string>{"_Z4spiny|1", "_Z6vecAddPKfS0_Pfi|1"});
  CHECK(query(database, "SELECT copyKind, count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY 1 ORDER BY 1") ==
        std::vector<std::string>{"1|2", "2|1"});
}

TEST_CASE("export nvprof: a process killed after a flush point leaves a run file that converts to a database",
          "[e2e][nvprof]") {
  auto o = profiling("export nvprof\n");
  const auto r = run_client("dlsym", "stop-then-kill", o);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 128 + SIGKILL);
  RunOptions e;
  e.directory = o.directory;
  e.preload_shim = false;
  e.simulated_driver = false;
  e.argv = {COMPUTEPROF_CLI_PATH, "export", "compute_profile.cprof", "--to", "nvprof"};
  const RunResult converted = run(e);
  INFO(converted.out << converted.err);
  CHECK(converted.exit_code == 0);
  const std::string database = o.directory + "/compute_profile.nvvp";
  CHECK(query(database, "PRAGMA integrity_check") == std::vector<std::string>{"ok"});
  CHECK(query(database, "SELECT version FROM Version") == std::vector<std::string>{"11"});
  CHECK(query(database, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL") == std::vector<std::string>{"1"});
  CHECK(query(database, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY") == std::vector<std::string>{"1"});
}

TEST_CASE("export nvprof: NVTX marks and ranges are MARKER rows paired by id, each with its MARKER_DATA row",
          "[e2e][nvprof][nvtx]") {
  auto o = profiling("export nvprof,sqlite\n");
  o.argv = {NVTX_CLIENT_PATH, "ranges"};
  const auto r = run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.out.ends_with("PASS\n"));
  const std::string database = o.directory + "/compute_profile.nvvp";
  const std::string checked = check_nvvp(database);
  REQUIRE(checked.find("marker ranges: ") != std::string::npos);
  // nvtx_client's ranges in the order they started; CUPTI's flags (1 no colour, 2 ARGB)
  // and payload kinds (0 double, 1 uint64).
  CHECK(checked.substr(checked.find("marker ranges: ")) ==
        "marker ranges: 8\n"
        "range ProfilerStep#1, ended on the same thread, data flags 1 color 0x00000000 category 0 payload 0:0.0\n"
        "range forward, ended on the same thread, data flags 1 color 0x00000000 category 0 payload 0:0.0\n"
        "range layer@lib, ended on the same thread, data flags 1 color 0x00000000 category 0 payload 0:0.0\n"
        "range async, ended on another thread, data flags 1 color 0x00000000 category 0 payload 0:0.0\n"
        "range worker, ended on the same thread, data flags 1 color 0x00000000 category 0 payload 0:0.0\n"
        "range inner, ended on the same thread, data flags 1 color 0x00000000 category 0 payload 0:0.0\n"
        "range wide-\xc3\xbc, ended on the same thread, data flags 1 color 0x00000000 category 0 payload 0:0.0\n"
        "range colored, ended on the same thread, data flags 2 color 0xff00ff00 category 1 payload 1:7\n"
        "mark done, data flags 1 color 0x00000000 category 0 payload 0:0.0\n");
  // The rows themselves: a start (2) and an end (4) per range sharing an id, a mark (1)
  // alone; each range's length the same as the other database's.
  CHECK(query(database, "SELECT flags, count(*), count(DISTINCT id) FROM CUPTI_ACTIVITY_KIND_MARKER GROUP BY 1") ==
        std::vector<std::string>{"1|1|1", "2|8|8", "4|8|8"});
  const auto lengths = query(database,
                             "SELECT s.value, e.timestamp - b.timestamp FROM CUPTI_ACTIVITY_KIND_MARKER b JOIN "
                             "CUPTI_ACTIVITY_KIND_MARKER e ON e.id = b.id AND e.flags = 4 JOIN StringTable s ON "
                             "s._id_ = b.name WHERE b.flags = 2 ORDER BY b.timestamp");
  CHECK(lengths == query(o.directory + "/compute_profile.sqlite",
                         "SELECT text, end - start FROM NVTX_EVENTS WHERE eventType IN (59, 60) ORDER BY start"));
  // Each start on the thread that made the kernels' calls inside it (objectId: pid, tid).
  CHECK(query(database,
              "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MARKER m JOIN StringTable s ON s._id_ = m.name WHERE "
              "s.value = 'forward' AND hex(substr(m.objectId, 5, 4)) IN (SELECT hex(substr(objectId, 5, 4)) FROM "
              "CUPTI_ACTIVITY_KIND_MARKER WHERE flags = 1)") == std::vector<std::string>{"1"});
}
