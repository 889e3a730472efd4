#include "tools/launch_config.hpp"

namespace computeprof::tools {

std::string launch_config_text(std::string_view base_config, std::span<const std::string> lines) {
  std::string text(base_config);
  if (!text.empty() && text.back() != '\n') text.push_back('\n');
  for (const std::string& line : lines) text.append(line).push_back('\n');
  return text;
}

}  // namespace computeprof::tools
