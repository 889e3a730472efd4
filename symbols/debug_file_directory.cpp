#include "symbols/debug_file_directory.hpp"

#include <cstdlib>

namespace computeprof::symbols {

const std::string& debug_file_directory() {
  // Leaked: the shim's writer thread may still name a stack while exit handlers run,
  // and a static string would be destroyed under it.
  static const std::string* directory = [] {
    const char* chosen = std::getenv("COMPUTEPROF_DEBUG_FILE_DIRECTORY");
    return new std::string(chosen != nullptr && chosen[0] == '/' ? chosen : "/usr/lib/debug");
  }();
  return *directory;
}

}  // namespace computeprof::symbols
