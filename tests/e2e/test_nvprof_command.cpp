// computeprof nvprof: nvprof's command line on the simulated driver, and its outputs:
// the ==PID== lines, the summary, the traces, their CSV forms read back as scripts read
// them, -o's database, --log-file, the launcher run as nvprof, options it refuses.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "catch.hpp"

#include "e2e_support.hpp"

using namespace e2e;

namespace {

RunOptions nvprof(std::vector<std::string> args, const std::string& program = COMPUTEPROF_CLI_PATH) {
  RunOptions o;
  o.directory = make_scratch_directory();
  o.preload_shim = false;
  if (!std::string_view(SANITIZER_PRELOAD).empty()) o.env["LD_PRELOAD"] = SANITIZER_PRELOAD;
  // Its own TMPDIR: nothing is left there.
  std::filesystem::create_directory(o.directory + "/tmp");
  o.env["TMPDIR"] = o.directory + "/tmp";
  o.argv = {program};
  if (program == COMPUTEPROF_CLI_PATH) o.argv.push_back("nvprof");
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  return o;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    lines.push_back(text.substr(at, end - at));
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return lines;
}

// "==<pid>== " of the first line.
std::string prefix_of(const std::string& err) {
  REQUIRE(err.starts_with("=="));
  return err.substr(0, err.find("== ") + 3);
}

std::string python(const std::string& script, const std::string& argument) {
  const CommandOutput r = command_output(std::string(PYTHON3_PATH) + " " + script + " " + argument);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  return r.out;
}

// The summary's rows: "<type> | <calls> | <name>", from nvprof's fixed columns.
std::vector<std::string> summary_rows(const std::string& err) {
  std::vector<std::string> rows;
  bool in_table = false;
  std::string type;
  for (const std::string& line : lines_of(err)) {
    if (line.starts_with("            Type  Time(%)")) {
      in_table = true;
      continue;
    }
    if (!in_table || line.size() < 78) continue;
    if (line.substr(0, 16) != std::string(16, ' ')) {
      type = line.substr(line.find_first_not_of(' '), line.find(':') - line.find_first_not_of(' '));
    }
    // Calls is the 8 characters at 37, the name from 77.
    const std::string calls = line.substr(37, 8);
    rows.push_back(type + " | " + calls.substr(calls.find_first_not_of(' ')) + " | " + line.substr(77));
  }
  return rows;
}

const std::string kClientOutput = "stream created 3\nstream per-thread 4\nvecAdd 10240 elements ok\nPASS\n";

}  // namespace

TEST_CASE("nvprof: the default summary of GPU activities and API calls, the program's output unchanged",
          "[e2e][nvprof-command]") {
  auto o = nvprof({CLIENT_PATH, "runtime", "basic"});
  const auto r = run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == kClientOutput);
  const std::string prefix = prefix_of(r.err);
  const auto lines = lines_of(r.err);
  REQUIRE(lines.size() == 21);
  CHECK(lines[0] == prefix + "NVPROF is profiling process " + prefix.substr(2, prefix.size() - 5) + ", command: " +
                        CLIENT_PATH + " runtime basic");
  CHECK(lines[1] == prefix + "Profiling application: " + CLIENT_PATH + " runtime basic");
  CHECK(lines[2] == prefix + "Profiling result:");
  CHECK(lines[3] == "            Type  Time(%)      Time     Calls       Avg       Min       Max  Name");
  // Spins first (the longest), then the rest by their (varying) times: compared as a set.
  auto rows = summary_rows(r.err);
  REQUIRE(rows.size() == 17);
  CHECK(rows[0] == "GPU activities | 2 | spin(unsigned long long)");
  std::sort(rows.begin(), rows.end());
  // The synchronizations, allocations and frees too (apitrace, on as under nvprof), and
  // the program's own module load, by its driver name as no runtime function makes it.
  CHECK(rows == std::vector<std::string>{"API calls | 1 | cuModuleLoadData", "API calls | 1 | cudaDeviceSynchronize",
                                         "API calls | 1 | cudaFreeHost",
                                         "API calls | 1 | cudaMallocHost", "API calls | 1 | cudaMemcpyAsync",
                                         "API calls | 1 | cudaMemset", "API calls | 2 | cudaStreamSynchronize",
                                         "API calls | 3 | cudaLaunchKernel", "API calls | 3 | cudaMemcpy",
                                         "API calls | 4 | cudaFree", "API calls | 4 | cudaMalloc",
                                         "GPU activities | 1 | [CUDA memcpy DtoD]",
                                         "GPU activities | 1 | [CUDA memcpy DtoH]", "GPU activities | 1 | [CUDA memset]",
                                         "GPU activities | 1 | vecAdd(float const*, float const*, float*, int)",
                                         "GPU activities | 2 | [CUDA memcpy HtoD]",
                                         "GPU activities | 2 | spin(unsigned long long)"});
  CHECK(lines[4].starts_with(" GPU activities:"));
  CHECK(lines[10].starts_with("      API calls:"));
  // Nothing left behind: no log, no database, no temporary file.
  CHECK(list_directory(o.directory) == std::vector<std::string>{"tmp"});
  CHECK(list_directory(o.directory + "/tmp").empty());
}

