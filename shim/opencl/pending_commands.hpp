#pragma once
// Records whose commands the shim does not wait for (conckerneltrace, or a command
// behind an unset user event): each is written when its event completes, from the
// runtime's callback thread (clSetEventCallback with CL_COMPLETE), never from the
// program's threads.
#include "records/record.hpp"
#include "shim/intercept/opencl_api.hpp"
#include "shim/opencl/command_timer.hpp"
#include "shim/opencl/context_table.hpp"

namespace computeprof::shim {

// Takes over `record` of a command of `queue` until `event` completes. The shim holds its own reference to the
// event meanwhile (`owned`: the one it created; otherwise a retain, so the program may
// release its event at once). False when it cannot track the command (no free slot,
// the callback was refused): the caller then waits for it.
bool record_on_completion(OpenCLContext& context, cl_command_queue queue, cl_event event, bool owned,
                          const HostTimes& times, const records::Record& record);

// Whether commands of `queue` are still tracked here (not complete yet).
bool has_pending_commands(cl_command_queue queue);

}  // namespace computeprof::shim
