#pragma once
// The environment the profiled application starts with, computed from the launcher's own.
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace computeprof::tools {

struct LaunchSettings {
  std::string shim_path;                   // put first in LD_PRELOAD
  std::string log_index_path;              // COMPUTEPROF_LOG_INDEX
  bool csv = false;                        // COMPUTE_PROFILE_CSV=1 when set
  std::optional<std::string> log_path;     // COMPUTE_PROFILE_LOG
  std::optional<std::string> config_path;  // COMPUTE_PROFILE_CONFIG
  std::optional<std::string> config_name;  // COMPUTEPROF_CONFIG_NAME: the config file as warnings name it
};

// `parent` holds "NAME=value" entries (the launcher's environ). The result keeps every
// entry the settings do not name, in order, then appends those they do: LD_PRELOAD (any
// sanitizer runtime it held, the shim, then the rest of its earlier value), COMPUTE_PROFILE=1, COMPUTE_PROFILE_CSV,
// COMPUTE_PROFILE_LOG, COMPUTE_PROFILE_CONFIG, COMPUTEPROF_CONFIG_NAME,
// COMPUTEPROF_LOG_INDEX, NVTX_INJECTION64_PATH (the shim, unless it is set). A variable left
// unset by the settings (no --csv, no -o, no config) keeps its inherited value.
std::vector<std::string> build_launch_environment(std::span<const std::string> parent,
                                                  const LaunchSettings& settings);

}  // namespace computeprof::tools
