#include "exports/sqlite_schema.hpp"

#include <span>
#include <string_view>

#include <fmt/format.h>

namespace computeprof::exports {

namespace {

// The tables records go to.
constexpr std::string_view kRecordTables = R"sql(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
  sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER,
  dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
  migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,
  callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL);
CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, address INTEGER NOT NULL, pc INTEGER NOT NULL,
  bytes INTEGER NOT NULL, memKind INTEGER NOT NULL, memoryOperationType INTEGER NOT NULL, name TEXT,
  correlationId INTEGER, streamId INTEGER, localMemoryPoolAddress INTEGER, localMemoryPoolReleaseThreshold INTEGER,
  localMemoryPoolSize INTEGER, localMemoryPoolUtilizedSize INTEGER, importedMemoryPoolAddress INTEGER,
  importedMemoryPoolProcessId INTEGER);
CREATE TABLE CUDA_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, module INTEGER NOT NULL,
  unresolved INTEGER, originalIP INTEGER, stackDepth INTEGER NOT NULL, PRIMARY KEY (id, stackDepth));
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,
  isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER,
  smCount INTEGER, pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER, ctxswDevPath TEXT,
  ctrlDevPath TEXT, revision INTEGER, nodeMask INTEGER, constantMemory INTEGER, maxIPC INTEGER,
  maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER, maxShmemPerBlockOptin INTEGER, maxShmemPerSm INTEGER,
  maxRegistersPerSm INTEGER, threadsPerWarp INTEGER, asyncEngines INTEGER, maxWarpsPerSm INTEGER,
  maxBlocksPerSm INTEGER, maxThreadsPerBlock INTEGER, maxBlockDimX INTEGER, maxBlockDimY INTEGER,
  maxBlockDimZ INTEGER, maxGridDimX INTEGER, maxGridDimY INTEGER, maxGridDimZ INTEGER, computeMajor INTEGER,
  computeMinor INTEGER, smMajor INTEGER, smMinor INTEGER);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE COMPUTEPROF_COUNTERS (correlationId INTEGER NOT NULL, nameId INTEGER NOT NULL, value INTEGER);
CREATE TABLE COMPUTEPROF_CALLCHAIN_SOURCES (id INTEGER NOT NULL, stackDepth INTEGER NOT NULL,
  sourceFile INTEGER NOT NULL, lineNumber INTEGER NOT NULL, inlined INTEGER NOT NULL, PRIMARY KEY (id, stackDepth));
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData BLOB);
CREATE TABLE COMPUTEPROF_NVTX_RANGES (correlationId INTEGER NOT NULL, pathId INTEGER NOT NULL);
)sql";

struct EnumValue {
  int id;
  std::string_view name;
  std::string_view label;
};

struct EnumTable {
  std::string_view name;
  std::span<const EnumValue> values;
};

constexpr EnumValue kCopyKinds[] = {
    {0, "CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"}, {1, "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"},
    {2, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"}, {3, "CUDA_MEMCPY_KIND_HTOA", "Host-to-Array"},
    {4, "CUDA_MEMCPY_KIND_ATOH", "Array-to-Host"}, {5, "CUDA_MEMCPY_KIND_ATOA", "Array-to-Array"},
    {6, "CUDA_MEMCPY_KIND_ATOD", "Array-to-Device"}, {7, "CUDA_MEMCPY_KIND_DTOA", "Device-to-Array"},
    {8, "CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"}, {9, "CUDA_MEMCPY_KIND_HTOH", "Host-to-Host"},
    {10, "CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer"}, {11, "CUDA_MEMCPY_KIND_UVM_HTOD", "Unified Host-to-Device"},
    {12, "CUDA_MEMCPY_KIND_UVM_DTOH", "Unified Device-to-Host"}, {13, "CUDA_MEMCPY_KIND_UVM_DTOD", "Unified Device-to-Device"},
};
constexpr EnumValue kMemoryKinds[] = {
    {0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"}, {1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"},
    {2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"}, {3, "CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array"},
    {4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"}, {5, "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"},
    {6, "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static"}, {7, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown"},
};
constexpr EnumValue kMemoryOperations[] = {
    {0, "CUDA_DEV_MEM_EVENT_OPR_ALLOCATION", "Allocation"}, {1, "CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION", "Deallocation"},
};
constexpr EnumValue kEventClasses[] = {
    {0, "TRACE_PROCESS_EVENT_CUDA_RUNTIME", "CUDA runtime"}, {1, "TRACE_PROCESS_EVENT_CUDA_DRIVER", "CUDA driver"},
    {67, "TRACE_PROCESS_EVENT_CUDABACKTRACE", "CUDA backtrace"},
    {1000, "COMPUTEPROF_OPENCL_API", "OpenCL API"},
};
constexpr EnumValue kLaunchTypes[] = {
    {0, "CUDA_KERNEL_LAUNCH_TYPE_UNKNOWN", "Unknown"}, {1, "CUDA_KERNEL_LAUNCH_TYPE_REGULAR", "Regular"},
    {2, "CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE", "Coop Single Device"},
    {3, "CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE", "Coop Multi Device"},
};
constexpr EnumValue kCacheConfigs[] = {
    {0, "CU_FUNC_CACHE_PREFER_NONE", "None"}, {1, "CU_FUNC_CACHE_PREFER_SHARED", "Shared"},
    {2, "CU_FUNC_CACHE_PREFER_L1", "L1"}, {3, "CU_FUNC_CACHE_PREFER_EQUAL", "Equal"},
};
constexpr EnumValue kSyncTypes[] = {
    {0, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN", "Unknown"},
    {1, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE", "Event sync"},
    {2, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT", "Stream wait event"},
    {3, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE", "Stream sync"},
    {4, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE", "Context sync"},
};

// nsys's enum tables (docs/format.md, "SQLite database").
constexpr EnumTable kEnumTables[] = {
    {"ENUM_CUDA_MEMCPY_OPER", kCopyKinds},
    {"ENUM_CUDA_MEM_KIND", kMemoryKinds},
    {"ENUM_CUDA_DEV_MEM_EVENT_OPER", kMemoryOperations},
    {"ENUM_NSYS_EVENT_CLASS", kEventClasses},
    {"ENUM_CUDA_KERNEL_LAUNCH_TYPE", kLaunchTypes},
    {"ENUM_CUDA_FUNC_CACHE_CONFIG", kCacheConfigs},
    {"ENUM_CUPTI_SYNC_TYPE", kSyncTypes},
};

}  // namespace

std::string sqlite_schema() {
  std::string sql(kRecordTables);
  for (const EnumTable& table : kEnumTables) {
    sql += fmt::format("CREATE TABLE {0} (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);\nINSERT INTO {0} VALUES",
                       table.name);
    // No name or label holds a quote.
    const char* separator = "\n  ";
    for (const EnumValue& value : table.values) {
      sql += fmt::format("{}({}, '{}', '{}')", separator, value.id, value.name, value.label);
      separator = ", ";
    }
    sql += ";\n";
  }
  return sql;
}

}  // namespace computeprof::exports
