#pragma once
// Config text parsed by the launcher for itself: the parser's warnings are collected, not
// printed (a flag's problem is a usage error; a config file's are the shim's to tell).
#include <string>
#include <string_view>
#include <vector>

#include "config/profile_config.hpp"

namespace computeprof::tools {

struct ParsedConfigText {
  config::ProfileConfig config;
  std::vector<std::string> problems;  // the warnings, without the "computeprof: " prefix
};

ParsedConfigText parse_config_text(std::string_view text, std::string_view source);

}  // namespace computeprof::tools
