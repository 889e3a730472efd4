#include "catch.hpp"

#include <string>
#include <vector>

#include "cupti/cupti_library.hpp"

using computeprof::cupti::cupti_library_candidates;
using computeprof::cupti::load_cupti_library;

TEST_CASE("CUPTI is looked for by soname and then in the toolkit", "[cupti_library]") {
  const std::vector<std::string> candidates = cupti_library_candidates(nullptr);
  REQUIRE(candidates.size() == 2);
  CHECK(candidates[0] == "libcupti.so.13");
  CHECK(candidates[1].ends_with("/libcupti.so.13"));
  CHECK(cupti_library_candidates("") == candidates);
}

TEST_CASE("COMPUTEPROF_CUPTI_LIBRARY is the only candidate when set", "[cupti_library]") {
  CHECK(cupti_library_candidates("/opt/cupti/libcupti.so.13") == std::vector<std::string>{"/opt/cupti/libcupti.so.13"});
}

TEST_CASE("the toolkit's libcupti known at build time loads with every function", "[cupti_library]") {
  const std::string toolkit_copy = cupti_library_candidates(nullptr)[1];
  const auto loaded = load_cupti_library(std::vector<std::string>{toolkit_copy});
  INFO(loaded.error);
  REQUIRE(loaded.library);
  CHECK(loaded.error.empty());
  CHECK(loaded.library->path == toolkit_copy);
  CHECK(loaded.library->cuptiProfilerHostGetSupportedChips != nullptr);
  CHECK(loaded.library->result_text(CUPTI_ERROR_INVALID_METRIC_NAME) == "CUPTI_ERROR_INVALID_METRIC_NAME (17)");
}

TEST_CASE("the process's CUPTI loads once from the default candidates", "[cupti_library]") {
  const auto& first = computeprof::cupti::process_cupti();
  INFO(first.error);
  REQUIRE(first.library);
  CHECK(&computeprof::cupti::process_cupti() == &first);
}

TEST_CASE("a missing library gives the loader's reason", "[cupti_library]") {
  const auto loaded = load_cupti_library(std::vector<std::string>{"/nonexistent/libcupti.so.13"});
  CHECK_FALSE(loaded.library);
  CHECK(loaded.error ==
        "libcupti.so.13 not found: /nonexistent/libcupti.so.13: cannot open shared object file: No such file or "
        "directory");
}

TEST_CASE("a library that is not CUPTI names the first function it lacks", "[cupti_library]") {
  const auto loaded = load_cupti_library(std::vector<std::string>{"/nonexistent/libcupti.so.13", "libm.so.6"});
  CHECK_FALSE(loaded.library);
  CHECK(loaded.error ==
        "libcupti.so.13 not found: /nonexistent/libcupti.so.13: cannot open shared object file: No such file or "
        "directory; libm.so.6: has no cuptiGetResultString");
}

TEST_CASE("an empty candidate list loads nothing", "[cupti_library]") {
  const auto loaded = load_cupti_library({});
  CHECK_FALSE(loaded.library);
  CHECK(loaded.error == "libcupti.so.13 not found: no candidate to try");
}
