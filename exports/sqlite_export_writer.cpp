#include "exports/sqlite_export_writer.hpp"

#include <time.h>

#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "config/report.hpp"
#include "records/copy_kind.hpp"
#include "records/kernel_names.hpp"
#include "records/range_table.hpp"
#include "exports/sqlite_schema.hpp"

namespace computeprof::exports {
namespace {

// Columns every row has the same value in are constants of the statement, not bound.
constexpr const char* kStatementSql[] = {
    "INSERT INTO StringIds (id, value) VALUES (?, ?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, nameId, returnValue, "
    "callchainId) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, greenContextId, streamId, correlationId, "
    "globalPid, demangledName, shortName, mangledName, launchType, cacheConfig, registersPerThread, gridX, gridY, "
    "gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, "
    "gridId, sharedMemoryExecuted, graphNodeId, sharedMemoryLimitConfig) VALUES "
    "(?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, NULL, NULL, NULL)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, greenContextId, streamId, correlationId, "
    "globalPid, bytes, copyKind, deprecatedSrcId, srcKind, dstKind, srcDeviceId, srcContextId, dstDeviceId, "
    "dstContextId, migrationCause, graphNodeId, virtualAddress) VALUES "
    "(?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, NULL, ?, ?, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, greenContextId, streamId, correlationId, "
    "globalPid, value, bytes, graphNodeId, memKind) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, 0, ?, NULL, ?)",
    "INSERT INTO COMPUTEPROF_COUNTERS (correlationId, nameId, value) VALUES (?, ?, ?)",
    "INSERT INTO TARGET_INFO_GPU (vmId, id, name) VALUES (0, ?, ?)",
    "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, contextId, address, pc, bytes, memKind, "
    "memoryOperationType, name, correlationId, streamId, localMemoryPoolAddress, localMemoryPoolReleaseThreshold, "
    "localMemoryPoolSize, localMemoryPoolUtilizedSize, importedMemoryPoolAddress, importedMemoryPoolProcessId) VALUES "
    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO CUDA_CALLCHAINS (id, symbol, module, unresolved, originalIP, stackDepth) VALUES (?, ?, ?, ?, ?, ?)",
    "INSERT INTO COMPUTEPROF_CALLCHAIN_SOURCES (id, stackDepth, sourceFile, lineNumber, inlined) VALUES (?, ?, ?, ?, ?)",
    "INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, category, color, globalTid, endGlobalTid, domainId, "
    "uint64Value, int64Value, doubleValue, uint32Value, int32Value, floatValue, text) VALUES "
    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO COMPUTEPROF_NVTX_RANGES (correlationId, pathId) VALUES (?, ?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, contextId, streamId, correlationId, "
    "globalPid, syncType, eventId) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
};

// OpenCL devices are numbered after CUDA's (as the JSON trace's processes).
constexpr std::int64_t kOpenCLDeviceIds = 100;

std::int64_t device_id(const records::ContextInfo& c) {
  return c.device + (c.api == config::Api::opencl ? kOpenCLDeviceIds : 0);
}

std::int64_t memory_kind(records::CopyEnd end, const records::Record& r) {
  switch (end) {
    case records::CopyEnd::host:
      return r.host_mem_type == records::HostMemType::page_locked ? nsys::pinned : nsys::pageable;
    case records::CopyEnd::array: return nsys::array;
    case records::CopyEnd::device:
    case records::CopyEnd::peer: return nsys::device;
  }
  return nsys::unknown_memory;
}

std::int64_t copy_kind(const records::CopyEnds& e) {
  using records::CopyEnd;
  if (e.source == CopyEnd::peer) return nsys::ptop;
  constexpr int kKinds[3][3] = {// [source][destination]: host, device, array
                                {nsys::htoh, nsys::htod, nsys::htoa},
                                {nsys::dtoh, nsys::dtod, nsys::dtoa},
                                {nsys::atoh, nsys::atod, nsys::atoa}};
  if (e.destination == CopyEnd::peer) return nsys::ptop;
  return kKinds[static_cast<int>(e.source)][static_cast<int>(e.destination)];
}

std::string format_time(std::uint64_t wall_ns, bool utc) {
  const time_t seconds = static_cast<time_t>(wall_ns / 1'000'000'000u);
  tm parts{};
  if (utc ? !gmtime_r(&seconds, &parts) : !localtime_r(&seconds, &parts)) return "";
  char text[64];
  strftime(text, sizeof text, utc ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%dT%H:%M:%S%z", &parts);
  return text;
}

}  // namespace

SqliteExportWriter::SqliteExportWriter(const RunFacts& facts, OutputFiles& files) : facts_(facts), files_(files) {}

SqliteExportWriter::~SqliteExportWriter() { close(); }

void SqliteExportWriter::fail(std::string_view what) {
  config::warn(fmt::format("SQLite export '{}': {}: {}; the database stops here", file_.path(), what,
                           db_ && sql_ ? sql_->errmsg(db_) : "no database"));
  close();
}

bool SqliteExportWriter::exec(const char* sql) {
  if (sql_->exec(db_, sql, nullptr, nullptr, nullptr) == SQLITE_OK) return true;
  fail(sql);
  return false;
}

bool SqliteExportWriter::open() {
  switch (open_export_database("sqlite", files_, ".sqlite", sql_, db_, file_)) {
    case DatabaseOpen::opened: break;
    case DatabaseOpen::not_made: return false;
    case DatabaseOpen::not_opened: fail("cannot open"); return false;
  }
  // A killed process loses at most the batch in flight: the journal rolls it back when
  // the database is next opened. Syncing to disk is not needed for that (only a crash
  // of the machine would need it). The journal is truncated after each commit rather
  // than deleted: no file made and removed per transaction.
  if (!exec("PRAGMA synchronous=OFF") || !exec("PRAGMA journal_mode=TRUNCATE") || !exec("BEGIN") ||
      !exec(sqlite_schema().c_str())) {
    return false;
  }
  for (const Statement i : {string_id, gpu, nvtx_event}) {
    if (sql_->prepare_v2(db_, kStatementSql[i], -1, &statements_[i], nullptr) != SQLITE_OK) {
      fail(kStatementSql[i]);
      return false;
    }
  }
  for (std::size_t i = 0; i < kStatements; ++i) {
    if (!statements_[i] && !rows_[i].prepare(sql_, db_, kStatementSql[i])) {
      fail(kStatementSql[i]);
      return false;
    }
  }
  return true;
}

void SqliteExportWriter::begin() {
  if (!open()) return;
  const ExportClocks& clocks = facts_.clocks;
  base_ns_ = static_cast<std::int64_t>(clocks.wall_ns);
  const auto pid = static_cast<std::int64_t>(facts_.pid);
  global_pid_ = pid << 24;
  const std::string start = fmt::format(
      "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES ({}, '{}', '{}');"
      "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.16.1'), "
      "('EXPORT_PRODUCT_VERSION', 'computeprof " COMPUTEPROF_VERSION "'), ('COMPUTEPROF_SCHEMA_VERSION', '1'), "
      "('COMPUTEPROF_BASE_MONOTONIC_NS', '{}');"
      "INSERT INTO PROCESSES VALUES ({}, {}, ",
      base_ns_, format_time(static_cast<std::uint64_t>(base_ns_), true),
      format_time(static_cast<std::uint64_t>(base_ns_), false), clocks.monotonic_ns, global_pid_, pid);
  std::string process = start;
  process += '\'';
  for (const char c : facts_.program_name) process += c == '\'' ? std::string("''") : std::string(1, c);
  process += "');COMMIT";
  if (exec(process.c_str())) in_transaction_ = false;
}

std::int64_t SqliteExportWriter::string_id_of(std::string_view text) {
  if (auto it = string_ids_.find(text); it != string_ids_.end()) return it->second;
  const auto id = static_cast<std::int64_t>(string_ids_.size());
  string_ids_.emplace(std::string(text), id);
  insert_text(string_id, id, text);
  return id;
}

void SqliteExportWriter::insert_text(Statement s, std::int64_t id, std::string_view text) {
  if (!db_) return;
  sqlite3_stmt* st = statements_[s];
  sql_->bind_int64(st, 1, id);
  sql_->bind_text(st, 2, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  if (sql_->step(st) != SQLITE_DONE) return fail(kStatementSql[s]);
  sql_->reset(st);
  commits_.row();
}

void SqliteExportWriter::insert(Statement s, std::initializer_list<SqlValue> values) {
  if (!db_) return;
  commits_.row();
  if (!rows_[s].add(values)) fail(kStatementSql[s]);
}

bool SqliteExportWriter::in_transaction() {
  if (!db_) return false;
  if (!in_transaction_) {
    if (!exec("BEGIN")) return false;
    in_transaction_ = true;
    commits_.begun();
  }
  return true;
}

const SqliteExportWriter::KernelNames& SqliteExportWriter::kernel_names(std::string_view method) {
  // Runs of one kernel are the common case: compared, not hashed and looked up.
  if (last_kernel_ && last_kernel_->first == method) return last_kernel_->second;
  auto it = kernel_names_.find(method);
  if (it == kernel_names_.end()) {
    const std::string demangled = records::demangled_name(method);
    const KernelNames names{string_id_of(demangled), string_id_of(records::base_name(demangled)),
                            string_id_of(method)};
    it = kernel_names_.emplace(std::string(method), names).first;
  }
  last_kernel_ = &*it;
  return it->second;
}

std::int64_t SqliteExportWriter::api_name_id(std::string_view api) {
  if (api.empty()) api = "unknown";
  // Runs of one call are the common case: compared, not hashed and looked up.
  if (last_api_ && last_api_->first == api) return last_api_->second;
  string_id_of(api);
  last_api_ = &*string_ids_.find(api);
  return last_api_->second;
}

void SqliteExportWriter::insert_call(std::int64_t start, std::int64_t end, std::int64_t event_class, std::uint32_t thread,
                                   std::int64_t correlation, std::string_view api, std::uint32_t stack,
                                   std::int64_t result) {
  if (stack != 0 && stacks_.insert(stack).second) {
    const auto& frames = facts_.stack(stack);
    for (std::size_t depth = 0; depth < frames.size(); ++depth) {
      const symbols::Frame& f = frames[depth];
      insert(callchain, {static_cast<std::int64_t>(stack), string_id_of(f.function), string_id_of(f.module),
                         f.function == "??" ? 1 : 0, static_cast<std::int64_t>(f.address),
                         static_cast<std::int64_t>(depth)});
      if (!f.file.empty()) {
        insert(callchain_source, {static_cast<std::int64_t>(stack), static_cast<std::int64_t>(depth),
                                  string_id_of(f.file), static_cast<std::int64_t>(f.line), f.inlined ? 1 : 0});
      }
    }
  }
  const bool with_stack = stack != 0 && event_class == nsys::cuda_driver;
  const std::int64_t row_class = with_stack ? std::int64_t{nsys::cuda_backtrace} : event_class;
  insert(runtime, {start, end, row_class, global_pid_ | (thread & 0xFFFFFF), correlation, api_name_id(api), result,
                   stack != 0 ? std::optional<std::int64_t>(stack) : std::nullopt});
}

void SqliteExportWriter::write_memory(const records::MemoryEvent& e, const records::MemoryLedger&) {
  // A free of an unknown address has no bytes to give back; a mapping's memory is its
  // cuMemCreate's, counted there.
  if (e.unknown || e.kind == records::MemoryKind::mapping || commits_.at_limit() || !in_transaction()) return;
  const auto correlation = static_cast<std::int64_t>(e.correlation_id);
  const std::int64_t start = static_cast<std::int64_t>(e.start_ns) - base_ns_;
  const std::int64_t end = static_cast<std::int64_t>(e.wall_ns) - base_ns_;
  insert_call(start, end, nsys::cuda_driver, e.thread_id, correlation, e.api, e.stack_id);
  const bool pooled = e.pool != 0;
  const auto pool_value = [&](std::uint64_t v) {
    return pooled ? std::optional<std::int64_t>(static_cast<std::int64_t>(v)) : std::nullopt;
  };
  insert(memory_usage, {end, global_pid_, static_cast<std::int64_t>(e.device), static_cast<std::int64_t>(e.context_id),
                        static_cast<std::int64_t>(e.address), 0, static_cast<std::int64_t>(e.bytes),
                        records::nsys_memory_kind(e.kind), e.operation == records::MemoryOperation::free ? 1 : 0,
                        std::nullopt, correlation,
                        e.stream_id != 0 ? std::optional<std::int64_t>(static_cast<std::int64_t>(e.stream_id))
                                         : std::nullopt,
                        pool_value(e.pool), std::nullopt, pool_value(e.pool_reserved), pool_value(e.pool_used),
                        std::nullopt, std::nullopt});
}

void SqliteExportWriter::write_api_call(const records::ApiCall& call) {
  if (commits_.leaves_out() || !in_transaction()) return;
  const std::int64_t start = static_cast<std::int64_t>(call.start_ns) - base_ns_;
  const std::int64_t end = static_cast<std::int64_t>(call.end_ns) - base_ns_;
  insert_call(start, end, call.domain == records::ApiDomain::runtime ? nsys::cuda_runtime : nsys::cuda_driver,
              call.thread_id, static_cast<std::int64_t>(call.correlation_id), call.name, 0, call.result);
  insert_synchronization(call, start, end);
}

void SqliteExportWriter::insert_synchronization(const records::ApiCall& call, std::int64_t start, std::int64_t end) {
  using records::ApiCallKind;
  std::int64_t type = 0;
  bool names_stream = false;
  bool names_event = false;
  switch (call.kind) {
    case ApiCallKind::event_synchronize:
      type = nsys::sync_event;
      names_event = true;
      break;
    case ApiCallKind::stream_wait_event:
      type = nsys::sync_stream_wait_event;
      names_stream = names_event = true;
      break;
    case ApiCallKind::stream_synchronize:
      type = nsys::sync_stream;
      names_stream = true;
      break;
    case ApiCallKind::context_synchronize: type = nsys::sync_context; break;
    default: return;
  }
  const std::int64_t event =
      names_event && call.event_id != 0
          ? event_ids_.try_emplace(call.event_id, static_cast<std::int64_t>(event_ids_.size()) + 1).first->second
          : nsys::kNotApplicable;
  insert(synchronization,
         {start, end, call.context != 0 ? static_cast<std::int64_t>(call.device) : nsys::kNotApplicable,
          static_cast<std::int64_t>(call.context),
          names_stream ? static_cast<std::int64_t>(call.stream_id) : nsys::kNotApplicable,
          static_cast<std::int64_t>(call.correlation_id), global_pid_, type, event});
}

void SqliteExportWriter::write_range(const records::RangeEvent& e) {
  if (commits_.at_limit() || !in_transaction()) return;
  using Kind = records::RangeEventKind;
  const records::RangeTable& table = *facts_.ranges;
  const bool range = e.kind == Kind::push_pop || e.kind == Kind::start_end;
  const auto value = [](bool has, std::int64_t v) { return has ? std::optional<std::int64_t>(v) : std::nullopt; };
  const std::int64_t start = static_cast<std::int64_t>(e.start_wall_ns) - base_ns_;
  const std::int64_t end = static_cast<std::int64_t>(e.end_wall_ns) - base_ns_;
  const auto bits = static_cast<std::int64_t>(e.payload_bits);
  using Payload = records::RangePayloadKind;
  sqlite3_stmt* st = statements_[nvtx_event];
  int column = 1;
  const auto bind = [&](std::optional<std::int64_t> v) {
    if (v) {
      sql_->bind_int64(st, column++, *v);
    } else {
      sql_->bind_null(st, column++);
    }
  };
  const auto bind_real = [&](bool has, double v) {
    if (has) {
      sql_->bind_double(st, column++, v);
    } else {
      sql_->bind_null(st, column++);
    }
  };
  bind(start);
  bind(value(range, end));
  bind(static_cast<std::int64_t>(e.kind));
  bind(value(e.kind == Kind::start_end, static_cast<std::int64_t>(e.range_id)));
  bind(value(e.category != 0 || e.kind == Kind::category_name, e.category));
  bind(value(e.has_color, e.color));
  bind(global_pid_ | (e.thread_id & 0xFFFFFF));
  bind(value(range, global_pid_ | (e.end_thread_id & 0xFFFFFF)));
  bind(value(e.domain != 0, e.domain));
  bind(value(e.payload == Payload::uint64, bits));
  bind(value(e.payload == Payload::int64, bits));
  double d = 0;
  std::memcpy(&d, &e.payload_bits, sizeof d);
  bind_real(e.payload == Payload::float64, d);
  bind(value(e.payload == Payload::uint32, bits));
  bind(value(e.payload == Payload::int32, static_cast<std::int32_t>(static_cast<std::uint32_t>(e.payload_bits))));
  float f = 0;
  const auto low = static_cast<std::uint32_t>(e.payload_bits);
  std::memcpy(&f, &low, sizeof f);
  bind_real(e.payload == Payload::float32, f);
  const std::string_view text = table.name(e.name);
  sql_->bind_text(st, column, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  if (sql_->step(st) != SQLITE_DONE) return fail(kStatementSql[nvtx_event]);
  sql_->reset(st);
}

void SqliteExportWriter::write(const records::ContextInfo& c, const records::Record& r) {
  if (commits_.leaves_out() || !in_transaction()) return;
  if (r.range_path != 0 && (r.correlation_id == 0 || r.correlation_id != last_call_)) {
    insert(range_path, {static_cast<std::int64_t>(r.correlation_id),
                        string_id_of(facts_.ranges->path_text(r.range_path))});
  }
  const std::int64_t device = device_id(c);
  if (devices_.insert(device).second) {
    if (!db_) return;
    sqlite3_stmt* st = statements_[gpu];
    sql_->bind_int64(st, 1, device);
    sql_->bind_text(st, 2, c.device_name.data(), static_cast<int>(c.device_name.size()), SQLITE_TRANSIENT);
    if (sql_->step(st) != SQLITE_DONE) return fail(kStatementSql[gpu]);
    sql_->reset(st);
  }
  const auto correlation = static_cast<std::int64_t>(r.correlation_id);
  // One RUNTIME row per call: a graph launch's nodes share theirs.
  if (r.correlation_id == 0 || r.correlation_id != last_call_) {
    last_call_ = r.correlation_id;
    const std::int64_t call_start = static_cast<std::int64_t>(c.origin.wall_ns + r.timestamp_ns) - base_ns_;
    const std::int64_t event_class = c.api == config::Api::opencl ? nsys::computeprof_opencl : nsys::cuda_driver;
    insert_call(call_start, call_start + static_cast<std::int64_t>(r.cputime_ns), event_class, r.thread_id,
                correlation, r.api, r.stack_id);
  }
  const std::int64_t start = static_cast<std::int64_t>(r.gpu_start_ns) - base_ns_;
  const std::int64_t end = start + static_cast<std::int64_t>(r.gputime_ns);
  const std::int64_t context = c.number;
  const auto stream = static_cast<std::int64_t>(r.stream_id);
  switch (r.kind) {
    case records::RecordKind::kernel: {
      const KernelNames& names = kernel_names(r.method);
      const std::int64_t launch_type =
          r.api.find("Cooperative") != std::string_view::npos ? nsys::cooperative_single_device : nsys::regular;
      insert(kernel, {start, end, device, context, stream, correlation, global_pid_, names.demangled, names.base,
                      names.mangled, launch_type, r.cache_config_executed, r.registers, r.grid.x, r.grid.y, r.grid.z,
                      r.block.x, r.block.y, r.block.z, r.static_smem, r.dynamic_smem, correlation});
      for (std::size_t id : facts_.counters) {
        const records::CounterValue v = r.counter(id);
        if (v.state == records::CounterValue::State::absent) continue;
        insert(counter, {correlation, string_id_of(config::legacy_counters()[id].name),
                         v.state == records::CounterValue::State::value
                             ? std::optional<std::int64_t>(static_cast<std::int64_t>(v.value))
                             : std::nullopt});
      }
      break;
    }
    case records::RecordKind::memcpy: {
      const auto ends = records::copy_ends(r.method);
      if (!ends) break;
      insert(memcpy, {start, end, device, context, stream, correlation, global_pid_,
                      static_cast<std::int64_t>(r.transfer_bytes), copy_kind(*ends), memory_kind(ends->source, r),
                      memory_kind(ends->destination, r)});
      break;
    }
    case records::RecordKind::memset:
      // The value set is not recorded; nsys's column cannot be empty.
      insert(memset, {start, end, device, context, stream, correlation, global_pid_,
                      static_cast<std::int64_t>(r.transfer_bytes), nsys::device});
      break;
    case records::RecordKind::graph: break;  // its call's RUNTIME row only: no single GPU activity
  }
}

void SqliteExportWriter::commit() {
  if (!db_ || !in_transaction_) return;
  for (std::size_t i = 0; db_ && i < kStatements; ++i) {
    if (!rows_[i].insert_waiting()) fail(kStatementSql[i]);
  }
  if (db_ && exec("COMMIT")) in_transaction_ = false;
  if (db_) commits_.committed(file_.path(), facts_.export_limit);
}

void SqliteExportWriter::flush() {
  if (in_transaction_ && commits_.due()) commit();
}

void SqliteExportWriter::checkpoint() { commit(); }

void SqliteExportWriter::end() {
  commit();
  if (db_) commits_.report("sqlite", file_.path(), facts_.export_limit);
  close();
}

void SqliteExportWriter::close() {
  if (!db_) return;
  for (sqlite3_stmt*& st : statements_) {
    if (st) sql_->finalize(st);
    st = nullptr;
  }
  for (GroupedRows& rows : rows_) rows.finalize();
  sql_->close_v2(db_);
  db_ = nullptr;
  file_.close();
}

}  // namespace computeprof::exports
