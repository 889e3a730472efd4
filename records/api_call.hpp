#pragma once
// One CUDA API call of the program's threads, as `apitrace` records it (docs/format.md,
// "API calls"): what was called, by which thread, when, what it returned, and for the
// calls that wait or mark (synchronization, events) what they waited for or marked.
// Plain data, filled on the application's thread.
#include <cstdint>
#include <string_view>

namespace computeprof::records {

// Which API the entry point belongs to.
enum class ApiDomain : std::uint8_t { driver, runtime };

// The calls the idle analysis and nvprof's SYNCHRONIZATION and CUDA_EVENT tables tell
// apart; every other call is `other`. Stored in the run file: new kinds go at the end.
enum class ApiCallKind : std::uint8_t {
  other,
  stream_synchronize,   // the calling thread waits for a stream's work
  context_synchronize,  // ... for every stream of its context
  event_synchronize,    // ... for an event's stream to reach it
  stream_wait_event,    // a stream waits for an event (the thread does not)
  event_record,         // an event marks its stream's position
  memory_allocate,      // device, managed or pinned host memory is allocated
  memory_free,          // ... freed
  module_load,          // a module or library is loaded or unloaded
};
inline constexpr std::uint8_t kLastApiCallKind = 8;

// "other", "stream_synchronize", ...: in the trace's args and the reports.
std::string_view api_call_kind_name(ApiCallKind kind);

// Whether the calling thread waits in the call for the GPU.
constexpr bool waits_for_gpu(ApiCallKind kind) {
  return kind == ApiCallKind::stream_synchronize || kind == ApiCallKind::context_synchronize ||
         kind == ApiCallKind::event_synchronize;
}

struct ApiCall {
  // The entry point as the driver exports it ("cuStreamSynchronize_ptsz"), like a
  // record's `api`; a string that lives as long as the process.
  std::string_view name;
  ApiDomain domain = ApiDomain::driver;
  ApiCallKind kind = ApiCallKind::other;
  // The context's device (meaningful where `context` is known); in what would be padding.
  std::uint16_t device = 0;
  // The call's return: a CUresult (driver) or cudaError_t (runtime).
  std::int32_t result = 0;
  // The records' clock (wall ns, like gpustarttimestamp): when the call began and when
  // it returned.
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  // The process's numbering of calls, shared with the operations' correlation ids.
  std::uint64_t correlation_id = 0;
  std::uint32_t thread_id = 0;
  // The context's number in the logs (0: none known).
  std::uint32_t context = 0;
  // The stream synchronized, made to wait or recorded in (the driver's stream id; 0:
  // none, or the call has none).
  std::uint64_t stream_id = 0;
  // The event synchronized, waited for or recorded: its handle (0: none).
  std::uint64_t event_id = 0;
};

static_assert(sizeof(ApiCall) <= 72, "calls travel through per-thread rings: keep them small");

}  // namespace computeprof::records
