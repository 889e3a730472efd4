#include "symbols/libdw_library.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace computeprof::symbols {
namespace {

struct Loaded {
  LibdwLibrary functions;
  bool ok = false;
  std::string why;
};

Loaded load() {
  Loaded out;
  const char* chosen = std::getenv("COMPUTEPROF_LIBDW_LIBRARY");
  const std::string name = chosen != nullptr && *chosen != '\0' ? chosen : "libdw.so.1";
  void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = dlerror();
    out.why = error ? error : name + ": cannot be opened";
    return out;
  }
  bool all = true;
#define COMPUTEPROF_LIBDW_FUNCTION(function)                                                   \
  out.functions.function = reinterpret_cast<decltype(&::function)>(dlsym(library, #function)); \
  if (out.functions.function == nullptr && all) {                                             \
    all = false;                                                                               \
    out.why = name + ": has no " #function;                                                    \
  }
#include "symbols/libdw_functions.def"
#undef COMPUTEPROF_LIBDW_FUNCTION
  out.ok = all;
  return out;
}

}  // namespace

const LibdwLibrary* libdw_library(std::string* why) {
  static const Loaded loaded = load();
  if (why != nullptr) *why = loaded.why;
  return loaded.ok ? &loaded.functions : nullptr;
}

}  // namespace computeprof::symbols
