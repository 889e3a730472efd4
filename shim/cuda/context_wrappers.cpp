// Context lifetime and the profiler switch: before a context goes, its outstanding
// operations complete, its records are written and its counter session stops, while
// it still exists (docs/design.md, "Flush points").
#include "shim/activity/activity_trace.hpp"
#include "shim/activity/counter_session.hpp"
#include "shim/intercept/cuda_entry_functions.hpp"
#include "shim/intercept/driver_calls.hpp"
#include "shim/output/record_pipeline.hpp"
#include "shim/process/context_registry.hpp"
#include "shim/process/profiling_state.hpp"
#include "shim/timing/event_resolver.hpp"
#include "shim/timing/thread_context.hpp"

namespace computeprof::shim {
namespace {

// The context's records are written and its sinks ended; its events die with it, so
// what is outstanding is completed first, and its activity records are collected.
void context_destroyed(CUcontext context) {
  const DriverCalls* d = driver_calls();
  unsigned long long id = 0;
  const bool known = d && d->ctx_get_id && context && d->ctx_get_id(context, &id) == CUDA_SUCCESS;
  if (known) resolve_context_events(id);
  forget_thread_contexts();
  if (const ProfiledContext* ended = known ? take_context({config::Api::cuda, id}) : nullptr) {
    settle_activities(ended);
    retire_context(ended);
  } else {
    settle_activities(nullptr);
    flush_records();
  }
  end_counter_session(context);
}

// Every outstanding operation is completed and written.
void settle_everything() {
  resolve_all_events();
  settle_activities(nullptr);
  flush_records();
}

// The primary context may go with a release (the last one) or a reset: what it has
// outstanding is completed and written, its counter session stopped, while it still
// exists; afterwards its handle may be reused.
template <typename Call>
CUresult primary_context_may_end(CUdevice device, Call&& call) {
  const bool profiling = process_profile().cuda.settings.enabled;
  if (profiling) {
    resolve_device_events(device);
    settle_activities(nullptr);
    flush_records();
    end_counter_sessions_on_device(device);
  }
  const CUresult r = call();
  if (r == CUDA_SUCCESS && profiling) {
    forget_thread_contexts();
    forget_gone_contexts();
    flush_records();
  }
  return r;
}

}  // namespace
}  // namespace computeprof::shim

using namespace computeprof::shim;

COMPUTEPROF_EXPORT CUresult cuCtxDestroy_v2(CUcontext context) {
  COMPUTEPROF_REAL_OR_RETURN(cuCtxDestroy_v2);
  if (process_profile().cuda.settings.enabled) context_destroyed(context);
  return real_fn(context);
}

COMPUTEPROF_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  COMPUTEPROF_REAL_OR_RETURN(cuDevicePrimaryCtxRelease_v2);
  return primary_context_may_end(device, [&] { return real_fn(device); });
}

COMPUTEPROF_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice device) {
  COMPUTEPROF_REAL_OR_RETURN(cuDevicePrimaryCtxReset_v2);
  return primary_context_may_end(device, [&] { return real_fn(device); });
}

COMPUTEPROF_EXPORT CUresult cuProfilerStart() {
  COMPUTEPROF_REAL_OR_RETURN(cuProfilerStart);
  set_cuda_paused(false);
  return real_fn();
}

COMPUTEPROF_EXPORT CUresult cuProfilerStop() {
  COMPUTEPROF_REAL_OR_RETURN(cuProfilerStop);
  set_cuda_paused(true);
  if (process_profile().cuda.settings.enabled) settle_everything();
  return real_fn();
}
