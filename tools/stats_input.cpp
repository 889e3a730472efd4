#include "tools/stats_input.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>

#include "config/report.hpp"
#include "logfmt/log_summary_reader.hpp"
#include "reports/nvprof_api_ids.hpp"
#include "tools/json_trace_stats.hpp"
#include "tools/run_file_stats.hpp"
#include "tools/text_file.hpp"

namespace computeprof::tools {
namespace {

// The first 16 bytes of every SQLite database file.
constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};

struct DatabaseCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StatementFinalizer {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using DatabaseHandle = std::unique_ptr<sqlite3, DatabaseCloser>;
using StatementHandle = std::unique_ptr<sqlite3_stmt, StatementFinalizer>;

// One query per table of GPU operations (docs/format.md, "SQLite database", "nvprof
// database"); each row is the method a log would have for the operation and its
// duration, so that GpuSummary names the rows of a database as those of the same run's
// logs. Kernels are taken by their mangled name, the log's method: summary_row_name
// would take a demangled "memcpyRows(float*)" for a copy. Copies by the method of their
// copyKind (nsys's ENUM_CUDA_MEMCPY_OPER and CUPTI's memcpy kinds number them alike)
// without "async": a log's row of a kind holds both. Graph launches timed as a whole
// have no row in these tables.
struct OperationQuery {
  std::string_view table;
  const char* sql;
};
#define COMPUTEPROF_COPY_METHOD                                                                                   \
  "'memcpy' || CASE copyKind WHEN 1 THEN 'HtoD' WHEN 2 THEN 'DtoH' WHEN 3 THEN 'HtoA' WHEN 4 THEN 'AtoH' "        \
  "WHEN 5 THEN 'AtoA' WHEN 6 THEN 'AtoD' WHEN 7 THEN 'DtoA' WHEN 8 THEN 'DtoD' WHEN 9 THEN 'HtoH' "               \
  "WHEN 10 THEN 'PtoP' END"
constexpr OperationQuery kOperationQueries[] = {
    {"CUPTI_ACTIVITY_KIND_KERNEL",
     "SELECT s.value, k.end - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
     "LEFT JOIN StringIds AS s ON s.id = k.mangledName"},
    {"CUPTI_ACTIVITY_KIND_MEMCPY", "SELECT " COMPUTEPROF_COPY_METHOD ", end - start FROM CUPTI_ACTIVITY_KIND_MEMCPY"},
    {"CUPTI_ACTIVITY_KIND_MEMSET", "SELECT 'memset', end - start FROM CUPTI_ACTIVITY_KIND_MEMSET"},
};
// nvprof's database: kernels in CONCURRENT_KERNEL named from StringTable, peer copies
// in MEMCPY2.
constexpr OperationQuery kNvprofOperationQueries[] = {
    {"CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL",
     "SELECT s.value, k.end - k.start FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL AS k "
     "LEFT JOIN StringTable AS s ON s._id_ = k.name"},
    {"CUPTI_ACTIVITY_KIND_MEMCPY", "SELECT " COMPUTEPROF_COPY_METHOD ", end - start FROM CUPTI_ACTIVITY_KIND_MEMCPY"},
    {"CUPTI_ACTIVITY_KIND_MEMCPY2", "SELECT " COMPUTEPROF_COPY_METHOD ", end - start FROM CUPTI_ACTIVITY_KIND_MEMCPY2"},
    {"CUPTI_ACTIVITY_KIND_MEMSET", "SELECT 'memset', end - start FROM CUPTI_ACTIVITY_KIND_MEMSET"},
};
#undef COMPUTEPROF_COPY_METHOD

// Adds every row of `query`. Returns why it could not, empty when it did.
std::string add_operations(sqlite3* db, const OperationQuery& query, reports::GpuSummary& summary) {
  sqlite3_stmt* prepared = nullptr;
  const int prepare_status = sqlite3_prepare_v2(db, query.sql, -1, &prepared, nullptr);
  const StatementHandle statement(prepared);
  if (prepare_status != SQLITE_OK) return sqlite3_errmsg(db);
  int status = SQLITE_ROW;
  while ((status = sqlite3_step(prepared)) == SQLITE_ROW) {
    const auto* method = reinterpret_cast<const char*>(sqlite3_column_text(prepared, 0));
    const sqlite3_int64 duration_ns = sqlite3_column_int64(prepared, 1);
    if (method == nullptr) {
      return fmt::format("{}: a row whose name or copyKind is not one computeprof writes", query.table);
    }
    if (duration_ns < 0) return fmt::format("{}: a row that ends before it starts", query.table);
    summary.add(std::string_view(method, static_cast<std::size_t>(sqlite3_column_bytes(prepared, 0))),
                static_cast<std::uint64_t>(duration_ns));
  }
  return status == SQLITE_DONE ? std::string() : std::string(sqlite3_errmsg(db));
}

// NVTX ranges (NVTX_EVENTS' push/pop and start/end rows, named `name@domain` outside the
// default domain) and the GPU time of the operations issued inside them
// (COMPUTEPROF_NVTX_RANGES); a database without these tables has no ranges.
std::string add_ranges(sqlite3* db, reports::RangeSummary& ranges) {
  constexpr const char* kRanges =
      "SELECT CASE WHEN e.domainId IS NULL THEN e.text ELSE e.text || '@' || COALESCE(d.text, '') END, "
      "e.end - e.start FROM NVTX_EVENTS AS e LEFT JOIN NVTX_EVENTS AS d ON d.eventType = 75 AND "
      "d.domainId = e.domainId WHERE e.eventType IN (59, 60)";
  constexpr const char* kGpuTimes =
      "SELECT s.value, o.end - o.start FROM COMPUTEPROF_NVTX_RANGES AS r JOIN StringIds AS s ON s.id = r.pathId "
      "JOIN (SELECT correlationId, start, end FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL "
      "SELECT correlationId, start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL "
      "SELECT correlationId, start, end FROM CUPTI_ACTIVITY_KIND_MEMSET) AS o ON o.correlationId = r.correlationId";
  for (const char* sql : {kRanges, kGpuTimes}) {
    sqlite3_stmt* prepared = nullptr;
    const int prepare_status = sqlite3_prepare_v2(db, sql, -1, &prepared, nullptr);
    const StatementHandle statement(prepared);
    if (prepare_status != SQLITE_OK) return {};  // an older database: no NVTX tables
    int status = SQLITE_ROW;
    while ((status = sqlite3_step(prepared)) == SQLITE_ROW) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(prepared, 0));
      const std::string_view name(text ? text : "", static_cast<std::size_t>(sqlite3_column_bytes(prepared, 0)));
      const sqlite3_int64 ns = sqlite3_column_int64(prepared, 1);
      if (ns < 0) return "NVTX_EVENTS: a row that ends before it starts";
      if (sql == kRanges) {
        ranges.add_range(name, static_cast<std::uint64_t>(ns));
      } else {
        ranges.add_gpu_time_of_path(name, static_cast<std::uint64_t>(ns));
      }
    }
    if (status != SQLITE_DONE) return sqlite3_errmsg(db);
  }
  return {};
}

