#pragma once
// What the export writers' unit tests share: a run's facts and files as the shim
// would have them, a database's row count as another connection reads it, and a
// warning sink that keeps the lines.
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "exports/output_files.hpp"
#include "exports/run_facts.hpp"
#include "exports/sqlite_library.hpp"
#include "logfmt/export_path.hpp"
#include "records/range_table.hpp"

namespace computeprof::exports::test {

// The files of the exports at their paths made from `log_template` (the shim's, less
// its claims and process suffixes), and this process's facts.
struct ExportRun : OutputFiles {
  explicit ExportRun(std::string path_template) : log_template(std::move(path_template)) {
    facts.pid = static_cast<std::uint64_t>(getpid());
    facts.program_name = program_invocation_short_name;
    facts.ranges = &records::range_table();
  }
  bool open(logfmt::LogFile& file, std::string_view extension) override {
    return static_cast<bool>(file.open(logfmt::export_path_template(log_template, extension)));
  }

  std::string log_template;
  RunFacts facts;
};

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

}  // namespace computeprof::exports::test