TEST_CASE("nvprof: --print-gpu-trace's table, --print-api-trace's, a driver program's calls by driver names",
          "[e2e][nvprof-command]") {
  const bool concurrent = GENERATE(true, false);
  INFO((concurrent ? "concurrent kernels" : "--concurrent-kernels off"));
  std::vector<std::string> args = {"--print-gpu-trace", "--print-api-trace"};
  if (!concurrent) args.insert(args.end(), {"--concurrent-kernels", "off"});
  args.insert(args.end(), {CLIENT_PATH, "dlsym", "basic"});
  const auto r = run(nvprof(args));
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string prefix = prefix_of(r.err);
  const auto lines = lines_of(r.err);
  REQUIRE(lines.size() == 2 + 2 + 8 + 6 + 2 + 22);
  CHECK(lines[2] == prefix + "Profiling result:");
  CHECK(lines[3] == "   Start  Duration            Grid Size      Block Size     Regs*    SSMem*    DSMem*      Size  "
                    "Throughput  SrcMemType  DstMemType           Device   Context    Stream  Name");
  std::vector<std::string> names;
  for (std::size_t i = 4; i < 12; ++i) {
    // Each row in nvprof's columns: the device's 15 characters at 133, the name from 170.
    CHECK(lines[i].substr(133, 15) == "computeprof sim");
    names.push_back(lines[i].substr(170));
  }
  // A kernel's name carries its correlation id, as nvprof's did.
  for (auto& n : names) n = n.substr(0, n.find(" ["));
  CHECK(names == std::vector<std::string>{"[CUDA memcpy HtoD]", "[CUDA memcpy HtoD]",
                                          "vecAdd(float const*, float const*, float*, int)", "spin(unsigned long long)",
                                          "[CUDA memcpy DtoH]", "[CUDA memcpy DtoD]", "[CUDA memset]",
                                          "spin(unsigned long long)"});
  CHECK(lines[6].substr(18, 37) == "             (40 1 1)       (256 1 1)");
  CHECK(lines[8].substr(87, 8) == "40.960KB");
  CHECK(lines[8].substr(107, 24) == "      Device      Pinned");
  CHECK(lines[12].empty());
  CHECK(lines[13].starts_with("Regs: Number of registers used per CUDA thread."));
  CHECK(lines[18] == prefix + "Profiling result:");
  CHECK(lines[19] == "   Start  Duration  Name");
  std::vector<std::string> calls;
  for (std::size_t i = 20; i < lines.size(); ++i) calls.push_back(lines[i].substr(20, lines[i].find(" (", 20) - 20));
  // The launches and copies, and the module load, allocations, frees and
  // synchronizations among them (apitrace).
  CHECK(calls == std::vector<std::string>{"cuModuleLoadData", "cuMemAlloc", "cuMemAlloc", "cuMemAlloc", "cuMemAlloc", "cuMemAllocHost",
                                          "cuMemcpyHtoD", "cuMemcpyHtoD",
                                          "cuLaunchKernel", "cuStreamSynchronize", "cuLaunchKernel",
                                          "cuMemcpyDtoHAsync", "cuStreamSynchronize", "cuMemcpy", "cuMemsetD8",
                                          "cuLaunchKernel", "cuCtxSynchronize", "cuMemFree", "cuMemFree", "cuMemFree",
                                          "cuMemFree", "cuMemFreeHost"});
}

TEST_CASE("nvprof: --csv --log-file tables read back by Python's csv module and pandas", "[e2e][nvprof-command]") {
  struct Case {
    std::string option;
    std::string expected;
  };
  const auto c = GENERATE(
      Case{"--print-gpu-trace",
           "columns: Start|Duration|Grid X|Grid Y|Grid Z|Block X|Block Y|Block Z|Registers Per Thread|Static SMem|"
           "Dynamic SMem|Size|Throughput|SrcMemType|DstMemType|Device|Context|Stream|Name|Correlation_ID\n"
           "units: ms|ms||||||||B|B|B|GB/s|||||||\n"
           "rows: 8\n"
           "names: [CUDA memcpy DtoD]|[CUDA memcpy DtoH]|[CUDA memcpy HtoD]|[CUDA memset]|spin(unsigned long long)|"
           "vecAdd(float const*, float const*, float*, int)\n"},
      Case{"--print-api-trace",
           "columns: Start|Duration|Name|Correlation_ID\n"
           "units: us|us||\n"
           "rows: 22\n"
           "names: cuModuleLoadData|cudaDeviceSynchronize|cudaFree|cudaFreeHost|cudaLaunchKernel (spin(unsigned long long) [",
           },
      Case{"--print-gpu-summary",
           "columns: Type|Time(%)|Time|Calls|Avg|Min|Max|Name\n"
           "units: |%|ms||ms|ms|ms|\n"
           "rows: 6\n"
           "names: [CUDA memcpy DtoD]|[CUDA memcpy DtoH]|[CUDA memcpy HtoD]|[CUDA memset]|spin(unsigned long long)|"
           "vecAdd(float const*, float const*, float*, int)\n"});
  INFO(c.option);
  // The API trace in microseconds: its calls' longest time may or may not reach a millisecond.
  std::vector<std::string> args = {c.option, "--csv", "--log-file", "out_%p.csv"};
  if (c.option == "--print-api-trace") args.insert(args.end(), {"-u", "us"});
  args.insert(args.end(), {CLIENT_PATH, "runtime", "basic"});
  auto o = nvprof(args);
  const auto r = run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == kClientOutput);
  CHECK(r.err.empty());
  std::string csv;
  for (const auto& f : list_directory(o.directory)) {
    if (f.starts_with("out_")) csv = o.directory + "/" + f;
  }
  REQUIRE(!csv.empty());
  const std::string read = python(READ_NVPROF_CSV_PATH, csv);
  INFO(read);
  CHECK(read.starts_with("preamble: 3 lines\n" + c.expected));
  const auto pandas = read.find("pandas: ");
  REQUIRE(pandas != std::string::npos);
  if (read.find("pandas: not installed") != std::string::npos) {
    WARN("pandas is not installed: the CSV was read by Python's csv module only");
  } else {
    const std::string rows = c.option == "--print-gpu-summary" ? "6" : "8";
    CHECK(read.substr(pandas).starts_with("pandas: " + rows + " rows"));
  }
}

