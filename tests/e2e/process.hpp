#pragma once
// Runs a program the way a user would, in a directory of its own, with a chosen
// environment, and captures what it printed.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace e2e {

struct RunResult {
  int exit_code = -1;  // 128 + signal when killed
  std::string out;
  std::string err;
};

struct RunOptions {
  std::vector<std::string> argv;
  std::string directory;
  // Set (value) or removed (nullopt) on top of the test's own environment, from which
  // every COMPUTE_PROFILE*, CUDA_PROFILE*, OPENCL_PROFILE* and LD_PRELOAD is removed.
  std::map<std::string, std::optional<std::string>> env;
  std::vector<std::string> preload_before;  // LD_PRELOAD these libraries before the shim
  bool preload_shim = true;   // LD_PRELOAD the shim
  std::vector<std::string> preload_after;  // and these libraries after it
  bool simulated_driver = true;  // the simulated libcuda first on LD_LIBRARY_PATH, the simulated CUPTI
  bool old_driver = false;       // the simulated pre-12.3 driver instead
  int timeout_seconds = 120;
  // Sent from outside once the program has printed this many bytes on stdout (0: none).
  int stop_signal = 0;
  std::size_t stop_after_output_bytes = 0;
};

RunResult run(const RunOptions& options);

// A fresh empty directory under the build tree's scratch space.
std::string make_scratch_directory();

std::string read_file(const std::string& path);
bool file_exists(const std::string& path);
std::vector<std::string> list_directory(const std::string& path);

}  // namespace e2e
