// Kernel filters and call stacks on filter_client (known kernels from a known chain of
// functions): exact records for each form of `kernels`, both scopes, skip and count,
// graph nodes, bad lines; the stacks of the records, the stacks file, the database's
// call chains and the trace's args.stack.
#include <algorithm>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "catch.hpp"

#include "database_query.hpp"
#include "e2e_support.hpp"

using namespace e2e;

namespace {

// The launches of filter_client, in order, then its copy and memset around them.
const Methods kAll{"memcpyHtoD",       "_Z6vecAddPKfS0_Pfi", "_Z4spiny",          "_Z6vecAddPKfS0_Pfi",
                   "_Z4spiny",         "_Z6vecAddPKfS0_Pfi", "_Z4spiny",          "_Z6vecAddPKfS0_Pfi",
                   "_Z4spiny",         "_Z8blockSumPKfPfi",  "memset"};

struct FilterRun {
  RunResult result;
  ParsedLog log;
  std::string directory;
};

FilterRun run_filter_client(const std::string& config) {
  auto o = profiling(config);
  o.argv = {FILTER_CLIENT_PATH};
  FilterRun run{e2e::run(o), {}, o.directory};
  INFO(run.result.out << run.result.err);
  REQUIRE(run.result.exit_code == 0);
  REQUIRE(run.result.out.ends_with("PASS\n"));
  run.log = read_log(o.directory + "/compute_profile.log");
  return run;
}

// A run of the computeprof command, which preloads the shim itself: a sanitizer runtime
// the shim needs is preloaded for it (the command keeps it first).
RunOptions through_launcher() {
  RunOptions o;
  o.directory = make_scratch_directory();
  o.preload_shim = false;
  if (!std::string_view(SANITIZER_PRELOAD).empty()) o.env["LD_PRELOAD"] = SANITIZER_PRELOAD;
  return o;
}

// Each record's counter field: "n/a", or "-" where the record has no such key.
std::vector<std::string> counters_of(const ParsedLog& log) {
  std::vector<std::string> out;
  for (const auto& r : log.records) out.push_back(r.count("inst_executed") ? r.at("inst_executed") : "-");
  return out;
}

}  // namespace

TEST_CASE("filters, scope all: only the selected launches are records, copies and memsets stay", "[e2e][filters]") {
  struct Case {
    const char* config;
    Methods expected;
  };
  const Case cases[] = {
      {"kernels vecAdd\n",
       {"memcpyHtoD", "_Z6vecAddPKfS0_Pfi", "_Z6vecAddPKfS0_Pfi", "_Z6vecAddPKfS0_Pfi", "_Z6vecAddPKfS0_Pfi", "memset"}},
      {"kernels _Z4spiny:3\n", {"memcpyHtoD", "_Z4spiny", "memset"}},
      {"kernels vecAdd:2\nkernels blockSum\n", {"memcpyHtoD", "_Z6vecAddPKfS0_Pfi", "_Z8blockSumPKfPfi", "memset"}},
      {"kernels regex:^_Z(4spin|8block)\nkernelexclude Sum\n",
       {"memcpyHtoD", "_Z4spiny", "_Z4spiny", "_Z4spiny", "_Z4spiny", "memset"}},
      {"kernelexclude vecAdd|spin\n", {"memcpyHtoD", "_Z8blockSumPKfPfi", "memset"}},
      {"kernels 1:3:spin\n", {"memcpyHtoD", "_Z4spiny", "_Z4spiny", "_Z4spiny", "_Z4spiny", "memset"}},
      {"kernels 1:1:spin\n", {"memcpyHtoD", "memset"}},  // spin runs on stream 3 (filter_client prints it)
      {"kernels 2:vecAdd\n", {"memcpyHtoD", "memset"}},  // one context, numbered 1
      {"kernels regex:.\nlaunchskip 2\nlaunchcount 3\n",
       {"memcpyHtoD", "_Z6vecAddPKfS0_Pfi", "_Z4spiny", "_Z6vecAddPKfS0_Pfi", "memset"}},
      {"launchcount 1\n", {"memcpyHtoD", "_Z6vecAddPKfS0_Pfi", "memset"}},
  };
  for (const Case& c : cases) {
    INFO(c.config);
    const auto run = run_filter_client(std::string(c.config) + "kernelfilterscope all\n");
    CHECK(run.result.out == "stream 3\nPASS\n");
    CHECK(run.result.err.empty());
    CHECK(methods(run.log) == c.expected);
  }
}

