#pragma once
// Shared by the end-to-end tests: running the test client and the samples under the
// shim, and the config texts they use.
#include <string>
#include <vector>

#include "log_reader.hpp"
#include "process.hpp"

namespace e2e {

// Every option that applies to CUDA records, so every field can be checked.
inline constexpr const char* kAllOptions =
    "timestamp\ngpustarttimestamp\ngpuendtimestamp\ngridsize3d\nthreadblocksize\ndynsmemperblock\n"
    "stasmemperblock\nregperthread\nmemtransferdir\nmemtransfersize\nmemtransferhostmemtype\nstreamid\n";

// A run in a fresh directory with COMPUTE_PROFILE=1 and, when `config` is not empty,
// that text as its config file.
RunOptions profiling(const std::string& config = "");

// The methods of a log's records, in order.
using Methods = std::vector<std::string>;
Methods methods(const ParsedLog& log);

// Writes `text` as a config file in `directory` and returns its path.
std::string write_config(const std::string& directory, const std::string& text);

// driver_client <reach> <scenario> in a fresh directory (returned in `directory`).
RunResult run_client(const std::string& reach, const std::string& scenario, RunOptions options = {},
                     std::vector<std::string> extra_args = {});

// Rank `rank` of a job of `world_size` ranks: driver_client linked basic under
// `config`, its files named rank_<rank> in `directory` (made by the first call: empty
// before it).
RunResult run_rank(std::string& directory, int rank, int world_size, const std::string& config);

// memory_client <reach> <scenario> (tests/e2e/memory_client.cpp).
RunResult run_memory_client(const std::string& reach, const std::string& scenario, RunOptions options);

// What a shell command printed, its stderr after its stdout, and its exit status (-1 when
// it did not exit).
struct CommandOutput {
  std::string out;
  int exit_code = -1;
};
CommandOutput command_output(const std::string& command);

// The value printed on a "<prefix> <value>" line of `out`.
std::string printed_value(const std::string& out, const std::string& prefix);

// How many times `what` occurs in `text` (overlapping ones too).
std::size_t count_of(const std::string& text, const std::string& what);

}  // namespace e2e
