#include "catch.hpp"

#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "config/counters.hpp"
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
