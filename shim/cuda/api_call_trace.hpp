#pragma once
// One traced API call (apitrace, docs/format.md "API calls"): the real call made between
// two readings of the records' clock, then its record handed to the writer with what it
// named. The wrappers of the calls that wait or mark (api_call_wrappers.cpp) and of the
// allocation calls without memtrace (memory_wrappers.cpp) use it.
#include <cstdint>
#include <string_view>

#include "records/api_call.hpp"
#include "shim/cuda/current_context.hpp"
#include "shim/cuda/stream_ids.hpp"
#include "shim/intercept/cuda_api.hpp"
#include "shim/intercept/cuda_entry_functions.hpp"
#include "shim/intercept/driver_calls.hpp"
#include "shim/output/record_pipeline.hpp"
#include "shim/process/clock.hpp"
#include "shim/process/nested_call.hpp"
#include "shim/process/operation_ids.hpp"
#include "shim/process/profiling_state.hpp"

// The wrapper of an API_ENTRY of shim/intercept/cuda_entries.def, which its trampoline
// calls while apitrace is on or undecided.
#define COMPUTEPROF_API_WRAPPER(NAME, PARAMS) \
  extern "C" __attribute__((visibility("hidden"))) CUresult computeprof_api_##NAME PARAMS

// In such a wrapper: the real call, untraced, when apitrace is off or the call comes from
// inside a recorded operation's real call (the driver's own business).
#define COMPUTEPROF_UNTRACED_CALL_OR(NAME, ...) \
  COMPUTEPROF_REAL_OR_RETURN(NAME);             \
  if (!::computeprof::shim::api_tracing() || ::computeprof::shim::inside_recorded_call()) return real_fn(__VA_ARGS__)

namespace computeprof::shim {

// What a call waited for or marked: a stream (`stream_given`: the call names one) and
// an event.
struct CallTarget {
  CUstream stream = nullptr;
  bool stream_given = false;
  CUevent event = nullptr;
};

// The stream a call names: a per-thread variant's null stream is the thread's own.
inline CallTarget stream_target(CUstream stream, bool per_thread, CUevent event = nullptr) {
  return {stream == nullptr && per_thread ? CU_STREAM_PER_THREAD : stream, true, event};
}

// Makes the call (`real()`) and hands its record to the writer.
template <typename Real>
CUresult traced_call(std::string_view name, records::ApiCallKind kind, CallTarget target, Real&& real) {
  records::ApiCall call;
  call.name = name;
  call.kind = kind;
  call.correlation_id = next_operation_id();
  call.thread_id = this_thread_id();
  call.start_ns = wall_ns();
  const CUresult r = [&] {
    RecordedCallScope inside;
    return real();
  }();
  call.end_ns = wall_ns();
  call.result = static_cast<std::int32_t>(r);
  if (const DriverCalls* d = driver_calls()) {
    CUcontext context = nullptr;
    if (const ProfiledContext* p = current_profiled_context(*d, &context)) {
      call.context = static_cast<std::uint32_t>(p->number);
      call.device = static_cast<std::uint16_t>(p->device);
    }
    if (target.stream_given) call.stream_id = stream_id(*d, context, target.stream);
  }
  call.event_id = reinterpret_cast<std::uintptr_t>(target.event);
  submit_api_call(call);
  return r;
}

}  // namespace computeprof::shim
