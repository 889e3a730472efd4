#pragma once
// Command queues as the program created them. The shim turns profiling on for every
// queue (events carry no times otherwise); this remembers what the program asked for,
// so that clGetCommandQueueInfo and clGetEventProfilingInfo answer as they would have
// without the shim. Touched when queues are created and queried, never by an enqueue.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "shim/intercept/opencl_api.hpp"

namespace computeprof::shim {

struct ProgramQueueProperties {
  cl_command_queue_properties properties = 0;  // CL_QUEUE_PROPERTIES as asked
  // clCreateCommandQueueWithProperties' list as given (with its 0 end), or empty.
  std::vector<cl_queue_properties> property_list;
  bool profiling_added = false;  // the shim set CL_QUEUE_PROFILING_ENABLE
  std::uint64_t number = 0;      // streamid: queues numbered from 1 in creation order
};

// Called after the real creation succeeded; a handle the runtime reuses is overwritten.
void remember_queue(cl_command_queue queue, ProgramQueueProperties properties);

// What the program asked for `queue`; nullopt for a queue the shim did not see created.
std::optional<ProgramQueueProperties> program_queue_properties(cl_command_queue queue);

// Changes whenever a queue is created: a cache keyed by queue handles checks it, since
// the runtime may hand out a released queue's handle again.
std::uint64_t queue_generation();

// The queue's number for streamid; 0 for a queue the shim did not see created.
// Cached per thread.
std::uint64_t queue_number(cl_command_queue queue);

}  // namespace computeprof::shim
