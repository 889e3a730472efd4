#include "tools/shim_library.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "tools/launch_error.hpp"

// Set by tools/CMakeLists.txt from GNUInstallDirs.
#ifndef COMPUTEPROF_BIN_TO_LIB
#define COMPUTEPROF_BIN_TO_LIB "../lib"
#endif

namespace computeprof::tools {

std::string_view installed_library_directory() { return COMPUTEPROF_BIN_TO_LIB; }

std::vector<std::filesystem::path> shim_candidates(std::optional<std::string_view> explicit_choice,
                                                   const std::filesystem::path& executable,
                                                   std::string_view bin_to_lib) {
  if (explicit_choice) return {std::filesystem::absolute(*explicit_choice).lexically_normal()};
  const std::filesystem::path directory = executable.parent_path();
  return {(directory / bin_to_lib / "libcomputeprof.so").lexically_normal(),
          (directory / "../shim/libcomputeprof.so").lexically_normal()};
}

std::filesystem::path locate_shim(std::span<const std::filesystem::path> candidates) {
  for (const std::filesystem::path& candidate : candidates) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(candidate, error)) continue;
    if (candidate.native().find_first_of(": \t\n") != std::string::npos) {
      throw LaunchError(fmt::format("cannot preload '{}': LD_PRELOAD cannot hold a path with ':' or white space",
                                    candidate.native()));
    }
    return candidate;
  }
  std::string tried;
  for (const std::filesystem::path& candidate : candidates) {
    tried.append(tried.empty() ? "" : ", ").append(candidate.native());
  }
  throw LaunchError(
      fmt::format("cannot find libcomputeprof.so (tried {}); set COMPUTEPROF_LIBRARY to its path", tried));
}

std::filesystem::path find_shim() {
  const char* explicit_choice = std::getenv("COMPUTEPROF_LIBRARY");
  std::optional<std::string_view> choice;
  if (explicit_choice != nullptr && *explicit_choice != '\0') choice = explicit_choice;
  std::error_code error;
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
  return locate_shim(shim_candidates(choice, executable));
}

}  // namespace computeprof::tools
