#pragma once
// The config file that --counters produces: the --config file's text, then the counters.
#include <span>
#include <string>
#include <string_view>

namespace computeprof::tools {

// `base_config` followed by one counter name per line. A base that does not end with a
// newline gets one, so that its last line and the first counter stay apart.
std::string counters_config_text(std::string_view base_config, std::span<const std::string> counters);

}  // namespace computeprof::tools
