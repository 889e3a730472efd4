#pragma once
// The tables and indexes of `export nvprof`: nvprof's own schema (49 tables, 36 indexes),
// every column in nvprof's order with nvprof's type (docs/format.md, "nvprof database"),
// so that the tools written for nvprof's files read ours. Every table is created, also
// those computeprof gives no row.
#include <cstdint>

namespace computeprof::exports {

// The CREATE TABLE and CREATE INDEX statements, one SQL script.
const char* nvprof_schema();

// CUPTI's numbers, which nvprof's database holds (cupti_activity.h).
namespace cupti_enum {
enum MemcpyKind : int { unknown_copy = 0, htod = 1, dtoh = 2, htoa = 3, atoh = 4, atoa = 5, atod = 6, dtoa = 7, dtod = 8, htoh = 9, ptop = 10 };
enum MemoryKind : int { unknown_memory = 0, pageable = 1, pinned = 2, device = 3, array = 4, managed = 5 };
enum LaunchType : int { regular = 0, cooperative_single_device = 1 };
constexpr int kMemcpyAsyncFlag = 1;  // CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC, also memsets'
constexpr int kComputeApiCuda = 1;   // CUPTI_ACTIVITY_COMPUTE_API_CUDA
enum MarkerFlag : int { marker_instantaneous = 1, marker_start = 2, marker_end = 4 };
enum MarkerColorFlag : int { color_none = 1, color_argb = 2 };  // MARKER_DATA's flags
enum MetricValueKind : int { value_double = 0, value_uint64 = 1, value_int64 = 4 };  // MARKER_DATA's payloadKind
constexpr int kObjectThread = 2;     // CUPTI_ACTIVITY_OBJECT_THREAD
// CUpti_ActivitySynchronizationType
enum SynchronizationType : int { sync_event = 1, sync_stream_wait_event = 2, sync_stream = 3, sync_context = 4 };
constexpr std::int64_t kSynchronizationNotApplicable = 0xFFFFFFFF;  // CUPTI_SYNCHRONIZATION_INVALID_VALUE
}  // namespace cupti_enum

}  // namespace computeprof::exports