// Whether the database has table `name`.
bool has_table(sqlite3* db, std::string_view name) {
  constexpr const char* kSql = "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?";
  sqlite3_stmt* prepared = nullptr;
  const int prepare_status = sqlite3_prepare_v2(db, kSql, -1, &prepared, nullptr);
  const StatementHandle statement(prepared);
  if (prepare_status != SQLITE_OK) return false;
  sqlite3_bind_text(prepared, 1, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
  return sqlite3_step(prepared) == SQLITE_ROW;
}

// Runs `sql`, whose rows are a call's name or callback id, its duration and its
// returnValue, adding each call named by `name_of` its first column. Returns why it could
// not, empty when it did.
template <typename NameOf>
std::string add_calls(sqlite3* db, std::string_view table, const char* sql, reports::ApiSummary& calls,
                      NameOf&& name_of) {
  sqlite3_stmt* prepared = nullptr;
  const int prepare_status = sqlite3_prepare_v2(db, sql, -1, &prepared, nullptr);
  const StatementHandle statement(prepared);
  if (prepare_status != SQLITE_OK) return sqlite3_errmsg(db);
  int status = SQLITE_ROW;
  while ((status = sqlite3_step(prepared)) == SQLITE_ROW) {
    const std::optional<std::string_view> name = name_of(prepared);
    if (!name) return fmt::format("{}: a row whose name is not one computeprof writes", table);
    const sqlite3_int64 ns = sqlite3_column_int64(prepared, 1);
    if (ns < 0) return fmt::format("{}: a row that ends before it starts", table);
    calls.add(*name, static_cast<std::uint64_t>(ns), sqlite3_column_int64(prepared, 2) != 0);
  }
  return status == SQLITE_DONE ? std::string() : std::string(sqlite3_errmsg(db));
}

// The calls of an `export sqlite` database: RUNTIME's rows, named from StringIds. A
// database made without calls has no such table.
std::string add_calls(sqlite3* db, reports::ApiSummary& calls) {
  if (!has_table(db, "CUPTI_ACTIVITY_KIND_RUNTIME")) return {};
  constexpr const char* kSql =
      "SELECT s.value, r.end - r.start, r.returnValue FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r "
      "LEFT JOIN StringIds AS s ON s.id = r.nameId";
  return add_calls(db, "CUPTI_ACTIVITY_KIND_RUNTIME", kSql, calls,
                   [](sqlite3_stmt* row) -> std::optional<std::string_view> {
                     const auto* name = reinterpret_cast<const char*>(sqlite3_column_text(row, 0));
                     if (name == nullptr) return std::nullopt;
                     return std::string_view(name, static_cast<std::size_t>(sqlite3_column_bytes(row, 0)));
                   });
}

// The calls of an nvprof database: RUNTIME's and DRIVER's rows, named by their callback
// ids as nvprof printed them (reports/nvprof_api_ids.def).
std::string add_nvprof_calls(sqlite3* db, reports::ApiSummary& calls) {
  for (const bool runtime : {true, false}) {
    const std::string_view table = runtime ? "CUPTI_ACTIVITY_KIND_RUNTIME" : "CUPTI_ACTIVITY_KIND_DRIVER";
    const std::string sql = fmt::format("SELECT cbid, end - start, returnValue FROM {}", table);
    const std::string error =
        add_calls(db, table, sql.c_str(), calls, [&](sqlite3_stmt* row) -> std::optional<std::string_view> {
          const std::string_view name = reports::nvprof_call_name(runtime, sqlite3_column_int(row, 0));
          if (name == "unknown") return std::nullopt;
          return name;
        });
    if (!error.empty()) return error;
  }
  return {};
}

// Returns why the database could not be read, empty when it was.
std::string add_database(const std::string& path, StatsInput& input) {
  sqlite3* opened = nullptr;
  // Another person's file: read-only (a URI, so that no name in it is taken for an
  // option), no memory map, SQLite's defensive mode, and no SQL function or view of
  // the file's schema run. A database with a journal a killed process left is refused
  // (SQLITE_READONLY_ROLLBACK) rather than read half-written.
  std::string uri = "file:";
  for (const char c : path) {
    if (c == '?' || c == '#' || c == '%') {
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  uri += "?mode=ro";
  const int status = sqlite3_open_v2(uri.c_str(), &opened, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  const DatabaseHandle db(opened);
  if (status != SQLITE_OK) return opened != nullptr ? sqlite3_errmsg(opened) : sqlite3_errstr(status);
  sqlite3_db_config(opened, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(opened, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(opened, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  sqlite3_db_config(opened, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
  sqlite3_limit(opened, SQLITE_LIMIT_LENGTH, 1 << 20);
  sqlite3_exec(opened, "PRAGMA mmap_size=0; PRAGMA cell_size_check=ON", nullptr, nullptr, nullptr);
  // The first read of the schema is where SQLite finds a journal it would roll back.
  if (sqlite3_exec(opened, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr) != SQLITE_OK) {
    if ((sqlite3_extended_errcode(opened) & 0xff) == SQLITE_READONLY) {
      return "its journal (left by a process killed while writing it) must be rolled back before it is read: "
             "open it once with sqlite3";
    }
    return sqlite3_errmsg(opened);
  }
  // nvprof's database has its kernels in CONCURRENT_KERNEL, and no NVTX range computeprof
  // reads.
  if (has_table(opened, "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL")) {
    for (const OperationQuery& query : kNvprofOperationQueries) {
      if (std::string error = add_operations(opened, query, input.operations); !error.empty()) return error;
    }
    return add_nvprof_calls(opened, input.api_calls);
  }
  for (const OperationQuery& query : kOperationQueries) {
    if (std::string error = add_operations(opened, query, input.operations); !error.empty()) return error;
  }
  if (std::string error = add_calls(opened, input.api_calls); !error.empty()) return error;
  return add_ranges(opened, input.ranges);
}

// A run file's first eight bytes (runfile/format.hpp).
constexpr std::string_view kRunFileMagic{"CPROFRUN", 8};

// A JSON trace starts with its object (a log with '#' or "method"), a gzip-compressed
// one with gzip's magic.
bool is_json_trace_start(std::string_view start) {
  return start.starts_with("{") || start.starts_with("\x1f\x8b");
}

// A log's whole text, or a database's or a JSON trace's first bytes only: SQLite reads
// the pages itself, and a trace is read as a stream. nullopt with errno set when the
// file cannot be read.
std::optional<std::string> read_log_or_database_start(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  const bool read = read_until_size(fd, text, kSqliteMagic.size()) &&
                    (text == kSqliteMagic || text.starts_with(kRunFileMagic) || is_json_trace_start(text) ||
                     read_until_size(fd, text, std::string::npos));
  const int error = errno;
  ::close(fd);
  errno = error;
  if (!read) return std::nullopt;
  return text;
}

}  // namespace

std::string read_stats_input(const std::string& path, StatsInput& input) {
  const std::string shown_path = config::escape_for_warning(path);
  const std::optional<std::string> text = read_log_or_database_start(path);
  if (!text) return fmt::format("cannot read '{}': {}", shown_path, std::strerror(errno));
  if (*text == kSqliteMagic) {
    // SQLite's messages quote the file's own schema (a hostile name, a line break):
    // shown as any value from a file is.
    const std::string error = add_database(path, input);
    return error.empty() ? error : fmt::format("{}: {}", shown_path, config::escape_for_warning(error));
  }
  if (text->starts_with(kRunFileMagic)) return add_run_file(path, shown_path, input);
  if (is_json_trace_start(*text)) return add_json_trace(path, shown_path, input);
  const std::optional<logfmt::LogReadError> error = logfmt::add_log_to_summary(*text, input.operations);
  return error ? fmt::format("{}:{}: {}", shown_path, error->line, error->what) : std::string();
}

}  // namespace computeprof::tools
