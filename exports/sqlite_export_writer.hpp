#pragma once
// `export sqlite`: one database of the whole process in the shape of nsys's SQLite
// export (sqlite_schema.hpp, docs/format.md "SQLite database"). Rows are written
// through prepared statements, thousands to a transaction, committed
// at every flush point and when a batch is large or old enough (export_batch.hpp): a
// process killed at any point leaves a database that opens, with every batch before.
#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "logfmt/log_file.hpp"
#include "exports/database_commits.hpp"
#include "exports/export_writer.hpp"
#include "exports/grouped_rows.hpp"
#include "exports/output_files.hpp"
#include "exports/run_facts.hpp"
#include "exports/sqlite_library.hpp"

namespace computeprof::exports {

class SqliteExportWriter final : public ExportWriter {
 public:
  // Its time 0 is the facts' clocks at begin().
  SqliteExportWriter(const RunFacts& facts, OutputFiles& files);
  ~SqliteExportWriter() override;

  void begin() override;
  void write(const records::ContextInfo& context, const records::Record& record) override;
  // A RUNTIME row for the call and a CUDA_GPU_MEMORY_USAGE_EVENTS row (nsys's columns).
  void write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) override;
  // An NVTX_EVENTS row (nsys's columns and eventType codes; the message as `text`).
  void write_range(const records::RangeEvent& event) override;
  void write_api_call(const records::ApiCall& call) override;
  void flush() override;
  void checkpoint() override;
  void end() override;

 private:
  enum Statement : std::size_t {
    string_id,
    runtime,
    kernel,
    memcpy,
    memset,
    counter,
    gpu,
    memory_usage,
    callchain,
    callchain_source,
    nvtx_event,
    range_path,
    synchronization,
    kStatements
  };

  bool exec(const char* sql);
  bool open();
  void close();
  std::int64_t string_id_of(std::string_view text);
  // Adds a row to the statement's table (grouped_rows.hpp).
  void insert(Statement s, std::initializer_list<SqlValue> values);
  void insert_text(Statement s, std::int64_t id, std::string_view text);
  void fail(std::string_view what);
  bool in_transaction();
  void commit();
  // A kernel's three names' string ids (demangled, base, mangled), made once per kernel.
  struct KernelNames {
    std::int64_t demangled = 0;
    std::int64_t base = 0;
    std::int64_t mangled = 0;
  };
  const KernelNames& kernel_names(std::string_view method);
  // The string id of a call's name ("unknown" for none).
  std::int64_t api_name_id(std::string_view api);
  // The call's RUNTIME row; with a stack, eventClass 67 (nsys's "CUDA backtrace") and its
  // CUDA_CALLCHAINS rows, written once per stack. `result`: what the call returned (0
  // for the calls that made an operation or an allocation: only successful ones are).
  void insert_call(std::int64_t start, std::int64_t end, std::int64_t event_class, std::uint32_t thread,
                   std::int64_t correlation, std::string_view api, std::uint32_t stack, std::int64_t result = 0);
  // A synchronization's SYNCHRONIZATION row (other calls have none).
  void insert_synchronization(const records::ApiCall& call, std::int64_t start, std::int64_t end);

  const RunFacts& facts_;
  OutputFiles& files_;
  const SqliteLibrary* sql_ = nullptr;
  sqlite3* db_ = nullptr;
  // Held open for the life of the database: the path stays claimed by this process.
  logfmt::LogFile file_;
  // The statements of rows with text or real values (strings, GPUs, NVTX events); the
  // other tables' rows are grouped.
  sqlite3_stmt* statements_[kStatements] = {};
  GroupedRows rows_[kStatements];
  bool in_transaction_ = false;
  std::int64_t base_ns_ = 0;
  std::int64_t global_pid_ = 0;
  std::uint64_t last_call_ = 0;  // correlation id of the last RUNTIME row
  DatabaseCommits commits_;
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::int64_t, StringHash, std::equal_to<>> string_ids_;
  std::unordered_map<std::string, KernelNames, StringHash, std::equal_to<>> kernel_names_;
  // The last kernel's entry (an unordered_map's entries stay where they are).
  const std::pair<const std::string, KernelNames>* last_kernel_ = nullptr;
  // The last call name's entry, as the last kernel's.
  const std::pair<const std::string, std::int64_t>* last_api_ = nullptr;
  std::set<std::int64_t> devices_;
  std::set<std::uint32_t> stacks_;
  // Events numbered from 1 in the order first named: a synchronization's eventId.
  std::unordered_map<std::uint64_t, std::int64_t> event_ids_;
};

}  // namespace computeprof::exports
