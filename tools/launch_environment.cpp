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

}  // namespace

std::vector<std::string> build_launch_environment(std::span<const std::string> parent,
                                                  const LaunchSettings& settings) {
  std::string preload = settings.shim_path;
  // Libraries preloaded already (sanitizer runtimes, MPI hooks) stay, after the shim. The
  // first entry is the one getenv and the loader see.
  const auto inherited_preload =
      std::ranges::find_if(parent, [](std::string_view entry) { return name_of(entry) == "LD_PRELOAD"; });
  if (inherited_preload != parent.end() && !value_of(*inherited_preload).empty()) {
    preload.append(":").append(value_of(*inherited_preload));
  }

  std::vector<std::pair<std::string_view, std::string>> assignments;
  assignments.emplace_back("LD_PRELOAD", std::move(preload));
  assignments.emplace_back("COMPUTE_PROFILE", "1");
  if (settings.csv) assignments.emplace_back("COMPUTE_PROFILE_CSV", "1");
  if (settings.log_path) assignments.emplace_back("COMPUTE_PROFILE_LOG", *settings.log_path);
  if (settings.config_path) assignments.emplace_back("COMPUTE_PROFILE_CONFIG", *settings.config_path);
  if (settings.config_name) assignments.emplace_back("COMPUTEPROF_CONFIG_NAME", *settings.config_name);
  assignments.emplace_back("COMPUTEPROF_LOG_INDEX", settings.log_index_path);

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
