// export pftrace: Perfetto's protobuf trace of a run, read back field by field
// (pftrace_check.hpp) and decoded by protoc against the fields it writes, named and
// numbered as Perfetto's published perfetto_trace.proto names them
// (perfetto_subset.proto): every slice, flow, instant and counter counted exactly,
// against the run's known shape and against its JSON trace, every interned id
// resolved, the slices of each track nested.
#include <csignal>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "catch.hpp"

#include "e2e_support.hpp"
#include "pftrace_check.hpp"
#include "tools/json_trace_reader.hpp"

using namespace e2e;
using pftrace_check::check_pftrace;
using pftrace_check::PftraceSummary;

namespace pftrace_test {

using Counts = std::map<std::string, long>;

// What the JSON trace of the same run holds, as the Perfetto trace must hold it.
struct JsonCounts {
  Counts slices_by_category;  // complete events and async pairs
  Counts instants_by_name;
  long counters = 0;  // counter series values
  long flows = 0;
};

JsonCounts count_json(const std::string& path) {
  JsonCounts c;
  computeprof::tools::JsonTraceReader::open(path).read([&](const computeprof::tools::JsonValue& e) {
    const auto ph = e.string_member("ph").value_or("");
    const std::string cat(e.string_member("cat").value_or(""));
    if (ph == "X" || ph == "b") ++c.slices_by_category[cat];
    if (ph == "i") ++c.instants_by_name[std::string(e.string_member("name").value_or(""))];
    if (ph == "s") ++c.flows;
    if (ph == "C") c.counters += static_cast<long>(e.find("args")->members.size());
  });
  return c;
}

// protoc's decoding of the trace with the fields computeprof writes: the lines that
// count events, and whether every field had a name (an unknown one is a number).
struct Decoded {
  int exit_code = -1;
  long unnamed_fields = 0;
  long slice_begins = 0, slice_ends = 0, instants = 0, counters = 0, flow_starts = 0, flow_ends = 0;
};

Decoded decode_with_protoc(const std::string& trace) {
  const std::string proto_dir = std::string(PERFETTO_SUBSET_PROTO).substr(0, std::string(PERFETTO_SUBSET_PROTO).rfind('/'));
  const CommandOutput r = command_output(std::string(PROTOC_PATH) + " --decode=perfetto.protos.Trace --proto_path=" +
                                         proto_dir + " perfetto_subset.proto < " + trace);
  Decoded d;
  d.exit_code = r.exit_code;
  const std::regex unnamed(R"(^\s*[0-9]+[: ])");
  std::size_t at = 0;
  while (at < r.out.size()) {
    std::size_t end = r.out.find('\n', at);
    if (end == std::string::npos) end = r.out.size();
    const std::string line = r.out.substr(at, end - at);
    at = end + 1;
    if (std::regex_search(line, unnamed)) ++d.unnamed_fields;
    if (line.ends_with("type: TYPE_SLICE_BEGIN")) ++d.slice_begins;
    if (line.ends_with("type: TYPE_SLICE_END")) ++d.slice_ends;
    if (line.ends_with("type: TYPE_INSTANT")) ++d.instants;
    if (line.ends_with("type: TYPE_COUNTER")) ++d.counters;
    if (line.find(" flow_ids_old: ") != std::string::npos) ++d.flow_starts;
    if (line.find(" terminating_flow_ids_old: ") != std::string::npos) ++d.flow_ends;
  }
  return d;
}

// "name: count, ..." in the order of the names: readable where a check fails.
std::string text(const Counts& counts) {
  std::string t;
  for (const auto& [name, count] : counts) t += (t.empty() ? "" : ", ") + name + ": " + std::to_string(count);
  return t;
}

long total(const Counts& counts) {
  long n = 0;
  for (const auto& [name, count] : counts) n += count;
  return n;
}

// The trace read back, checked whole, and decoded by protoc to the same counts.
PftraceSummary checked(const std::string& trace) {
  INFO(trace);
  const PftraceSummary s = check_pftrace(trace);
  CHECK(s.problems == std::vector<std::string>{});
  const Decoded d = decode_with_protoc(trace);
  CHECK(d.exit_code == 0);
  CHECK(d.unnamed_fields == 0);
  CHECK(d.slice_begins == total(s.slices_by_category));
  CHECK(d.slice_ends == d.slice_begins);
  CHECK(d.instants == total(s.instants_by_name));
  CHECK(d.counters == s.counters);
  CHECK(d.flow_starts == s.flows);
  CHECK(d.flow_ends == s.flows);
  return s;
}

void check_as_json(const PftraceSummary& s, const std::string& json) {
  const JsonCounts j = count_json(json);
  CHECK(s.slices_by_category == j.slices_by_category);
  CHECK(s.instants_by_name == j.instants_by_name);
  CHECK(s.counters == j.counters);
  CHECK(s.flows == j.flows);
}

RunResult convert_offline(const std::string& directory, std::vector<std::string> args) {
  RunOptions o;
  o.directory = directory;
  o.preload_shim = false;
  o.simulated_driver = false;
  o.argv = {COMPUTEPROF_CLI_PATH, "export"};
  for (auto& a : args) o.argv.push_back(std::move(a));
  return e2e::run(o);
}

}  // namespace pftrace_test