TEST_CASE("filters, scope counters: every launch is recorded, only the selected ones counted", "[e2e][filters]") {
  const auto run = run_filter_client("inst_executed\nkernels vecAdd:2\nkernels blockSum\n");
  CHECK(methods(run.log) == kAll);
  // The simulated driver's CUPTI cannot count: a counted launch reads n/a, the others
  // have no counter key (they were not replayed).
  CHECK(counters_of(run.log) ==
        std::vector<std::string>{"-", "-", "-", "n/a", "-", "-", "-", "-", "-", "n/a", "-"});
  const auto unfiltered = run_filter_client("inst_executed\n");
  CHECK(counters_of(unfiltered.log) ==
        std::vector<std::string>{"-", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "-"});
}

TEST_CASE("filters: a bad line is one warning with file and line, and the rest still applies", "[e2e][filters]") {
  auto o = profiling("kernels 1:x:spin\nkernelexclude (\nkernels blockSum\nkernelfilterscope all\n");
  o.argv = {FILTER_CLIENT_PATH};
  const auto r = e2e::run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string config = o.directory + "/profile.cfg";
  const std::string err = std::regex_replace(r.err, std::regex("not a regular expression: [^;]*"), "not a regular expression: ?");
  CHECK(err == "computeprof: " + config + ":1: kernels '1:x:spin': the stream is not a number; ignored\n"
               "computeprof: " + config + ":2: kernelexclude '(': not a regular expression: ?; ignored\n");
  CHECK(methods(read_log(o.directory + "/compute_profile.log")) ==
        Methods{"memcpyHtoD", "_Z8blockSumPKfPfi", "memset"});
}

