#include "exports/sqlite_library.hpp"

#include "exports/loaded_library.hpp"

namespace computeprof::exports {
namespace {

// Every function, the first missing one the error (`&`, not `&&`: all are tried).
bool resolve_all(LibraryLoader& l, SqliteLibrary& s) {
  return l.resolve(s.open_v2, "sqlite3_open_v2") & l.resolve(s.close_v2, "sqlite3_close_v2") &
         l.resolve(s.exec, "sqlite3_exec") & l.resolve(s.prepare_v2, "sqlite3_prepare_v2") &
         l.resolve(s.bind_int64, "sqlite3_bind_int64") & l.resolve(s.bind_double, "sqlite3_bind_double") &
         l.resolve(s.bind_text, "sqlite3_bind_text") & l.resolve(s.bind_null, "sqlite3_bind_null") &
         l.resolve(s.bind_blob, "sqlite3_bind_blob") & l.resolve(s.step, "sqlite3_step") &
         l.resolve(s.reset, "sqlite3_reset") & l.resolve(s.finalize, "sqlite3_finalize") &
         l.resolve(s.errmsg, "sqlite3_errmsg");
}

}  // namespace

const SqliteLibrary* sqlite_library(std::string& error) {
  return load_library_once<SqliteLibrary>("libsqlite3.so.0", resolve_all, error);
}

}  // namespace computeprof::exports
