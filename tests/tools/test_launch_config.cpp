#include "catch.hpp"

#include <string>
#include <vector>

#include "tools/launch_config.hpp"

using computeprof::tools::launch_config_text;
using Lines = std::vector<std::string>;

TEST_CASE("counters alone are one name per line", "[launch_config]") {
  CHECK(launch_config_text("", Lines{"inst_executed", "gld_request"}) == "inst_executed\ngld_request\n");
}

TEST_CASE("counters follow the --config file's text", "[launch_config]") {
  CHECK(launch_config_text("# mine\ntimestamp\nbranch\n", Lines{"inst_executed"}) ==
        "# mine\ntimestamp\nbranch\ninst_executed\n");
}

TEST_CASE("a config text without a final newline gets one before the counters", "[launch_config]") {
  CHECK(launch_config_text("gridsize", Lines{"branch"}) == "gridsize\nbranch\n");
  CHECK(launch_config_text("gridsize\r\n", Lines{"branch"}) == "gridsize\r\nbranch\n");
}

TEST_CASE("without counters the config text only gets its final newline", "[launch_config]") {
  CHECK(launch_config_text("gridsize", Lines{}) == "gridsize\n");
  CHECK(launch_config_text("", Lines{}) == "");
}
