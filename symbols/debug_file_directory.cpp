#include "symbols/debug_file_directory.hpp"

#include <cstdlib>

namespace computeprof::symbols {

const std::string& debug_file_directory() {
  static const std::string directory = [] {
    const char* chosen = std::getenv("COMPUTEPROF_DEBUG_FILE_DIRECTORY");
    return chosen != nullptr && chosen[0] == '/' ? std::string(chosen) : std::string("/usr/lib/debug");
  }();
  return directory;
}

}  // namespace computeprof::symbols
