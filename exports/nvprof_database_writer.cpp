#include "exports/nvprof_database_writer.hpp"

#include <array>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "config/report.hpp"
#include "reports/nvprof_api_ids.hpp"
#include "records/copy_kind.hpp"
#include "records/range_table.hpp"
#include "exports/nvprof_schema.hpp"

namespace computeprof::exports {
namespace {

// Columns every row has the same value in are constants of the statement, not bound.
constexpr const char* kStatementSql[] = {
    "INSERT INTO StringTable (_id_, value) VALUES (?, ?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (cbid, start, end, processId, threadId, correlationId, returnValue) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER (cbid, start, end, processId, threadId, correlationId, returnValue) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL (cacheConfig, sharedMemoryConfig, registersPerThread, "
    "partitionedGlobalCacheRequested, partitionedGlobalCacheExecuted, start, end, completed, deviceId, contextId, "
    "streamId, gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, "
    "localMemoryPerThread, localMemoryTotal, correlationId, gridId, name, queued, submitted, launchType, "
    "isSharedMemoryCarveoutRequested, sharedMemoryCarveoutRequested, sharedMemoryExecuted) VALUES "
    "(?, 0, ?, 0, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?, ?, 0, 0, ?, 0, 0, 0)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (copyKind, srcKind, dstKind, flags, bytes, start, end, deviceId, "
    "contextId, streamId, correlationId, runtimeCorrelationId) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY2 (copyKind, srcKind, dstKind, flags, bytes, start, end, deviceId, "
    "contextId, streamId, srcDeviceId, srcContextId, dstDeviceId, dstContextId, correlationId) VALUES "
    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (value, bytes, start, end, deviceId, contextId, streamId, correlationId, "
    "flags, memoryKind) VALUES (0, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_DEVICE (flags, globalMemoryBandwidth, globalMemorySize, constantMemorySize, "
    "l2CacheSize, numThreadsPerWarp, coreClockRate, numMemcpyEngines, numMultiprocessors, maxIPC, "
    "maxWarpsPerMultiprocessor, maxBlocksPerMultiprocessor, maxSharedMemoryPerMultiprocessor, "
    "maxRegistersPerMultiprocessor, maxRegistersPerBlock, maxSharedMemoryPerBlock, maxThreadsPerBlock, maxBlockDimX, "
    "maxBlockDimY, maxBlockDimZ, maxGridDimX, maxGridDimY, maxGridDimZ, computeCapabilityMajor, "
    "computeCapabilityMinor, id, eccEnabled, uuid, name) VALUES "
    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_CONTEXT (contextId, deviceId, computeApiKind, nullStreamId) VALUES (?, ?, ?, ?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_MARKER (flags, timestamp, id, objectKind, objectId, name, domain) VALUES "
    "(?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_MARKER_DATA (flags, id, payloadKind, payload, color, category) VALUES "
    "(?, ?, ?, ?, ?, ?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (type, start, end, correlationId, contextId, streamId, "
    "cudaEventId) VALUES (?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT (correlationId, contextId, streamId, eventId) VALUES (?, ?, ?, ?)",
};

// nvprof 10.x and 11.x wrote 11.
constexpr int kNvprofDatabaseVersion = 11;

std::int64_t memory_kind(records::CopyEnd end, const records::Record& r) {
  switch (end) {
    case records::CopyEnd::host:
      return r.host_mem_type == records::HostMemType::page_locked ? cupti_enum::pinned : cupti_enum::pageable;
    case records::CopyEnd::array: return cupti_enum::array;
    case records::CopyEnd::device:
    case records::CopyEnd::peer: return cupti_enum::device;
  }
  return cupti_enum::unknown_memory;
}

std::int64_t copy_kind(const records::CopyEnds& e) {
  using records::CopyEnd;
  if (e.source == CopyEnd::peer || e.destination == CopyEnd::peer) return cupti_enum::ptop;
  constexpr int kKinds[3][3] = {// [source][destination]: host, device, array
                                {cupti_enum::htoh, cupti_enum::htod, cupti_enum::htoa},
                                {cupti_enum::dtoh, cupti_enum::dtod, cupti_enum::dtoa},
                                {cupti_enum::atoh, cupti_enum::atod, cupti_enum::atoa}};
  return kKinds[static_cast<int>(e.source)][static_cast<int>(e.destination)];
}

// CUPTI's object id of a thread: the process and thread ids, little-endian, in a
// 12-byte union (the device/context/stream member is the larger).
std::array<char, 12> thread_object_id(std::int64_t pid, std::uint32_t thread) {
  std::array<char, 12> id{};
  for (int i = 0; i < 4; ++i) {
    id[i] = static_cast<char>(static_cast<std::uint64_t>(pid) >> (8 * i));
    id[4 + i] = static_cast<char>(thread >> (8 * i));
  }
  return id;
}

// MARKER_DATA's payload: CUPTI's 8-byte metric value, little-endian, and its kind;
// 32-bit payloads widened to their 64-bit kind, no payload a double 0.
std::pair<std::int64_t, std::array<char, 8>> marker_payload(const records::RangeEvent& e) {
  using Payload = records::RangePayloadKind;
  std::uint64_t bits = e.payload_bits;
  std::int64_t kind = cupti_enum::value_double;
  switch (e.payload) {
    case Payload::none: bits = 0; break;
    case Payload::float64: break;
    case Payload::uint64: kind = cupti_enum::value_uint64; break;
    case Payload::int64: kind = cupti_enum::value_int64; break;
    case Payload::uint32:
      kind = cupti_enum::value_uint64;
      bits = static_cast<std::uint32_t>(bits);
      break;
    case Payload::int32:
      kind = cupti_enum::value_int64;
      bits = static_cast<std::uint64_t>(std::int64_t{static_cast<std::int32_t>(static_cast<std::uint32_t>(bits))});
      break;
    case Payload::float32: {
      float f = 0;
      const auto low = static_cast<std::uint32_t>(bits);
      std::memcpy(&f, &low, sizeof f);
      const double d = f;
      std::memcpy(&bits, &d, sizeof bits);
      break;
    }
  }
  std::array<char, 8> bytes{};
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(bits >> (8 * i));
  return {kind, bytes};
}

// Copies and memsets made by an asynchronous call (CUPTI's flag bit 0).
std::int64_t async_flag(std::string_view api) {
  return api.find("Async") != std::string_view::npos ? cupti_enum::kMemcpyAsyncFlag : 0;
}

}  // namespace

NvprofDatabaseWriter::NvprofDatabaseWriter(const RunFacts& facts, OutputFiles& files) : facts_(facts), files_(files) {}

NvprofDatabaseWriter::~NvprofDatabaseWriter() { close(); }

void NvprofDatabaseWriter::fail(std::string_view what) {
  config::warn(fmt::format("nvprof export '{}': {}: {}; the database stops here", file_.path(), what,
                           db_ && sql_ ? sql_->errmsg(db_) : "no database"));
  close();
}

bool NvprofDatabaseWriter::exec(const char* sql) {
  if (sql_->exec(db_, sql, nullptr, nullptr, nullptr) == SQLITE_OK) return true;
  fail(sql);
  return false;
}

bool NvprofDatabaseWriter::open() {
  switch (open_export_database("nvprof", files_, ".nvvp", sql_, db_, file_)) {
    case DatabaseOpen::opened: break;
    case DatabaseOpen::not_made: return false;
    case DatabaseOpen::not_opened: fail("cannot open"); return false;
  }
  // A killed process loses at most the batch in flight: the journal rolls it back. It
  // is removed after each commit (transactions are few): no file is left beside the
  // database, which `computeprof nvprof -o` hands on alone.
  if (!exec("PRAGMA synchronous=OFF") || !exec("BEGIN") || !exec(nvprof_schema())) return false;
  if (!exec(fmt::format("INSERT INTO Version VALUES ({})", kNvprofDatabaseVersion).c_str())) return false;
  if (sql_->prepare_v2(db_, kStatementSql[string_row], -1, &string_statement_, nullptr) != SQLITE_OK) {
    fail(kStatementSql[string_row]);
    return false;
  }
  for (std::size_t i = string_row + 1; i < kStatements; ++i) {
    if (!rows_[i].prepare(sql_, db_, kStatementSql[i])) {
      fail(kStatementSql[i]);
      return false;
    }
  }
  return exec("COMMIT");
}

void NvprofDatabaseWriter::begin() {
  pid_ = static_cast<std::int64_t>(facts_.pid);
  open();
}

bool NvprofDatabaseWriter::in_transaction() {
  if (!db_) return false;
  if (!in_transaction_) {
    if (!exec("BEGIN")) return false;
    in_transaction_ = true;
    commits_.begun();
  }
  return true;
}

void NvprofDatabaseWriter::insert(Statement s, std::initializer_list<SqlValue> values) {
  if (!db_) return;
  if (!rows_[s].add(values)) return fail(kStatementSql[s]);
  commits_.row();
}

std::int64_t NvprofDatabaseWriter::string_id_of(std::string_view text) {
  if (auto it = string_ids_.find(text); it != string_ids_.end()) return it->second;
  // From 1, as nvprof's AUTOINCREMENT numbered them.
  const auto id = static_cast<std::int64_t>(string_ids_.size()) + 1;
  string_ids_.emplace(std::string(text), id);
  if (!db_) return id;
  sqlite3_stmt* st = string_statement_;
  sql_->bind_int64(st, 1, id);
  sql_->bind_text(st, 2, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  if (sql_->step(st) != SQLITE_DONE) {
    fail(kStatementSql[string_row]);
    return id;
  }
  sql_->reset(st);
  commits_.row();
  return id;
}

std::int64_t NvprofDatabaseWriter::kernel_name_id(std::string_view method) {
  // Runs of one kernel are the common case: compared, not looked up.
  if (last_kernel_ && last_kernel_->first == method) return last_kernel_->second;
  string_id_of(method);
  last_kernel_ = &*string_ids_.find(method);
  return last_kernel_->second;
}

bool NvprofDatabaseWriter::insert_call(std::string_view api, std::int64_t start, std::int64_t end, std::uint32_t thread,
                                     std::int64_t correlation, std::int64_t result) {
  if (api != last_api_ || last_api_.empty()) {
    last_api_.assign(api);
    last_api_ids_ = reports::nvprof_api_ids(api);
  }
  const auto& ids = last_api_ids_;
  const bool by_runtime = ids && ids->runtime_cbid != 0 && facts_.cuda_runtime_present;
  if (by_runtime) {
    insert(runtime_row, {ids->runtime_cbid, start, end, pid_, thread, correlation, result});
  } else {
    insert(driver_row, {ids ? ids->driver_cbid : 0, start, end, pid_, thread, correlation, result});
  }
  return by_runtime;
}

void NvprofDatabaseWriter::insert_device(const records::ContextInfo& c) {
  const records::DeviceProperties& p = c.device_properties;
  // KB/s: two transfers a memory clock (kHz) across the bus.
  const std::int64_t bandwidth = 2 * p.memory_clock_khz * (p.memory_bus_bits / 8);
  const std::int64_t warps = p.warp_size != 0 ? p.max_threads_per_multiprocessor / p.warp_size : 0;
  const std::string_view uuid(reinterpret_cast<const char*>(p.uuid), sizeof p.uuid);
  insert(device_row, {0, bandwidth, p.global_memory_bytes, p.constant_memory_bytes, p.l2_cache_bytes, p.warp_size,
                      p.clock_khz, p.copy_engines, p.multiprocessors, 0, warps, p.max_blocks_per_multiprocessor,
                      p.max_shared_per_multiprocessor, p.max_registers_per_multiprocessor, p.max_registers_per_block,
                      p.max_shared_per_block, p.max_threads_per_block, p.max_block[0], p.max_block[1], p.max_block[2],
                      p.max_grid[0], p.max_grid[1], p.max_grid[2], p.compute_major, p.compute_minor, c.device,
                      p.ecc_enabled, SqlValue::blob(uuid), string_id_of(c.device_name)});
}

void NvprofDatabaseWriter::write_memory(const records::MemoryEvent& e, const records::MemoryLedger&) {
  // Past the export limit, memory events and NVTX events stop with the records.
  if (commits_.at_limit() || !in_transaction()) return;
  insert_call(e.api, static_cast<std::int64_t>(e.start_ns), static_cast<std::int64_t>(e.wall_ns), e.thread_id,
              static_cast<std::int64_t>(e.correlation_id));
}

void NvprofDatabaseWriter::write(const records::ContextInfo& c, const records::Record& r) {
  if (c.api != config::Api::cuda || commits_.leaves_out() || !in_transaction()) return;
  if (devices_.insert(c.device).second) insert_device(c);
  if (contexts_.insert(c.number).second) insert(context_row, {c.number, c.device, cupti_enum::kComputeApiCuda, 0});
  const auto correlation = static_cast<std::int64_t>(r.correlation_id);
  // One API row per call: a graph launch's nodes share theirs.
  if (r.correlation_id == 0 || r.correlation_id != last_call_) {
    last_call_ = r.correlation_id;
    const auto call_start = static_cast<std::int64_t>(c.origin.wall_ns + r.timestamp_ns);
    last_call_runtime_ =
        insert_call(r.api, call_start, call_start + static_cast<std::int64_t>(r.cputime_ns), r.thread_id, correlation);
  }
  const auto start = static_cast<std::int64_t>(r.gpu_start_ns);
  const std::int64_t end = start + static_cast<std::int64_t>(r.gputime_ns);
  const std::int64_t device = c.device;
  const std::int64_t context = c.number;
  const auto stream = static_cast<std::int64_t>(r.stream_id);
  switch (r.kind) {
    case records::RecordKind::kernel: {
      // CUPTI's cacheConfig byte: the requested configuration in the low nibble, the executed in the high.
      const char cache = static_cast<char>((r.cache_config_requested & 0xF) | ((r.cache_config_executed & 0xF) << 4));
      const std::int64_t launch_type = r.api.find("Cooperative") != std::string_view::npos
                                           ? cupti_enum::cooperative_single_device
                                           : cupti_enum::regular;
      insert(kernel_row, {SqlValue::blob(std::string_view(&cache, 1)), r.registers, start, end, end, device, context,
                          stream, r.grid.x, r.grid.y, r.grid.z, r.block.x, r.block.y, r.block.z, r.static_smem,
                          r.dynamic_smem, correlation, ++grids_, kernel_name_id(r.method), launch_type});
      break;
    }
    case records::RecordKind::memcpy: {
      const auto ends = records::copy_ends(r.method);
      if (!ends) break;
      const std::int64_t kind = copy_kind(*ends);
      const auto bytes = static_cast<std::int64_t>(r.transfer_bytes);
      if (kind == cupti_enum::ptop) {
        // The peer's device and context are not recorded: both sides name the call's.
        insert(memcpy2_row, {kind, memory_kind(ends->source, r), memory_kind(ends->destination, r),
                             async_flag(r.api), bytes, start, end, device, context, stream, device, context, device,
                             context, correlation});
      } else {
        insert(memcpy_row, {kind, memory_kind(ends->source, r), memory_kind(ends->destination, r), async_flag(r.api),
                            bytes, start, end, device, context, stream, correlation,
                            last_call_runtime_ ? correlation : 0});
      }
      break;
    }
    case records::RecordKind::memset:
      // The value set is not recorded: 0.
      insert(memset_row, {static_cast<std::int64_t>(r.transfer_bytes), start, end, device, context, stream,
                          correlation, async_flag(r.api), cupti_enum::device});
      break;
    case records::RecordKind::graph: break;  // its call's API row only: no single GPU activity
  }
}

void NvprofDatabaseWriter::write_api_call(const records::ApiCall& call) {
  if (commits_.at_limit() || !in_transaction()) return;
  insert_call(call.name, static_cast<std::int64_t>(call.start_ns), static_cast<std::int64_t>(call.end_ns),
              call.thread_id, static_cast<std::int64_t>(call.correlation_id), call.result);
  insert_sync_or_event(call);
}

std::int64_t NvprofDatabaseWriter::event_id_of(std::uint64_t handle) {
  if (handle == 0) return cupti_enum::kSynchronizationNotApplicable;
  return event_ids_.try_emplace(handle, static_cast<std::int64_t>(event_ids_.size()) + 1).first->second;
}

void NvprofDatabaseWriter::insert_sync_or_event(const records::ApiCall& call) {
  using records::ApiCallKind;
  const auto correlation = static_cast<std::int64_t>(call.correlation_id);
  const std::int64_t context = call.context;
  const auto stream = static_cast<std::int64_t>(call.stream_id);
  // A call that names no stream or event has CUPTI's "not applicable" there.
  const std::int64_t no = cupti_enum::kSynchronizationNotApplicable;
  std::int64_t type = 0;
  std::int64_t sync_stream = no;
  std::int64_t sync_event = no;
  switch (call.kind) {
    case ApiCallKind::event_record:
      // An event the driver refused to record marks nothing.
      if (call.result == 0) insert(cuda_event_row, {correlation, context, stream, event_id_of(call.event_id)});
      return;
    case ApiCallKind::event_synchronize:
      type = cupti_enum::sync_event;
      sync_event = event_id_of(call.event_id);
      break;
    case ApiCallKind::stream_wait_event:
      type = cupti_enum::sync_stream_wait_event;
      sync_stream = stream;
      sync_event = event_id_of(call.event_id);
      break;
    case ApiCallKind::stream_synchronize:
      type = cupti_enum::sync_stream;
      sync_stream = stream;
      break;
    case ApiCallKind::context_synchronize: type = cupti_enum::sync_context; break;
    default: return;
  }
  insert(synchronization_row, {type, static_cast<std::int64_t>(call.start_ns), static_cast<std::int64_t>(call.end_ns),
                               correlation, context, sync_stream, sync_event});
}

void NvprofDatabaseWriter::write_range(const records::RangeEvent& e) {
  using Kind = records::RangeEventKind;
  const bool range = e.kind == Kind::push_pop || e.kind == Kind::start_end;
  if ((!range && e.kind != Kind::mark) || commits_.at_limit() || !in_transaction()) return;
  const records::RangeTable& table = *facts_.ranges;
  const std::int64_t id = ++markers_;
  const std::int64_t domain = e.domain != 0 ? string_id_of(table.name(table.domain_name(e.domain))) : 0;
  const auto start_object = thread_object_id(pid_, e.thread_id);
  insert(marker_row, {range ? cupti_enum::marker_start : cupti_enum::marker_instantaneous,
                      static_cast<std::int64_t>(e.start_wall_ns), id, cupti_enum::kObjectThread,
                      SqlValue::blob(std::string_view(start_object.data(), start_object.size())),
                      string_id_of(table.name(e.name)),
                      domain});
  // CUPTI gives an end no name and no domain: nvprof wrote 0.
  if (range) {
    const auto end_object = thread_object_id(pid_, e.end_thread_id);
    insert(marker_row, {cupti_enum::marker_end, static_cast<std::int64_t>(e.end_wall_ns), id,
                        cupti_enum::kObjectThread,
                        SqlValue::blob(std::string_view(end_object.data(), end_object.size())), 0, 0});
  }
  const auto [payload_kind, payload] = marker_payload(e);
  insert(marker_data_row, {e.has_color ? cupti_enum::color_argb : cupti_enum::color_none, id, payload_kind,
                           SqlValue::blob(std::string_view(payload.data(), payload.size())), e.has_color ? e.color : 0,
                           e.category});
}

void NvprofDatabaseWriter::commit() {
  if (!db_ || !in_transaction_) return;
  for (std::size_t i = string_row + 1; db_ && i < kStatements; ++i) {
    if (!rows_[i].insert_waiting()) fail(kStatementSql[i]);
  }
  if (db_ && exec("COMMIT")) in_transaction_ = false;
  if (db_) commits_.committed(file_.path(), facts_.export_limit);
}

void NvprofDatabaseWriter::flush() {
  if (in_transaction_ && commits_.due()) commit();
}

void NvprofDatabaseWriter::checkpoint() { commit(); }

void NvprofDatabaseWriter::end() {
  commit();
  if (db_) commits_.report("nvprof", file_.path(), facts_.export_limit);
  close();
}

void NvprofDatabaseWriter::close() {
  if (!db_) return;
  if (string_statement_) sql_->finalize(string_statement_);
  string_statement_ = nullptr;
  for (GroupedRows& rows : rows_) rows.finalize();
  sql_->close_v2(db_);
  db_ = nullptr;
  file_.close();
}

}  // namespace computeprof::exports
