#pragma once
// What the export sinks' unit tests share: a database's row count as another
// connection reads it, and a warning sink that keeps the lines.
#include <sqlite3.h>

#include <string>
#include <string_view>
#include <vector>

#include "catch.hpp"
#include "shim/output/sqlite_library.hpp"

namespace computeprof::shim::test {

// The rows of `table` another connection reads in the database as it stands.
inline std::string rows_in(const std::string& path, const std::string& table) {
  std::string error;
  const SqliteLibrary* sql = sqlite_library(error);
  REQUIRE(sql);
  sqlite3* db = nullptr;
  REQUIRE(sql->open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  std::string count;
  const int rc = sql->exec(
      db, ("SELECT count(*) FROM " + table).c_str(),
      [](void* out, int, char** values, char**) {
        *static_cast<std::string*>(out) = values[0];
        return 0;
      },
      &count, nullptr);
  sql->close_v2(db);
  REQUIRE(rc == SQLITE_OK);
  return count;
}

// A config::WarningSink keeping each line in the std::vector<std::string> `lines`.
inline void collect(std::string_view line, void* lines) {
  static_cast<std::vector<std::string>*>(lines)->emplace_back(line);
}

}  // namespace computeprof::shim::test
