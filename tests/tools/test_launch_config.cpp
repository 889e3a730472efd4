#include "catch.hpp"

#include <string>
#include <vector>

#include "tools/counters_config.hpp"

using computeprof::tools::counters_config_text;
using Counters = std::vector<std::string>;

TEST_CASE("counters alone are one name per line", "[counters_config]") {
  CHECK(counters_config_text("", Counters{"inst_executed", "gld_request"}) == "inst_executed\ngld_request\n");
}

TEST_CASE("counters follow the --config file's text", "[counters_config]") {
  CHECK(counters_config_text("# mine\ntimestamp\nbranch\n", Counters{"inst_executed"}) ==
        "# mine\ntimestamp\nbranch\ninst_executed\n");
}

TEST_CASE("a config text without a final newline gets one before the counters", "[counters_config]") {
  CHECK(counters_config_text("gridsize", Counters{"branch"}) == "gridsize\nbranch\n");
  CHECK(counters_config_text("gridsize\r\n", Counters{"branch"}) == "gridsize\r\nbranch\n");
}

TEST_CASE("without counters the config text only gets its final newline", "[counters_config]") {
  CHECK(counters_config_text("gridsize", Counters{}) == "gridsize\n");
  CHECK(counters_config_text("", Counters{}) == "");
}
