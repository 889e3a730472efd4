#include "tools/nvvp_reader.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <memory>

#include "reports/nvprof_api_ids.hpp"

namespace computeprof::tools {
namespace {

struct DatabaseCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StatementFinalizer {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};

// The device's "name (id)" comes from DEVICE; a row's device without one is unnamed.
constexpr const char* kDeviceName =
    "COALESCE((SELECT s.value FROM CUPTI_ACTIVITY_KIND_DEVICE d JOIN StringTable s ON s._id_ = d.name "
    "WHERE d.id = a.deviceId), '')";

std::string kernels_sql() {
  return std::string("SELECT a.start, a.end, a.gridX, a.gridY, a.gridZ, a.blockX, a.blockY, a.blockZ, "
                     "a.registersPerThread, a.staticSharedMemory, a.dynamicSharedMemory, a.deviceId, a.contextId, "
                     "a.streamId, a.correlationId, (SELECT value FROM StringTable WHERE _id_ = a.name), ") +
         kDeviceName + " FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL a";
}

std::string copies_sql(const char* table) {
  return std::string("SELECT a.start, a.end, a.copyKind, a.srcKind, a.dstKind, a.bytes, a.deviceId, a.contextId, "
                     "a.streamId, a.correlationId, ") +
         kDeviceName + " FROM " + table + " a";
}

std::string memsets_sql() {
  return std::string("SELECT a.start, a.end, a.memoryKind, a.bytes, a.deviceId, a.contextId, a.streamId, "
                     "a.correlationId, ") +
         kDeviceName + " FROM CUPTI_ACTIVITY_KIND_MEMSET a";
}

std::uint64_t u64(sqlite3_stmt* st, int column) { return static_cast<std::uint64_t>(sqlite3_column_int64(st, column)); }

std::string text(sqlite3_stmt* st, int column) {
  const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, column));
  return t ? std::string(t, static_cast<std::size_t>(sqlite3_column_bytes(st, column))) : std::string();
}

// Runs `sql`, handing each row to `row`. An empty string, or SQLite's error.
template <typename Fn>
std::string each_row(sqlite3* db, const std::string& sql, Fn&& row) {
  sqlite3_stmt* prepared = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &prepared, nullptr) != SQLITE_OK) return sqlite3_errmsg(db);
  const std::unique_ptr<sqlite3_stmt, StatementFinalizer> statement(prepared);
  int status = SQLITE_ROW;
  while ((status = sqlite3_step(prepared)) == SQLITE_ROW) row(prepared);
  return status == SQLITE_DONE ? std::string() : std::string(sqlite3_errmsg(db));
}

std::uint64_t duration(std::uint64_t start, std::uint64_t end) { return end > start ? end - start : 0; }

}  // namespace

std::string read_nvvp(const std::string& path, NvvpContents& contents) {
  sqlite3* opened = nullptr;
  // Read-write where allowed: SQLite rolls back the batch a killed process left in flight.
  const int status = sqlite3_open_v2(path.c_str(), &opened, SQLITE_OPEN_READWRITE, nullptr);
  const std::unique_ptr<sqlite3, DatabaseCloser> db(opened);
  if (status != SQLITE_OK) return opened ? sqlite3_errmsg(opened) : sqlite3_errstr(status);
  using reports::NvprofActivity;
  using reports::NvprofGpuRow;
  std::string error = each_row(opened, kernels_sql(), [&](sqlite3_stmt* st) {
    NvprofGpuRow r;
    r.activity = NvprofActivity::kernel;
    r.start_ns = u64(st, 0);
    r.duration_ns = duration(r.start_ns, u64(st, 1));
    for (int d = 0; d < 3; ++d) {
      r.grid[d] = static_cast<std::uint32_t>(u64(st, 2 + d));
      r.block[d] = static_cast<std::uint32_t>(u64(st, 5 + d));
    }
    r.registers = u64(st, 8);
    r.static_smem = u64(st, 9);
    r.dynamic_smem = u64(st, 10);
    r.device_id = sqlite3_column_int(st, 11);
    r.context = sqlite3_column_int64(st, 12);
    r.stream = sqlite3_column_int64(st, 13);
    r.correlation = u64(st, 14);
    r.name = text(st, 15);
    r.device = text(st, 16);
    contents.gpu.push_back(std::move(r));
  });
  for (const char* table : {"CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMCPY2"}) {
    if (!error.empty()) break;
    error = each_row(opened, copies_sql(table), [&](sqlite3_stmt* st) {
      NvprofGpuRow r;
      r.activity = NvprofActivity::memcpy;
      r.start_ns = u64(st, 0);
      r.duration_ns = duration(r.start_ns, u64(st, 1));
      r.copy_kind = sqlite3_column_int(st, 2);
      r.src_kind = sqlite3_column_int(st, 3);
      r.dst_kind = sqlite3_column_int(st, 4);
      r.bytes = u64(st, 5);
      r.device_id = sqlite3_column_int(st, 6);
      r.context = sqlite3_column_int64(st, 7);
      r.stream = sqlite3_column_int64(st, 8);
      r.correlation = u64(st, 9);
      r.device = text(st, 10);
      contents.gpu.push_back(std::move(r));
    });
  }
  if (error.empty()) {
    error = each_row(opened, memsets_sql(), [&](sqlite3_stmt* st) {
      NvprofGpuRow r;
      r.activity = NvprofActivity::memset;
      r.start_ns = u64(st, 0);
      r.duration_ns = duration(r.start_ns, u64(st, 1));
      r.dst_kind = sqlite3_column_int(st, 2);
      r.bytes = u64(st, 3);
      r.device_id = sqlite3_column_int(st, 4);
      r.context = sqlite3_column_int64(st, 5);
      r.stream = sqlite3_column_int64(st, 6);
      r.correlation = u64(st, 7);
      r.device = text(st, 8);
      contents.gpu.push_back(std::move(r));
    });
  }
  for (const bool runtime : {true, false}) {
    if (!error.empty()) break;
    const std::string sql = std::string("SELECT cbid, start, end, correlationId FROM CUPTI_ACTIVITY_KIND_") +
                            (runtime ? "RUNTIME" : "DRIVER");
    error = each_row(opened, sql, [&](sqlite3_stmt* st) {
      reports::NvprofApiRow r;
      r.name = std::string(reports::nvprof_call_name(runtime, sqlite3_column_int(st, 0)));
      r.start_ns = u64(st, 1);
      r.duration_ns = duration(r.start_ns, u64(st, 2));
      r.correlation = u64(st, 3);
      contents.api.push_back(std::move(r));
    });
  }
  if (!error.empty()) return error;
  std::uint64_t origin = UINT64_MAX;
  for (const auto& g : contents.gpu) origin = std::min(origin, g.start_ns);
  for (const auto& a : contents.api) origin = std::min(origin, a.start_ns);
  contents.origin_ns = origin == UINT64_MAX ? 0 : origin;
  return {};
}

}  // namespace computeprof::tools
