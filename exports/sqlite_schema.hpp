#pragma once
// The tables of `export sqlite`, in the shape of `nsys export --type sqlite` (schema
// 3.16) so that nsys-stats-style SQL runs on them (docs/format.md, "SQLite database"):
// column names, types and enum values as nsys writes them. Every table is created,
// also when the program gives it no row.
#include <cstdint>
#include <string>

namespace computeprof::exports {

// CREATE TABLE statements and the rows of the enum tables, one SQL script.
std::string sqlite_schema();

// nsys's numbers (ENUM_CUDA_MEMCPY_OPER, ENUM_CUDA_MEM_KIND, ENUM_NSYS_EVENT_CLASS),
// which are not CUPTI's.
namespace nsys {
enum CopyKind : int { unknown_copy = 0, htod = 1, dtoh = 2, htoa = 3, atoh = 4, atoa = 5, atod = 6, dtoa = 7, dtod = 8, htoh = 9, ptop = 10 };
enum MemKind : int { pageable = 0, pinned = 1, device = 2, array = 3, managed = 4, device_static = 5, managed_static = 6, unknown_memory = 7 };
enum EventClass : int { cuda_runtime = 0, cuda_driver = 1, cuda_backtrace = 67, computeprof_opencl = 1000 };
enum LaunchType : int { regular = 1, cooperative_single_device = 2 };
// CUpti_ActivitySynchronizationType (ENUM_CUPTI_SYNC_TYPE).
enum SyncType : int { sync_event = 1, sync_stream_wait_event = 2, sync_stream = 3, sync_context = 4 };
constexpr std::int64_t kNotApplicable = -1;  // a synchronization's stream or event it has none of
}  // namespace nsys

}  // namespace computeprof::exports
