#include "shim/output/sqlite_library.hpp"

#include <dlfcn.h>

#include <mutex>


namespace computeprof::shim {
namespace {

struct Loaded {
  SqliteLibrary library;
  bool ok = false;
  std::string error;
};

template <typename Fn>
bool resolve(void* handle, Fn& slot, const char* name, std::string& error) {
  slot = reinterpret_cast<Fn>(dlsym(handle, name));
  if (!slot && error.empty()) error = std::string("libsqlite3.so.0 has no ") + name;
  return slot != nullptr;
}

Loaded load() {
  Loaded l;
  void* handle = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    l.error = why ? why : "libsqlite3.so.0 cannot be loaded";
    return l;
  }
  SqliteLibrary& s = l.library;
  l.ok = resolve(handle, s.open_v2, "sqlite3_open_v2", l.error) & resolve(handle, s.close_v2, "sqlite3_close_v2", l.error) &
         resolve(handle, s.exec, "sqlite3_exec", l.error) & resolve(handle, s.prepare_v2, "sqlite3_prepare_v2", l.error) &
         resolve(handle, s.bind_int64, "sqlite3_bind_int64", l.error) &
         resolve(handle, s.bind_double, "sqlite3_bind_double", l.error) &
         resolve(handle, s.bind_text, "sqlite3_bind_text", l.error) &
         resolve(handle, s.bind_null, "sqlite3_bind_null", l.error) &
         resolve(handle, s.bind_blob, "sqlite3_bind_blob", l.error) & resolve(handle, s.step, "sqlite3_step", l.error) &
         resolve(handle, s.reset, "sqlite3_reset", l.error) & resolve(handle, s.finalize, "sqlite3_finalize", l.error) &
         resolve(handle, s.errmsg, "sqlite3_errmsg", l.error);
  return l;
}

}  // namespace

const SqliteLibrary* sqlite_library(std::string& error) {
  // Leaked: sinks use it until the process ends.
  static const Loaded* loaded = new Loaded(load());
  error = loaded->error;
  return loaded->ok ? &loaded->library : nullptr;
}

}  // namespace computeprof::shim
