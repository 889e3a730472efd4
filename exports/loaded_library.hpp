#pragma once
// The libraries the exports use (SQLite, zlib), loaded when an export needs them: a
// DT_NEEDED would load them into every process the shim is preloaded into, profiled
// or not.
#include <dlfcn.h>

#include <string>

namespace computeprof::exports {

// One library being loaded: its handle, and the first reason it cannot be used.
class LibraryLoader {
 public:
  explicit LibraryLoader(const char* soname) : soname_(soname), handle_(dlopen(soname, RTLD_NOW | RTLD_LOCAL)) {
    if (!handle_) {
      const char* why = dlerror();
      error_ = why ? why : std::string(soname) + " cannot be loaded";
    }
  }
  // Resolves `name` into `slot`; false when the library lacks it (the first such is the
  // error).
  template <typename Fn>
  bool resolve(Fn& slot, const char* name) {
    if (!handle_) return false;
    slot = reinterpret_cast<Fn>(dlsym(handle_, name));
    if (!slot && error_.empty()) error_ = std::string(soname_) + " has no " + name;
    return slot != nullptr;
  }
  const std::string& error() const { return error_; }

 private:
  const char* soname_;
  void* handle_;
  std::string error_;
};

// The `Functions` of `soname`, filled by `resolve_all` once for the process; null with
// `error` saying why when they cannot be. Leaked: exports use them until the process ends.
template <typename Functions>
const Functions* load_library_once(const char* soname, bool (*resolve_all)(LibraryLoader&, Functions&),
                                   std::string& error) {
  struct Loaded {
    Functions functions;
    bool ok = false;
    std::string error;
  };
  static const Loaded* loaded = [&] {
    LibraryLoader loader(soname);
    auto* l = new Loaded;
    l->ok = resolve_all(loader, l->functions);
    l->error = loader.error();
    return l;
  }();
  error = loaded->error;
  return loaded->ok ? &loaded->functions : nullptr;
}

}  // namespace computeprof::exports
