#include "catch.hpp"

#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "config/counters.hpp"
#include "tools/options.hpp"
#include "tools/usage.hpp"

TEST_CASE("the help ends with every legacy counter, in column order", "[usage]") {
  const std::string text = computeprof::tools::usage_text();
  const std::size_t section = text.find("\nCounters:\n");
  REQUIRE(section != std::string::npos);
  std::istringstream words(text.substr(section + std::string("\nCounters:\n").size()));
  const std::vector<std::string> listed{std::istream_iterator<std::string>(words), {}};
  std::vector<std::string> expected;
  for (const auto& counter : computeprof::config::legacy_counters()) expected.emplace_back(counter.name);
  CHECK(listed == expected);
}

TEST_CASE("the help fits in 80 columns", "[usage]") {
  std::istringstream lines(computeprof::tools::usage_text());
  for (std::string line; std::getline(lines, line);) CHECK(line.size() <= 80);
}

TEST_CASE("the help lists every option of the table, a config option on one line", "[usage]") {
  const std::string text = computeprof::tools::usage_text();
  for (const auto& option : computeprof::tools::options()) {
    INFO(option.long_name);
    const std::string short_name = option.short_name == '\0' ? "" : std::string("-") + option.short_name + ", ";
    CHECK(text.find("\n  " + short_name + "--" + option.long_name) != std::string::npos);
    if (option.effect == computeprof::tools::Option::Effect::config_line) {
      CHECK(text.find(std::string(option.help) + "\n") != std::string::npos);
    }
  }
  CHECK(text.find("\n  --kernel-filter-scope SCOPE\n                      counters (default: only counters filtered) or all\n") !=
        std::string::npos);
  CHECK(text.find("\n  --callstack[=DEPTH]\n                      the call stack of each operation (default depth 32)\n") !=
        std::string::npos);
  CHECK(text.find("\n  --export FORMATS    json json.gz pftrace sqlite nvprof cprof, joined by commas\n") != std::string::npos);
}

TEST_CASE("the help lists the command's own options, a longer help on lines of its own", "[usage]") {
  const std::string text = computeprof::tools::usage_text();
  CHECK(text.find("\nOptions:\n"
                  "  --csv               comma-separated log (COMPUTE_PROFILE_CSV=1)\n"
                  "  -o, --output PATH   log path (COMPUTE_PROFILE_LOG); %d device, %p process id,\n"
                  "                      %h host name, %q{NAME} environment variable NAME, %% a %\n"
                  "  --config FILE       options and counters to use (COMPUTE_PROFILE_CONFIG)\n"
                  "  --counters a,b,...  counters to collect, in addition to those of --config\n"
                  "  --query-counters    list each counter, its metric on today's GPUs and whether\n"
                  "                      the chip has it; with --config or --counters, also the\n"
                  "                      passes those counters need (CUPTI, no GPU needed)\n"
                  "  --chip NAME         the chip --query-counters asks about (default GH100)\n"
                  "  --version           print the version\n"
                  "  -h, --help          print this help\n"
                  "\n"
                  "Config options (each is a line of the config file, added to --config's):\n"
                  "  --conckerneltrace   kernels and copies not serialized, streams overlap\n") != std::string::npos);
}
