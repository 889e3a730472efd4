#include "shim/intercept/opencl_entry_functions.hpp"
#include "shim/opencl/command_timer.hpp"

#include "config/report.hpp"
#include "shim/opencl/pending_commands.hpp"
#include "shim/opencl/queue_registry.hpp"
#include "shim/output/record_pipeline.hpp"
#include "shim/process/clock.hpp"

namespace computeprof::shim {
namespace {

// Waiting for a command that waits on an unfinished event could wait for the program
// itself (a user event it sets later, directly or down a chain of commands). Every
// command the shim waited for is complete, so an unfinished event comes from a
// command it did not wait for, or from the program.
bool waits_on_unfinished_event(cl_uint num_waits, const cl_event* waits) {
  auto* get_info = COMPUTEPROF_CL_REAL(clGetEventInfo);
  if (!get_info || !waits) return false;
  for (cl_uint i = 0; i < num_waits; ++i) {
    cl_int status = CL_COMPLETE;
    if (get_info(waits[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr) == CL_SUCCESS &&
        status > CL_COMPLETE) {
      return true;
    }
  }
  return false;
}

std::uint64_t wall_from_monotonic(const ContextOrigin& origin, std::int64_t monotonic) {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(origin.wall_ns) +
                                    (monotonic - static_cast<std::int64_t>(origin.monotonic_ns)));
}

}  // namespace

void fill_times(records::Record& record, OpenCLContext& context, cl_event event, const HostTimes& times,
                bool serialized) {
  const ContextOrigin& origin = context.profiled->origin;
  const std::uint64_t cpu_end = serialized ? times.completed_ns : times.call_end_ns;
  record.cputime_ns = cpu_end - times.call_start_ns;
  record.timestamp_ns = times.call_start_ns >= origin.monotonic_ns ? times.call_start_ns - origin.monotonic_ns : 0;

  auto* profiling = COMPUTEPROF_CL_REAL(clGetEventProfilingInfo);
  cl_ulong queued = 0, start = 0, end = 0;
  const bool timed = profiling &&
                     profiling(event, CL_PROFILING_COMMAND_QUEUED, sizeof queued, &queued, nullptr) == CL_SUCCESS &&
                     profiling(event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr) == CL_SUCCESS &&
                     profiling(event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) == CL_SUCCESS &&
                     end >= start;
  if (!timed) {
    config::warn_once("an OpenCL command has no profiling times (its queue was created where computeprof "
                      "could not see it, or it failed); gputime of such records is 0");
    record.gpu_end_ns = wall_from_monotonic(origin, static_cast<std::int64_t>(cpu_end));
    record.gpu_start_ns = record.gpu_end_ns;
    return;
  }
  record.gputime_ns = end - start;
  // QUEUED is taken inside the enqueue call: the middle of the call is its host time,
  // within half the call's duration. Measured once, so the context's records keep the
  // device's own order and spacing.
  if (!context.calibrated.load(std::memory_order_acquire)) {
    const auto host = static_cast<std::int64_t>(times.call_start_ns / 2 + times.call_end_ns / 2);
    std::int64_t expected = 0;
    context.device_to_monotonic_ns.compare_exchange_strong(expected, host - static_cast<std::int64_t>(queued));
    context.calibrated.store(true, std::memory_order_release);
  }
  const std::int64_t offset = context.device_to_monotonic_ns.load(std::memory_order_acquire);
  record.gpu_start_ns = wall_from_monotonic(origin, static_cast<std::int64_t>(start) + offset);
  record.gpu_end_ns = wall_from_monotonic(origin, static_cast<std::int64_t>(end) + offset);
}

void OpenCLCommand::complete() {
  const cl_event event = event_ ? *event_ : own_;
  const bool owned = event_ == nullptr;
  records::Record& record = record_;
  HostTimes times{call_start_ns_, monotonic_ns(), 0};
  if (context_->profiled->profile->fields.stream_id) record.stream_id = queue_number(queue_);
  // An in-order queue also runs the command after the queue's unfinished ones.
  const bool must_not_wait = waits_on_unfinished_event(num_waits_, waits_) || has_pending_commands(queue_);
  // conckerneltrace, or a command that must not be waited for: written when its event
  // completes.
  if (context_->profiled->profile->operations.concurrent || must_not_wait) {
    if (record_on_completion(*context_, queue_, event, owned, times, record)) return;
    if (must_not_wait) {
      // Never wait for the program itself: this command goes unrecorded instead.
      config::warn_once("an OpenCL command waiting on unfinished commands could not be tracked; not recorded");
      if (owned) {
        if (auto* release = COMPUTEPROF_CL_REAL(clReleaseEvent)) release(event);
      }
      return;
    }
  }
  if (auto* wait = COMPUTEPROF_CL_REAL(clWaitForEvents)) wait(1, &event);
  times.completed_ns = monotonic_ns();
  fill_times(record, *context_, event, times, true);
  if (owned) {
    if (auto* release = COMPUTEPROF_CL_REAL(clReleaseEvent)) release(event);
  }
  submit_record(context_->profiled, times.completed_ns, record);
}

}  // namespace computeprof::shim
