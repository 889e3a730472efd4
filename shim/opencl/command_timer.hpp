#pragma once
// Timing of one OpenCL command from its event's profiling info. Serialized (the
// default, as the old profiler): the shim waits for the event, and cputime includes
// the wait. With conckerneltrace, or when waiting could deadlock (the command waits on
// unfinished commands: maybe on a user event the program has not set yet), the record
// is written when the event completes, and cputime is the time in the enqueue call.
#include <cstdint>
#include <string_view>

#include "records/record.hpp"
#include "shim/intercept/opencl_api.hpp"
#include "shim/opencl/context_table.hpp"
#include "shim/process/clock.hpp"
#include "shim/process/profiling_state.hpp"
#include "shim/process/recorded_operation.hpp"

namespace computeprof::shim {

// Host clock readings around one command.
struct HostTimes {
  std::uint64_t call_start_ns = 0;   // entry into the enqueue call
  std::uint64_t call_end_ns = 0;     // its return
  std::uint64_t completed_ns = 0;    // the command seen complete
};

// Fills gputime, cputime, timestamp and the GPU timestamps of `record` from the event's
// profiling info; cputime ends at `completed_ns` when serialized, at `call_end_ns` when not.
void fill_times(records::Record& record, OpenCLContext& context, cl_event event, const HostTimes& times,
                bool serialized);

// One command's timing, in the steps of record_operation
// (shim/process/recorded_operation.hpp).
class OpenCLCommand {
 public:
  // `event` as the program passed it (null: the shim makes one and releases it);
  // `waits`: the command's wait list, checked for unfinished events.
  OpenCLCommand(cl_command_queue queue, cl_event* event, cl_uint num_waits, const cl_event* waits)
      : queue_(queue), context_(opencl_context_of(queue)), event_(event), num_waits_(num_waits), waits_(waits) {}

  // False when the command is not to be recorded (its context cannot be found).
  bool active() const { return context_ != nullptr; }

  records::Record& record() { return record_; }
  // `call(event)` makes the real call with the event pointer to pass on.
  template <typename Call>
  cl_int around(Call& call) {
    call_start_ns_ = monotonic_ns();
    return call(event_ ? event_ : &own_);
  }
  // After the real call succeeded: waited for, or written when its event completes.
  void complete();

 private:
  cl_command_queue queue_;
  OpenCLContext* context_;
  cl_event* event_;
  cl_uint num_waits_;
  const cl_event* waits_;
  cl_event own_ = nullptr;
  std::uint64_t call_start_ns_ = 0;
  records::Record record_;
};

// The shape every recording OpenCL wrapper shares: `describe(record)` runs before the
// call; `call(event)` makes the real call with the event pointer to pass on.
template <typename Describe, typename Call>
cl_int run_recorded_opencl(std::string_view api, cl_command_queue queue, cl_event* event, cl_uint num_waits,
                           const cl_event* waits, Describe&& describe, Call&& call) {
  if (!opencl_recording()) return call(event);
  OpenCLCommand command(queue, event, num_waits, waits);
  if (!command.active()) return call(event);
  return record_operation(command, api, process_profile().opencl.operations.callstack_depth, describe, call);
}

}  // namespace computeprof::shim