TEST_CASE("nvprof: -o writes the database nvprof's tools read, -f overwrites it, no summary", "[e2e][nvprof-command]") {
  auto o = nvprof({"-o", "prof.nvvp", CLIENT_PATH, "runtime", "basic"});
  const auto first = run(o);
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  const std::string prefix = prefix_of(first.err);
  CHECK(first.err.ends_with(prefix + "Profiling application: " + CLIENT_PATH + " runtime basic\n" + prefix +
                            "Generated result file: " + o.directory + "/prof.nvvp\n"));
  CHECK(lines_of(first.err).size() == 3);
  const std::string read = python(CHECK_NVVP_PATH, o.directory + "/prof.nvvp " + NVPROF_SCHEMA_PATH);
  CHECK(read.find("runtime cbids: 20 x4, 22 x4, 25 x1, 26 x1, 31 x3, 41 x1, 49 x1, 131 x2, 165 x1, 211 x2, 214 x1\n") != std::string::npos);
  CHECK(read.find("joined: 8 GPU rows to their calls, each after its call\n") != std::string::npos);

  const auto again = run(o);
  const std::string again_prefix = prefix_of(again.err);
  CHECK(again.exit_code == 0);
  CHECK(again.err.ends_with(again_prefix + "Profiling application: " + CLIENT_PATH + " runtime basic\n" +
                            again_prefix + "Error: 'prof.nvvp' exists; -f overwrites it\n"));
  o.argv.insert(o.argv.begin() + 2, "-f");
  const auto forced = run(o);
  CHECK(forced.err.ends_with("Generated result file: " + o.directory + "/prof.nvvp\n"));
}

TEST_CASE("nvprof: the launcher run under the name nvprof, --quiet, --profile-from-start off, --kernels",
          "[e2e][nvprof-command]") {
  auto o = nvprof({"--quiet", CLIENT_PATH, "runtime", "basic"});
  std::filesystem::create_symlink(COMPUTEPROF_CLI_PATH, o.directory + "/nvprof");
  o.argv[0] = o.directory + "/nvprof";
  o.argv.erase(o.argv.begin() + 1);  // no "nvprof" word: the name says it
  const auto quiet = run(o);
  INFO(quiet.err);
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.out == kClientOutput);
  CHECK(quiet.err.empty());

  const auto bracket = run(nvprof({"--profile-from-start", "off", "--print-gpu-trace", CLIENT_PATH, "dlsym", "bracket"}));
  INFO(bracket.err);
  CHECK(bracket.exit_code == 0);
  // Only what ran between cuProfilerStart and cuProfilerStop: two spins and a copy.
  CHECK(lines_of(bracket.err).size() == 4 + 3 + 6);

  // --kernels chooses the kernels whose counters are collected, as nvprof's did: all are traced.
  const auto filtered = run(nvprof({"--kernels", "vecAdd", "--events", "inst_executed", "--print-gpu-trace",
                                    CLIENT_PATH, "dlsym", "basic"}));
  INFO(filtered.err);
  CHECK(filtered.exit_code == 0);
  CHECK(filtered.err.find("] spin(") == std::string::npos);
  CHECK(filtered.err.find("  spin(unsigned long long) [") != std::string::npos);
  CHECK(filtered.err.find("  vecAdd(float const*, float const*, float*, int) [") != std::string::npos);
}

TEST_CASE("nvprof: an option computeprof does not have is one error naming it", "[e2e][nvprof-command]") {
  const auto r = run(nvprof({"--analysis-metrics", CLIENT_PATH, "runtime", "basic"}));
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "computeprof: nvprof: option '--analysis-metrics' is not supported (see docs/format.md, \"computeprof "
                 "nvprof\")\n");
}
