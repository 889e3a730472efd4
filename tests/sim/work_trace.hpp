#pragma once
// The simulated driver's side of sim_activity.hpp: a call says which driver entry it is
// and what work it submits; submit() wraps the operation so that, once the simulated
// CUPTI has installed its hooks, it reports its simulated device start and end.
#include <cstdint>

#include "sim.hpp"
#include "sim_activity.hpp"

namespace sim {

// What this thread is doing that the records of its work need: the driver call it is
// making (an API thread), or the graph launch it is running (a stream worker). A
// thread is never both: work never calls the driver.
struct TraceContext {
  int cbid = 0;
  const WorkRecord* work = nullptr;          // noted by the call, for submit()
  const WorkRecord* graph_launch = nullptr;  // for the launch's nodes
};

// The driver entry being called on this thread, by CUPTI callback id.
class DriverCall {
 public:
  explicit DriverCall(int cbid);
  ~DriverCall();
  DriverCall(const DriverCall&) = delete;
  DriverCall& operator=(const DriverCall&) = delete;

 private:
  TraceContext context_;
  TraceContext* previous_;
};

// The work the current DriverCall is about to submit (kind and what CUPTI would say
// of it); outside a DriverCall nothing is noted.
class WorkNote {
 public:
  explicit WorkNote(WorkRecord work);
  ~WorkNote();
  WorkNote(const WorkNote&) = delete;
  WorkNote& operator=(const WorkNote&) = delete;

 private:
  WorkRecord work_;
};

// The operation submit() enqueues on `stream`: unchanged when no work was noted;
// otherwise it reports itself (captured into a graph: when a graph launch runs it).
Operation traced_operation(Operation op, const Stream& stream, bool capturing);

// Where an address of a linear copy lives, as CUPTI says it.
WorkMemory memory_at(const void* address);

// What a device spent in the running operation so far (valid on a worker thread).
std::uint64_t device_time_so_far();

}  // namespace sim
