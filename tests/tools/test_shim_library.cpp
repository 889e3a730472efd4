#include "catch.hpp"

#include <filesystem>
#include <fstream>
#include <vector>

#include "scratch_directory.hpp"
#include "tools/launch_error.hpp"
#include "tools/shim_library.hpp"

using computeprof::tools::installed_library_directory;
using computeprof::tools::LaunchError;
using computeprof::tools::locate_shim;
using computeprof::tools::shim_candidates;
using Paths = std::vector<std::filesystem::path>;

namespace {

void create_file(const std::filesystem::path& path) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path).put('\n');
}

}  // namespace

TEST_CASE("without a choice the installed layout comes before the build tree", "[shim_library]") {
  CHECK(shim_candidates(std::nullopt, "/opt/cp/bin/computeprof", "../lib") ==
        Paths{"/opt/cp/lib/libcomputeprof.so", "/opt/cp/shim/libcomputeprof.so"});
}

TEST_CASE("the installed library is where CMake's libdir is, relative to bindir", "[shim_library]") {
  // COMPUTEPROF_BIN_TO_LIB: file(RELATIVE_PATH) of the configured GNUInstallDirs.
  CHECK(installed_library_directory() == COMPUTEPROF_BIN_TO_LIB);
  CHECK(shim_candidates(std::nullopt, "/opt/cp/bin/computeprof") ==
        Paths{(std::filesystem::path("/opt/cp/bin") / COMPUTEPROF_BIN_TO_LIB / "libcomputeprof.so").lexically_normal(),
              "/opt/cp/shim/libcomputeprof.so"});
  CHECK(shim_candidates(std::nullopt, "/usr/bin/computeprof", "../lib64") ==
        Paths{"/usr/lib64/libcomputeprof.so", "/usr/shim/libcomputeprof.so"});
  CHECK(shim_candidates(std::nullopt, "/usr/bin/computeprof", "../lib/x86_64-linux-gnu") ==
        Paths{"/usr/lib/x86_64-linux-gnu/libcomputeprof.so", "/usr/shim/libcomputeprof.so"});
  CHECK(shim_candidates(std::nullopt, "/opt/cp/computeprof", ".") ==
        Paths{"/opt/cp/libcomputeprof.so", "/opt/shim/libcomputeprof.so"});
}

TEST_CASE("COMPUTEPROF_LIBRARY is the only candidate, made absolute", "[shim_library]") {
  CHECK(shim_candidates("/x/../y/libcomputeprof.so", "/opt/cp/bin/computeprof") == Paths{"/y/libcomputeprof.so"});
  CHECK(shim_candidates("libcp.so", "/opt/cp/bin/computeprof") ==
        Paths{(std::filesystem::current_path() / "libcp.so").lexically_normal()});
}

TEST_CASE("the first existing candidate is chosen", "[shim_library]") {
  const ScratchDirectory scratch;
  const Paths candidates{scratch.path() / "lib/libcomputeprof.so", scratch.path() / "shim/libcomputeprof.so"};
  create_file(candidates[1]);
  CHECK(locate_shim(candidates) == candidates[1]);
  create_file(candidates[0]);
  CHECK(locate_shim(candidates) == candidates[0]);
}

TEST_CASE("no existing candidate is an error naming them all", "[shim_library]") {
  const Paths candidates{"/nonexistent/lib/libcomputeprof.so", "/nonexistent/shim/libcomputeprof.so"};
  CHECK_THROWS_WITH(locate_shim(candidates),
                    "cannot find libcomputeprof.so (tried /nonexistent/lib/libcomputeprof.so, "
                    "/nonexistent/shim/libcomputeprof.so); set COMPUTEPROF_LIBRARY to its path");
}

TEST_CASE("a path LD_PRELOAD would split is an error", "[shim_library]") {
  const ScratchDirectory scratch;
  const std::filesystem::path library = scratch.path() / "a:b" / "libcomputeprof.so";
  create_file(library);
  CHECK_THROWS_AS(locate_shim(Paths{library}), LaunchError);
}
