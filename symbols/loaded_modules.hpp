#pragma once
// The objects loaded in this process (dl_iterate_phdr): where each lies in memory, its
// file and the build-id of the image in memory, which a file on disk must have to name
// its frames (it may have been replaced since it was loaded).
#include <cstdint>
#include <string>
#include <vector>

namespace computeprof::symbols {

struct LoadedModule {
  std::string path;          // the program's own: /proc/self/exe's target
  std::uintptr_t start = 0;  // its first byte in memory: offsets count from here
  std::uintptr_t end = 0;    // past its last mapped byte
  std::string build_id;      // lowercase hex, "" where the image has none
};

class LoadedModules {
 public:
  // The module that holds `address`, nullptr for none; the list is read again (once
  // per call) when no module known holds it: a library loaded since.
  const LoadedModule* find(std::uintptr_t address);

 private:
  void refresh();
  std::vector<LoadedModule> modules_;
};

}  // namespace computeprof::symbols
