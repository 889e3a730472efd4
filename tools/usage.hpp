#pragma once
// The text of `computeprof --help`.
#include <string>

namespace computeprof::tools {

std::string usage_text();

}  // namespace computeprof::tools
