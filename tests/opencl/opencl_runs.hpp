#pragma once
// Running the OpenCL samples for the tests: each in a fresh directory, with PoCL's
// kernel cache in the build tree, with or without the shim.
#include <string>
#include <vector>

#include "log_reader.hpp"
#include "process.hpp"

namespace e2e {

// Every option that applies to OpenCL records.
inline constexpr const char* kAllOpenCLOptions =
    "timestamp\ngpustarttimestamp\ngpuendtimestamp\nndrangesize\nworkgroupsize\nlocalblocksize\nstreamid\n"
    "memtransfersize\nmemtransferdir\nmemtransferhostmemtype\n";

struct OpenCLRun {
  RunResult result;
  std::string directory;
};

// Runs `program` with `args` in a fresh directory; `config`, when not empty, is written
// there as the file COMPUTE_PROFILE_CONFIG or OPENCL_PROFILE_CONFIG names (set by the
// caller's env to "profile.cfg").
OpenCLRun run_opencl(const std::string& program, std::vector<std::string> args, RunOptions options,
                     const std::string& config = "");

// The log at `name` in the run's directory.
ParsedLog log_of(const OpenCLRun& run, const std::string& name);

// Checks every record: gputime > 0 and, when serialized, <= cputime.
void check_times(const ParsedLog& log, bool serialized);

}  // namespace e2e
