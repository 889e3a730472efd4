#pragma once
// Where libcomputeprof.so is, for LD_PRELOAD.
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace computeprof::tools {

// Where an install puts the library, relative to the directory of the command: CMake's
// path from CMAKE_INSTALL_BINDIR to CMAKE_INSTALL_LIBDIR ("../lib", "../lib64",
// "../lib/x86_64-linux-gnu").
std::string_view installed_library_directory();

// The paths to try, best first. An explicit choice (COMPUTEPROF_LIBRARY) is the only
// candidate: silently preloading another build than the one asked for would mislead.
// Otherwise, relative to the computeprof executable: bin_to_lib (installed) and ../shim
// (the build tree). Paths are absolute, so an application that changes directory and
// starts other programs still preloads the same file.
std::vector<std::filesystem::path> shim_candidates(std::optional<std::string_view> explicit_choice,
                                                   const std::filesystem::path& executable,
                                                   std::string_view bin_to_lib = installed_library_directory());

// The first candidate that exists. Throws LaunchError naming every candidate when none
// does, or when the path cannot be put in LD_PRELOAD (it splits at ':' and white space).
std::filesystem::path locate_shim(std::span<const std::filesystem::path> candidates);

// The library this computeprof preloads: COMPUTEPROF_LIBRARY's, else the one beside the
// running executable (installed, or in the build tree). Throws LaunchError.
std::filesystem::path find_shim();

}  // namespace computeprof::tools
