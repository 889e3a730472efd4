#include "tools/config_text.hpp"

#include "config/report.hpp"

namespace computeprof::tools {

ParsedConfigText parse_config_text(std::string_view text, std::string_view source) {
  ParsedConfigText parsed;
  config::set_warning_sink(
      [](std::string_view warning, void* user) { static_cast<std::vector<std::string>*>(user)->emplace_back(warning); },
      &parsed.problems);
  parsed.config = config::parse_profile_config(text, source);
  config::set_warning_sink(nullptr, nullptr);
  return parsed;
}

}  // namespace computeprof::tools
