#include "tools/launch_environment.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

namespace computeprof::tools {
namespace {

std::string_view name_of(std::string_view entry) { return entry.substr(0, entry.find('=')); }

std::string_view value_of(std::string_view entry) {
  const std::size_t equals = entry.find('=');
  return equals == std::string_view::npos ? std::string_view() : entry.substr(equals + 1);
}

// libasan.so.8, /usr/lib/.../libtsan.so.2, libclang_rt.asan-x86_64.so, ...
bool is_sanitizer_runtime(std::string_view library) {
  const std::string_view file = library.substr(library.rfind('/') + 1);
  for (std::string_view runtime : {"libasan.", "libtsan.", "libmsan.", "liblsan.", "libubsan.", "libhwasan.",
                                   "libclang_rt.asan", "libclang_rt.tsan", "libclang_rt.msan", "libclang_rt.ubsan",
                                   "libclang_rt.hwasan"}) {
    if (file.starts_with(runtime)) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> build_launch_environment(std::span<const std::string> parent,
                                                  const LaunchSettings& settings) {
  // Libraries preloaded already stay: sanitizer runtimes first (they abort unless they
  // come first in the initial library list), then the shim, then the others (MPI hooks,
  // other tools). The first LD_PRELOAD entry is the one getenv and the loader see.
  std::string runtimes, others;
  const auto inherited_preload =
      std::ranges::find_if(parent, [](std::string_view entry) { return name_of(entry) == "LD_PRELOAD"; });
  if (inherited_preload != parent.end()) {
    std::string_view list = value_of(*inherited_preload);
    while (!list.empty()) {
      const std::size_t end = list.find_first_of(": ");
      const std::string_view library = list.substr(0, end);
      list = end == std::string_view::npos ? std::string_view() : list.substr(end + 1);
      if (library.empty()) continue;
      std::string& group = is_sanitizer_runtime(library) ? runtimes : others;
      group.append(group.empty() ? "" : ":").append(library);
    }
  }
  std::string preload = runtimes;
  preload.append(preload.empty() ? "" : ":").append(settings.shim_path);
  if (!others.empty()) preload.append(":").append(others);

  std::vector<std::pair<std::string_view, std::string>> assignments;
  assignments.emplace_back("LD_PRELOAD", std::move(preload));
  assignments.emplace_back("COMPUTE_PROFILE", "1");
  if (settings.csv) assignments.emplace_back("COMPUTE_PROFILE_CSV", "1");
  if (settings.log_path) assignments.emplace_back("COMPUTE_PROFILE_LOG", *settings.log_path);
  if (settings.config_path) assignments.emplace_back("COMPUTE_PROFILE_CONFIG", *settings.config_path);
  if (settings.config_name) assignments.emplace_back("COMPUTEPROF_CONFIG_NAME", *settings.config_name);
  assignments.emplace_back("COMPUTEPROF_LOG_INDEX", settings.log_index_path);
  // NVTX's loader finds the shim's InitializeInjectionNvtx2 here, unless another tool
  // holds NVTX already (the shim says so when it loads).
  const bool nvtx_held =
      std::ranges::any_of(parent, [](std::string_view entry) { return name_of(entry) == "NVTX_INJECTION64_PATH"; });
  if (!nvtx_held) assignments.emplace_back("NVTX_INJECTION64_PATH", settings.shim_path);

  std::vector<std::string> environment;
  for (const std::string& entry : parent) {
    const bool assigned = std::ranges::any_of(
        assignments, [&](const auto& assignment) { return name_of(entry) == assignment.first; });
    if (!assigned) environment.push_back(entry);
  }
  for (const auto& [name, value] : assignments) {
    environment.push_back(std::string(name).append("=").append(value));
  }
  return environment;
}

}  // namespace computeprof::tools
