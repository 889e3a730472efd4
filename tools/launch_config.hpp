#pragma once
// The config file the launcher gives the application when its options add config lines
// (--counters, --export, --kernels, ...): the --config file's text, then those lines.
#include <span>
#include <string>
#include <string_view>

namespace computeprof::tools {

// `base_config` followed by one line each of `lines`. A base that does not end with a
// newline gets one, so that its last line and the first added one stay apart.
std::string launch_config_text(std::string_view base_config, std::span<const std::string> lines);

}  // namespace computeprof::tools
