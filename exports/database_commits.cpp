#include "exports/database_commits.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "config/report.hpp"

namespace computeprof::exports {

DatabaseOpen open_export_database(std::string_view format, OutputFiles& files, std::string_view extension,
                                  const SqliteLibrary*& sql, sqlite3*& db, logfmt::LogFile& file) {
  std::string error;
  sql = sqlite_library(error);
  if (!sql) {
    config::warn(fmt::format("export {}: {}; no database is written", format, error));
    return DatabaseOpen::not_made;
  }
  if (!files.open(file, extension)) return DatabaseOpen::not_made;
  ::unlink((file.path() + "-journal").c_str());
  if (sql->open_v2(file.path().c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX,
                   nullptr) != SQLITE_OK) {
    return DatabaseOpen::not_opened;
  }
  return DatabaseOpen::opened;
}

void DatabaseCommits::committed(const std::string& path, std::uint64_t limit) {
  struct stat st{};
  if (limit != 0 && ::stat(path.c_str(), &st) == 0 && static_cast<std::uint64_t>(st.st_size) >= limit) {
    at_limit_ = true;
  }
}

void DatabaseCommits::report(std::string_view format, const std::string& path, std::uint64_t limit) const {
  if (left_out_ == 0) return;
  config::warn(fmt::format("export {} '{}' stopped at the export limit of {} bytes: {} records left out of it", format,
                           path, limit, left_out_));
}

}  // namespace computeprof::exports
