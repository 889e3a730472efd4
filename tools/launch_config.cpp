#include "tools/counters_config.hpp"

namespace computeprof::tools {

std::string counters_config_text(std::string_view base_config, std::span<const std::string> counters) {
  std::string text(base_config);
  if (!text.empty() && text.back() != '\n') text.push_back('\n');
  for (const std::string& counter : counters) text.append(counter).push_back('\n');
  return text;
}

}  // namespace computeprof::tools
