#pragma once
// SQLite (Debian's libsqlite3-0), loaded when an `export sqlite` or `export nvprof`
// needs it (loaded_library.hpp).
#include <sqlite3.h>

#include <string>

namespace computeprof::exports {

struct SqliteLibrary {
  decltype(&::sqlite3_open_v2) open_v2 = nullptr;
  decltype(&::sqlite3_close_v2) close_v2 = nullptr;
  decltype(&::sqlite3_exec) exec = nullptr;
  decltype(&::sqlite3_prepare_v2) prepare_v2 = nullptr;
  decltype(&::sqlite3_bind_int64) bind_int64 = nullptr;
  decltype(&::sqlite3_bind_double) bind_double = nullptr;
  decltype(&::sqlite3_bind_text) bind_text = nullptr;
  decltype(&::sqlite3_bind_null) bind_null = nullptr;
  decltype(&::sqlite3_bind_blob) bind_blob = nullptr;
  decltype(&::sqlite3_step) step = nullptr;
  decltype(&::sqlite3_reset) reset = nullptr;
  decltype(&::sqlite3_finalize) finalize = nullptr;
  decltype(&::sqlite3_errmsg) errmsg = nullptr;
};

// Loaded once; null with `error` saying why when it cannot be.
const SqliteLibrary* sqlite_library(std::string& error);

}  // namespace computeprof::exports
