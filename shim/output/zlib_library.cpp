#include "shim/output/zlib_library.hpp"

#include <dlfcn.h>

namespace computeprof::shim {
namespace {

struct Loaded {
  ZlibLibrary library;
  bool ok = false;
  std::string error;
};

template <typename Fn>
bool resolve(void* handle, Fn& slot, const char* name, std::string& error) {
  slot = reinterpret_cast<Fn>(dlsym(handle, name));
  if (!slot && error.empty()) error = std::string("libz.so.1 has no ") + name;
  return slot != nullptr;
}

Loaded load() {
  Loaded l;
  void* handle = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    l.error = why ? why : "libz.so.1 cannot be loaded";
    return l;
  }
  ZlibLibrary& z = l.library;
  l.ok = resolve(handle, z.deflate_init2, "deflateInit2_", l.error) & resolve(handle, z.deflate, "deflate", l.error) &
         resolve(handle, z.deflate_reset, "deflateReset", l.error) &
         resolve(handle, z.deflate_end, "deflateEnd", l.error) & resolve(handle, z.version, "zlibVersion", l.error);
  return l;
}

}  // namespace

const ZlibLibrary* zlib_library(std::string& error) {
  // Leaked: sinks use it until the process ends.
  static const Loaded* loaded = new Loaded(load());
  error = loaded->error;
  return loaded->ok ? &loaded->library : nullptr;
}

}  // namespace computeprof::shim
