#pragma once
// What the export databases (nsys-shaped and nvprof-shaped) share: how their file is
// opened (open_export_database), and when they commit and stop (DatabaseCommits).
// When an export database commits and when it stops (docs/format.md, "Exports"),
// shared by the nsys-shaped and the nvprof-shaped databases: a transaction is committed
// once it holds kExportBatchRows rows or is kExportBatchAge old (export_batch.hpp), and
// at every flush point; with `exportlimit`, the database takes no record after the first
// commit that leaves its file at or past the limit, and counts what it leaves out.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "logfmt/log_file.hpp"
#include "exports/export_batch.hpp"
#include "exports/output_files.hpp"
#include "exports/sqlite_library.hpp"

namespace computeprof::exports {

enum class DatabaseOpen : unsigned char {
  opened,
  not_made,    // no SQLite or no file: said already
  not_opened,  // SQLite could not open the file: the caller says so with SQLite's message
};

// The database of `export <format>`, its file opened by `files` for `extension`, for
// the writer alone (no SQLite lock around each call: export_writer.hpp): SQLite loaded,
// the file made (or emptied) the way logs are, no symbolic link followed, a journal an
// earlier database left there removed (it would be rolled back into the new one).
// SQLite takes the empty file as a new database.
DatabaseOpen open_export_database(std::string_view format, OutputFiles& files, std::string_view extension,
                                  const SqliteLibrary*& sql, sqlite3*& db, logfmt::LogFile& file);

class DatabaseCommits {
 public:
  // A transaction was begun.
  void begun() {
    rows_ = 0;
    since_ = std::chrono::steady_clock::now();
  }
  // A row went into it.
  void row() { ++rows_; }
  // Whether the open transaction is due at a batch's end.
  bool due() const { return export_batch_due(rows_ + 1, kExportBatchRows, since_); }
  // After a commit: whether the file at `path` reached `limit` bytes (0: no limit).
  void committed(const std::string& path, std::uint64_t limit);
  // Whether a record is left out of the database, counting it when it is.
  bool leaves_out() {
    if (at_limit_) ++left_out_;
    return at_limit_;
  }
  bool at_limit() const { return at_limit_; }
  // At the end: the one line saying how many records the limit left out, if any.
  void report(std::string_view format, const std::string& path, std::uint64_t limit) const;

 private:
  std::size_t rows_ = 0;
  std::chrono::steady_clock::time_point since_{};
  bool at_limit_ = false;
  std::uint64_t left_out_ = 0;
};

}  // namespace computeprof::exports
