#pragma once
// Where separate debug files are kept (docs/format.md, "Call stacks").
#include <string>

namespace computeprof::symbols {

// COMPUTEPROF_DEBUG_FILE_DIRECTORY where set to an absolute path, else /usr/lib/debug.
// Read once.
const std::string& debug_file_directory();

}  // namespace computeprof::symbols