using namespace pftrace_test;

TEST_CASE("pftrace: the basic run's calls, operations and flows, as its JSON trace has them, decoded by protoc",
          "[e2e][exports][pftrace]") {
  const bool concurrent = GENERATE(false, true);
  INFO((concurrent ? "conckerneltrace" : "serialized"));
  auto o = profiling(std::string("export json,pftrace\n") + (concurrent ? "conckerneltrace\n" : ""));
  const auto r = run_client("linked", "basic", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const PftraceSummary s = checked(o.directory + "/compute_profile.pftrace");
  // The eight operations' calls and apitrace's three synchronizations, five allocations
  // and five frees.
  CHECK(s.slices_by_category == Counts{{"cuda_driver", 22}, {"gpu_memcpy", 4}, {"gpu_memset", 1}, {"kernel", 3}});
  CHECK(text(s.slices_by_name) ==
        "Memcpy DtoD (Device -> Device): 1, Memcpy DtoH (Device -> Pinned): 1, Memcpy HtoD (Pageable -> Device): 2, "
        "Memset (Device): 1, cuCtxSynchronize: 1, cuLaunchKernel: 2, cuLaunchKernel_ptsz: 1, cuMemAllocHost_v2: 1, "
        "cuMemAlloc_v2: 4, cuMemFreeHost: 1, cuMemFree_v2: 4, cuMemcpy: 1, cuMemcpyDtoHAsync_v2: 1, "
        "cuMemcpyHtoD_v2: 2, cuMemsetD8_v2: 1, cuModuleLoadData: 1, cuStreamSynchronize: 2, "
        "spin(unsigned long long): 2, "
        "vecAdd(float const*, float const*, float*, int): 1");
  CHECK(s.flows == 8);
  CHECK(s.instants_by_name.empty());
  CHECK(s.counters == 0);
  // The process, its thread; the GPU and its three streams.
  CHECK(text(s.tracks) == "named: 4, process: 1, thread: 1");
  CHECK(s.process_names == Counts{{"driver_client_linked", 1}});
  // The JSON trace's args, by the number of events that have each.
  CHECK(s.arg_names == Counts{{"block", 3},
                              {"bytes", 5},
                              {"context", 8},
                              {"correlation", 30},
                              {"grid", 3},
                              {"kind", 14},
                              {"method", 8},
                              {"registers per thread", 3},
                              {"result", 14},
                              {"stream", 10},
                              {"theoretical occupancy", 3}});
  check_as_json(s, o.directory + "/compute_profile.json");
}

TEST_CASE("pftrace: NVTX push/pop ranges on their threads, a start/end range on a track of its own, a mark, "
          "named threads",
          "[e2e][exports][pftrace][nvtx]") {
  auto o = profiling("export json,pftrace\n");
  o.argv = {NVTX_CLIENT_PATH, "ranges"};
  const RunResult r = e2e::run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const PftraceSummary s = checked(o.directory + "/compute_profile.pftrace");
  CHECK(s.slices_by_category ==
        Counts{{"cuda_driver", 13}, {"gpu_memcpy", 1}, {"gpu_memset", 1}, {"kernel", 6}, {"user_annotation", 8}});
  for (const char* range : {"ProfilerStep#1", "forward", "layer@lib", "async", "worker", "inner", "wide-\xc3\xbc",
                            "colored"}) {
    INFO(range);
    CHECK(s.slices_by_name.at(range) == 1);
  }
  CHECK(s.instants_by_name == Counts{{"done", 1}});
  CHECK(s.flows == 8);
  CHECK(s.thread_names == Counts{{"main", 1}, {"worker", 1}});
  CHECK(s.tracks.at("named") == 3);  // the GPU, its stream, the start/end range
  CHECK(s.arg_names.at("nvtx range") == 7);
  CHECK(s.arg_names.at("path") == 7);
  CHECK(s.arg_names.at("domain") == 1);
  CHECK(s.arg_names.at("color") == 1);
  CHECK(s.arg_names.at("payload") == 1);
  check_as_json(s, o.directory + "/compute_profile.json");
}

TEST_CASE("pftrace: memtrace's use of device memory as counters under the device", "[e2e][exports][pftrace][memtrace]") {
  auto o = profiling("memtrace\nexport json,pftrace\n");
  const auto r = run_client("linked", "basic", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const PftraceSummary s = checked(o.directory + "/compute_profile.pftrace");
  // Ten allocations and frees, each the device's total and each kind it has had by
  // then: device memory from the first, pinned host memory from the sixth.
  CHECK(s.counters == 10 + 10 + 6);
  CHECK(text(s.tracks) == "counter: 3, named: 4, process: 1, thread: 1");
  check_as_json(s, o.directory + "/compute_profile.json");
}

TEST_CASE("pftrace: a process killed after a flush point leaves a run file that computeprof export makes into "
          "a trace",
          "[e2e][exports][pftrace]") {
  auto o = profiling("export pftrace\n");
  const auto r = run_client("dlsym", "stop-then-kill", o);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 128 + SIGKILL);
  CHECK_FALSE(file_exists(o.directory + "/compute_profile.pftrace"));
  const RunResult e = convert_offline(o.directory, {"compute_profile.cprof", "--to", "pftrace"});
  INFO(e.out << e.err);
  CHECK(e.exit_code == 0);
  CHECK(e.err.empty());
  // The module's load and the allocation before the flush point are API calls.
  CHECK(e.out == "compute_profile.pftrace: 2 operations, 0 NVTX events, 0 memory events, 2 API calls (the run had "
                 "not ended: every record to its last flush point)\n");
  const PftraceSummary s = checked(o.directory + "/compute_profile.pftrace");
  CHECK(s.slices_by_category == Counts{{"cuda_driver", 4}, {"gpu_memcpy", 1}, {"kernel", 1}});
  CHECK(s.flows == 2);
}

TEST_CASE("pftrace: computeprof merge -o OUT.pftrace makes each rank a process, from a JSON trace and a run file",
          "[e2e][exports][pftrace][merge]") {
  std::string directory;
  for (int rank = 0; rank < 2; ++rank) {
    const auto r = run_rank(directory, rank, 2, rank == 0 ? "export json\n" : "export cprof\n");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
  }
  RunOptions o;
  o.directory = directory;
  o.preload_shim = false;
  o.argv = {COMPUTEPROF_CLI_PATH, "merge", "rank_1.cprof", "rank_0.json", "-o", "all.pftrace"};
  const RunResult m = e2e::run(o);
  INFO(m.out << m.err);
  REQUIRE(m.exit_code == 0);
  CHECK(m.err.empty());
  CHECK(std::regex_match(m.out, std::regex("merged [0-9]+ events of 2 files into all.pftrace \\(0 metadata events added\\)\n")));

  const PftraceSummary s = checked(directory + "/all.pftrace");
  // Each rank: the basic run's eight operations and their calls, its three
  // synchronizations, five allocations and five frees (apitrace); its flows' ends instants.
  CHECK(text(s.slices_by_category) == "cuda_driver: 44, gpu_memcpy: 8, gpu_memset: 2, kernel: 6");
  CHECK(text(s.instants_by_name) == "ac2g: 32");
  CHECK(s.flows == 16);
  // Each rank a process; its thread, its GPU and the GPU's three streams under it.
  CHECK(text(s.tracks) == "named: 8, process: 2, thread: 2");
  REQUIRE(s.process_names.size() == 2);
  CHECK(std::regex_match(s.process_names.begin()->first, std::regex("rank 0 \\(.+, [0-9]+\\) driver_client_linked")));
  CHECK(std::regex_match(s.process_names.rbegin()->first, std::regex("rank 1 \\(.+, [0-9]+\\) driver_client_linked")));
}

TEST_CASE("pftrace: a graph launch's nodes, which may overlap, each on a track of their own, without flows",
          "[e2e][exports][pftrace]") {
  auto o = profiling("conckerneltrace\nexport json,pftrace\n");
  const auto r = run_client("procaddress", "graph-nodes", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const PftraceSummary s = checked(o.directory + "/compute_profile.pftrace");
  // Two launches of a memset, a spin and a copy: two calls, six nodes; the closing
  // cuStreamSynchronize and the two allocations (apitrace).
  CHECK(text(s.slices_by_category) == "cuda_driver: 6, gpu_memcpy: 2, gpu_memset: 2, kernel: 2");
  CHECK(s.flows == 0);
  CHECK(s.arg_names.at("correlation") == 12);
  check_as_json(s, o.directory + "/compute_profile.json");
}
