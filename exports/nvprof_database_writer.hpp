#pragma once
// `export nvprof`: one database of the whole process in nvprof's own schema
// (nvprof_schema.hpp, docs/format.md "nvprof database"), `<stem>.nvvp`, for the tools
// written for `nvprof -o` files. Like `export sqlite`, rows are written thousands to a
// transaction, committed at every flush point and when a batch is large or old enough
// (database_commits.hpp): a process killed at any point leaves a database that opens,
// with every batch before.
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <string_view>

#include "logfmt/log_file.hpp"
#include "reports/nvprof_api_ids.hpp"
#include "exports/database_commits.hpp"
#include "exports/export_writer.hpp"
#include "exports/grouped_rows.hpp"
#include "exports/output_files.hpp"
#include "exports/run_facts.hpp"
#include "exports/sqlite_library.hpp"

namespace computeprof::exports {

class NvprofDatabaseWriter final : public ExportWriter {
 public:
  NvprofDatabaseWriter(const RunFacts& facts, OutputFiles& files);
  ~NvprofDatabaseWriter() override;

  void begin() override;
  // CUDA contexts only: nvprof's schema has no place for OpenCL.
  void write(const records::ContextInfo& context, const records::Record& record) override;
  // The allocation's or free's API row.
  void write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) override;
  // A mark's MARKER row, a range's start and end rows, and their MARKER_DATA row.
  void write_range(const records::RangeEvent& event) override;
  void write_api_call(const records::ApiCall& call) override;
  void flush() override;
  void checkpoint() override;
  void end() override;

 private:
  enum Statement : std::size_t {
    string_row,
    runtime_row,
    driver_row,
    kernel_row,
    memcpy_row,
    memcpy2_row,
    memset_row,
    device_row,
    context_row,
    marker_row,
    marker_data_row,
    synchronization_row,
    cuda_event_row,
    kStatements
  };

  bool exec(const char* sql);
  bool open();
  void close();
  void fail(std::string_view what);
  bool in_transaction();
  void commit();
  // Adds a row to the statement's table (grouped_rows.hpp).
  void insert(Statement s, std::initializer_list<SqlValue> values);
  std::int64_t string_id_of(std::string_view text);
  std::int64_t kernel_name_id(std::string_view method);
  // The call's RUNTIME row when the CUDA runtime made it, else its DRIVER row, with
  // what it returned (0 for the calls that made an operation or an allocation: only
  // successful ones are). Returns whether it was filed as a runtime call.
  bool insert_call(std::string_view api, std::int64_t start, std::int64_t end, std::uint32_t thread,
                   std::int64_t correlation, std::int64_t result = 0);
  void insert_device(const records::ContextInfo& context);
  // A synchronization's SYNCHRONIZATION row, an event record's CUDA_EVENT row.
  void insert_sync_or_event(const records::ApiCall& call);
  // CUPTI's 32-bit id of an event: events numbered from 1 in the order first named.
  std::int64_t event_id_of(std::uint64_t handle);

  const RunFacts& facts_;
  OutputFiles& files_;
  const SqliteLibrary* sql_ = nullptr;
  sqlite3* db_ = nullptr;
  // Held open for the life of the database: the path stays claimed by this process.
  logfmt::LogFile file_;
  sqlite3_stmt* string_statement_ = nullptr;
  // Every table's rows but StringTable's (whose values are text).
  GroupedRows rows_[kStatements];
  bool in_transaction_ = false;
  DatabaseCommits commits_;
  std::int64_t pid_ = 0;
  std::int64_t grids_ = 0;        // kernels written: each one's gridId
  std::int64_t markers_ = 0;      // marks and ranges written: each one's id
  std::uint64_t last_call_ = 0;   // correlation id of the last API row
  bool last_call_runtime_ = false;
  std::map<std::string, std::int64_t, std::less<>> string_ids_;
  // The last kernel's name's entry (a map's entries stay where they are).
  const std::pair<const std::string, std::int64_t>* last_kernel_ = nullptr;
  // The last call's name and its ids: runs of one call are the common case, compared
  // rather than looked up.
  std::string last_api_;
  std::optional<reports::NvprofApiIds> last_api_ids_;
  std::set<int> devices_;
  std::set<int> contexts_;
  std::unordered_map<std::uint64_t, std::int64_t> event_ids_;
};

}  // namespace computeprof::exports
