#pragma once
// The one sequence every recorded operation goes through, CUDA and OpenCL alike: claim a
// record from the operation's timing, say which call made it and describe it, make the
// real call inside the timing, and when the driver (or runtime) accepted the call,
// complete it: the timing fills in the times and hands the record on. A call the driver
// rejected executed nothing: its error goes back unchanged and nothing is recorded.
// The timings: shim/cuda/recorded_call.hpp (CUDA), shim/opencl/command_timer.hpp.
#include <string_view>

#include "records/record.hpp"
#include "shim/process/call_stacks.hpp"
#include "shim/process/operation_ids.hpp"

namespace computeprof::shim {

// Which call made the operation: `api` is the wrapper's entry point (a literal);
// `stack_depth` the frames to capture (OperationSettings::callstack_depth).
inline void identify(records::Record& record, std::string_view api, unsigned stack_depth) {
  record.api = api;
  record.correlation_id = next_operation_id();
  record.thread_id = this_thread_id();
  if (stack_depth != 0) record.stack_id = capture_call_stack(stack_depth);  // else 0: no stack
}

// `timing` times one operation:
//   records::Record& record()  the record it claimed for the operation (claimed when it
//                              was made)
//   around(call)               what it does just before and just after the real call,
//                              which it makes; returns the call's result
//   void complete()            the call succeeded: fills in the record's times and
//                              hands it on (now, or once the GPU times are known)
// `describe(record)` fills what the operation is, before the call (it may look at
// pointers the call is about to use). Forced inline, with the timing's own steps: once
// per operation, and a wrapper holds several timings.
template <typename Timing, typename Describe, typename Call>
[[gnu::always_inline]] inline auto record_operation(Timing& timing, std::string_view api, unsigned stack_depth,
                                                    Describe&& describe, Call&& call) {
  records::Record& record = timing.record();
  identify(record, api, stack_depth);
  describe(record);
  const auto result = timing.around(call);
  // CUDA_SUCCESS and CL_SUCCESS are both 0.
  if (result != decltype(result){}) return result;
  timing.complete();
  return result;
}

}  // namespace computeprof::shim
