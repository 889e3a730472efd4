#include "catch.hpp"

#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "config/counters.hpp"
#include "tools/command_line.hpp"
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

TEST_CASE("the help lists every config option with its config line's meaning", "[usage]") {
  const std::string text = computeprof::tools::usage_text();
  for (const auto& option : computeprof::tools::config_options()) {
    INFO(option.flag);
    CHECK(text.find("\n  " + std::string(option.flag)) != std::string::npos);
    CHECK(text.find(std::string(option.help) + "\n") != std::string::npos);
  }
  CHECK(text.find("\n  --kernel-filter-scope SCOPE\n                      counters (default: only counters filtered) or all\n") !=
        std::string::npos);
  CHECK(text.find("\n  --callstack[=DEPTH]\n                      the call stack of each operation (default depth 32)\n") !=
        std::string::npos);
  CHECK(text.find("\n  --export FORMATS    json, sqlite or json,sqlite: files of the whole process\n") != std::string::npos);
}
