#pragma once
// Timing of one OpenCL command from its event's profiling info. Serialized (the
// default, as the old profiler): the shim waits for the event, and cputime includes
// the wait. With conckerneltrace, or when waiting could deadlock (the command waits on
// unfinished commands: maybe on a user event the program has not set yet), the record
// is written when the event completes, and cputime is the time in the enqueue call.
#include <cstdint>
#include <string_view>

#include "logfmt/record.hpp"
#include "shim/intercept/opencl_api.hpp"
#include "shim/opencl/context_table.hpp"
#include "shim/process/call_stacks.hpp"
#include "shim/process/operation_ids.hpp"
#include "shim/process/profiling_state.hpp"

namespace computeprof::shim {

// Host clock readings around one command.
struct HostTimes {
  std::uint64_t call_start_ns = 0;   // entry into the enqueue call
  std::uint64_t call_end_ns = 0;     // its return
  std::uint64_t completed_ns = 0;    // the command seen complete
};

// Fills gputime, cputime, timestamp and the GPU timestamps of `record` from the event's
// profiling info; cputime ends at `completed_ns` when serialized, at `call_end_ns` when not.
void fill_times(logfmt::Record& record, OpenCLContext& context, cl_event event, const HostTimes& times,
                bool serialized);

class OpenCLTimer {
 public:
  explicit OpenCLTimer(cl_command_queue queue);

  // False when the command is not to be recorded (its context cannot be found).
  bool active() const { return context_ != nullptr; }

  // Just before the real call.
  void start();

  // After the real call succeeded. `event` is the command's event; `owned`: the shim
  // created it (the program passed none) and releases it. `waits`: the command's wait
  // list, checked for unfinished events.
  void finish(logfmt::Record& record, cl_event event, bool owned, cl_uint num_waits, const cl_event* waits);

 private:
  cl_command_queue queue_;
  OpenCLContext* context_ = nullptr;
  std::uint64_t call_start_ns_ = 0;
};

// The shape every recording OpenCL wrapper shares: time the real call, and when the
// runtime accepted it, record it. A rejected call enqueued nothing: its error goes back
// unchanged and nothing is recorded. `describe(record)` runs before the call;
// `call(event)` makes the real call with the event pointer to pass on.
template <typename Describe, typename Call>
cl_int run_recorded_opencl(std::string_view api, cl_command_queue queue, cl_event* event, cl_uint num_waits,
                           const cl_event* waits, Describe&& describe, Call&& call) {
  if (!opencl_recording()) return call(event);
  OpenCLTimer timer(queue);
  if (!timer.active()) return call(event);
  logfmt::Record record;
  record.api = api;
  record.correlation_id = next_operation_id();
  record.thread_id = this_thread_id();
  record.stack_id = capture_call_stack(process_profile().opencl.settings.config.callstack_depth);
  describe(record);
  cl_event own = nullptr;
  timer.start();
  const cl_int result = call(event ? event : &own);
  if (result != CL_SUCCESS) return result;
  timer.finish(record, event ? *event : own, event == nullptr, num_waits, waits);
  return result;
}

}  // namespace computeprof::shim