TEST_CASE("filters: a graph's kernel nodes are filtered by name with CUPTI", "[e2e][filters]") {
  auto o = profiling("conckerneltrace\nkernelfilterscope all\nkernelexclude spin\n");
  const auto r = run_client("procaddress", "graph-nodes", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(methods(read_log(o.directory + "/compute_profile.log")) ==
        Methods{"memset", "memcpyDtoHasync", "memset", "memcpyDtoHasync"});
}

TEST_CASE("callstack: each record names its stack, the stacks name the program's functions in order",
          "[e2e][callstack]") {
  const auto run = run_filter_client("callstack\nexport json,sqlite\n");
  CHECK(run.log.column_line == "method,gputime,cputime,occupancy,callstackid");
  std::vector<std::string> ids;
  for (const auto& r : run.log.records) ids.push_back(r.at("callstackid"));
  // copy, then vecAdd and spin four times from one call site, blockSum, memset.
  CHECK(ids == std::vector<std::string>{"1", "2", "3", "2", "3", "2", "3", "2", "3", "4", "5"});

  // The stacks file, innermost first, the program's functions by name (their files and
  // lines are test_call_stacks.cpp's).
  const std::string stacks = read_file(run.directory + "/compute_profile.stacks");
  const std::string without_offsets = std::regex_replace(
      std::regex_replace(stacks, std::regex("\\+0x[0-9a-f]+\\)"), "+?)"), std::regex(" [^ \n]+:[0-9]+\n"), "\n");
  for (const char* expected : {
           "stack 2\n#0 launch_vec_add (filter_client+?)\n#1 host_middle (filter_client+?)\n"
           "#2 host_outer (filter_client+?)\n#3 run_workload (filter_client+?)\n#4 main (filter_client+?)\n",
           "stack 3\n#0 launch_spin (filter_client+?)\n#1 host_middle (filter_client+?)\n"
           "#2 host_outer (filter_client+?)\n#3 run_workload (filter_client+?)\n#4 main (filter_client+?)\n",
           "stack 4\n#0 launch_block_sum (filter_client+?)\n#1 run_workload (filter_client+?)\n"
           "#2 main (filter_client+?)\n",
           "stack 1\n#0 run_workload (filter_client+?)\n#1 main (filter_client+?)\n"}) {
    INFO(expected);
    CHECK(without_offsets.find(expected) != std::string::npos);
  }
  CHECK(stacks.starts_with("# COMPUTEPROF_STACKS 1\n"));
  std::size_t stack_lines = 0;
  for (auto at = stacks.find("\nstack "); at != std::string::npos; at = stacks.find("\nstack ", at + 1)) ++stack_lines;
  CHECK(stack_lines == 5);

  // The database: CUDA_CALLCHAINS as nsys writes them, calls with a stack in eventClass 67.
  const std::string db = run.directory + "/compute_profile.sqlite";
  CHECK(query(db, "SELECT s.value FROM CUDA_CALLCHAINS c JOIN StringIds s ON s.id = c.symbol WHERE c.id = 3 AND "
                  "c.stackDepth < 5 ORDER BY c.stackDepth") ==
        std::vector<std::string>{"launch_spin", "host_middle", "host_outer", "run_workload", "main"});
  // apitrace's calls, the module's load, the three allocations and the closing
  // cuCtxSynchronize: CUDA driver rows without a stack.
  CHECK(query(db, "SELECT eventClass, count(*), count(DISTINCT callchainId) FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                  "GROUP BY 1") == std::vector<std::string>{"1|5|0", "67|11|5"});
  CHECK(query(db, "SELECT count(DISTINCT id) FROM CUDA_CALLCHAINS") == std::vector<std::string>{"5"});

  // The trace: each call's stack in its args.
  const std::string trace = read_file(run.directory + "/compute_profile.json");
  CHECK(std::regex_search(trace, std::regex("\"name\":\"cuLaunchKernel\"[^\\n]*\"stack\":\\[\"launch_vec_add "
                                            "\\(filter_client\\+0x[0-9a-f]+\\)[^\"]*\",\"host_middle ")));
}

TEST_CASE("callstack without libunwind: libgcc's unwinder gives the same stacks, and one line says it is slower",
          "[e2e][callstack]") {
  const auto with_libunwind = run_filter_client("callstack\n");
  // Needs libunwind.so.8 installed, or on the caller's LD_LIBRARY_PATH.
  CHECK(with_libunwind.result.err == "");
  auto o = profiling("callstack\n");
  o.argv = {FILTER_CLIENT_PATH};
  const std::string missing = o.directory + "/no-libunwind.so.8";
  o.env["COMPUTEPROF_LIBUNWIND_LIBRARY"] = missing;
  const auto r = e2e::run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == with_libunwind.result.out);
  CHECK(r.err == "computeprof: call stacks: libunwind not loaded: " + missing +
                     ": cannot open shared object file: No such file or directory; libgcc's unwinder captures them, "
                     "about 13 times slower (install libunwind8)\n");
  CHECK(read_file(o.directory + "/compute_profile.stacks") ==
        read_file(with_libunwind.directory + "/compute_profile.stacks"));
  const auto log = read_log(o.directory + "/compute_profile.log");
  REQUIRE(log.records.size() == with_libunwind.log.records.size());
  for (std::size_t i = 0; i < log.records.size(); ++i) {
    CHECK(log.records[i].at("callstackid") == with_libunwind.log.records[i].at("callstackid"));
  }
}

TEST_CASE("callstack off: no column, no stacks file, logs as before", "[e2e][callstack]") {
  const auto run = run_filter_client("");
  CHECK(run.log.column_line == "method,gputime,cputime,occupancy");
  CHECK_FALSE(file_exists(run.directory + "/compute_profile.stacks"));
  CHECK(methods(run.log) == kAll);
}

TEST_CASE("callstack with memtrace: the report names where each allocation was made", "[e2e][callstack]") {
  auto o = profiling("callstack 4\nmemtrace\n");
  const auto r = run_memory_client("dlsym", "peak", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string report = read_file(o.directory + "/compute_profile.memory");
  CHECK(std::regex_search(report, std::regex("  never freed: 1 allocation, 1048576 bytes\n    1048576 device 0x[0-9a-f]+ "
                                             "cuMemAlloc_v2 at [0-9.]+ ms from [^\n]+ \\(memory_client\\+0x[0-9a-f]+\\)"
                                             "( [^ \n]+:[0-9]+)? \\(stack [0-9]+\\)\n")));
}

TEST_CASE("the launcher's config options reach the shim as the config file's lines", "[e2e][filters]") {
  RunOptions o = through_launcher();
  o.argv = {COMPUTEPROF_CLI_PATH, "--kernels", "vecAdd:2", "--kernel-filter-scope=all", "--callstack=4",
            "--export", "json,sqlite", "--memtrace", "--print-summary", FILTER_CLIENT_PATH};
  const auto r = e2e::run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "stream 3\nPASS\n");
  const auto log = read_log(o.directory + "/compute_profile.log");
  CHECK(methods(log) == Methods{"memcpyHtoD", "_Z6vecAddPKfS0_Pfi", "memset"});
  CHECK(log.column_line == "method,gputime,cputime,occupancy,callstackid");
  for (const char* file : {"compute_profile.json", "compute_profile.sqlite", "compute_profile.stacks",
                           "compute_profile.memory", "compute_profile_memory.svg"}) {
    INFO(file);
    CHECK(file_exists(o.directory + "/" + file));
  }
  CHECK(query(o.directory + "/compute_profile.sqlite", "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL") ==
        std::vector<std::string>{"1"});
  CHECK(std::regex_search(r.err, std::regex("==[0-9]+== Profiling result:\n")));
  CHECK(r.err.find("computeprof: log written to " + o.directory + "/compute_profile.log\n") != std::string::npos);
}

TEST_CASE("the launcher's copy of a config file: the shim's warnings name the user's file and line",
          "[e2e][filters]") {
  RunOptions o = through_launcher();
  const std::string config = write_config(o.directory, "gridsize\nbogus\n");
  o.argv = {COMPUTEPROF_CLI_PATH, "--config", config, "--kernels", "blockSum", "--kernel-filter-scope", "all",
            FILTER_CLIENT_PATH};
  const auto r = e2e::run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.starts_with("computeprof: " + config + ":2: unknown name 'bogus', skipped\n"));
  const auto log = read_log(o.directory + "/compute_profile.log");
  CHECK(methods(log) == Methods{"memcpyHtoD", "_Z8blockSumPKfPfi", "memset"});
  CHECK(log.column_line == "method,gputime,cputime,gridsizeX,gridsizeY,occupancy");
}

TEST_CASE("a log in a folder that does not exist: the launcher's last line says why no log was written",
          "[e2e][filters]") {
  RunOptions o = through_launcher();
  const std::string log = o.directory + "/no-such-folder/run.log";
  o.argv = {COMPUTEPROF_CLI_PATH, "-o", log, FILTER_CLIENT_PATH};
  const auto r = e2e::run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.ends_with("PASS\n"));
  const std::string why = "cannot open log '" + log + "': No such file or directory; this context is not logged";
  CHECK(r.err.ends_with("computeprof: " + why + "\ncomputeprof: no log written (" + why + ")\n"));
  CHECK(r.err.find("made no CUDA or OpenCL calls") == std::string::npos);
}

TEST_CASE("kernel filters over a kernel name of 60,000 characters: nested quantifiers neither crash nor hang, each "
          "line selects as it says",
          "[e2e][filters]") {
  struct Case {
    const char* config;
    Methods expected;  // the long name written as "long"
  };
  const Methods kAllLaunches{"long", "long", "long", "_Z4spiny"};
  const Case cases[] = {
      {"kernelexclude (a|b)*c\n", kAllLaunches},
      {"kernelexclude (a+)+b\n", kAllLaunches},
      {"kernelexclude ^a+$\n", {"_Z4spiny"}},
      {"kernels regex:(a|b)*c\nkernels regex:spin\n", {"_Z4spiny"}},
      {"kernels regex:^(a|aa)+$\n", {"long", "long", "long"}},
  };
  for (const Case& c : cases) {
    INFO(c.config);
    auto o = profiling(std::string(c.config) + "kernelfilterscope all\n");
    const auto r = run_client("dlsym", "long-name", o);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    Methods got = methods(read_log(o.directory + "/compute_profile.log"));
    for (std::string& m : got) {
      if (m == std::string(60'000, 'a')) m = "long";
    }
    CHECK(got == c.expected);
  }
}
