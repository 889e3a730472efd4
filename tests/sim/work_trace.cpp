#include "work_trace.hpp"

#include <atomic>
#include <utility>

#include "sim_api.hpp"

namespace sim {
namespace {

std::atomic<const ActivityHooks*> g_hooks{nullptr};
std::atomic<std::uint64_t> g_node_ids{0};

thread_local TraceContext* t_trace = nullptr;

void run_reported(WorkRecord work, const Operation& op) {
  // The device reached this work now: a kernel of known length then ends exactly
  // that much later.
  device_at_least(device_time_so_far());
  // A kernel's operation begins with the launch latency (api_launch.cpp), which
  // CUPTI's kernel record leaves out.
  work.start_ns = device_now() + (work.kind == WorkKind::kernel ? kernel_launch_latency_ns() : 0);
  op();
  work.end_ns = device_time_so_far();
  if (const ActivityHooks* hooks = g_hooks.load(std::memory_order_acquire)) hooks->work_done(work);
}

}  // namespace

DriverCall::DriverCall(int cbid) : previous_(t_trace) {
  context_.cbid = cbid;
  t_trace = &context_;
}
DriverCall::~DriverCall() { t_trace = previous_; }

WorkNote::WorkNote(WorkRecord work) : work_(work) {
  if (!t_trace) return;
  work_.cbid = t_trace->cbid;
  t_trace->work = &work_;
}
WorkNote::~WorkNote() {
  if (t_trace && t_trace->work == &work_) t_trace->work = nullptr;
}

Operation traced_operation(Operation op, const Stream& stream, bool capturing) {
  if (!t_trace || !t_trace->work) return op;
  WorkRecord work = *t_trace->work;
  work.context_id = static_cast<std::uint32_t>(stream.context->id);
  if (capturing) {
    // A graph node: it runs, and reports, as part of each launch of the graph.
    work.graph_node_id = g_node_ids.fetch_add(1, std::memory_order_relaxed) + 1;
    return [work, op = std::move(op)]() mutable {
      const WorkRecord* launch = t_trace ? t_trace->graph_launch : nullptr;
      if (!launch) return op();
      work.correlation = launch->correlation;
      work.stream_id = launch->stream_id;
      work.graph_id = launch->graph_id;
      run_reported(work, op);
    };
  }
  const ActivityHooks* hooks = g_hooks.load(std::memory_order_acquire);
  if (!hooks) return op;
  work.stream_id = static_cast<std::uint32_t>(stream.id);
  work.correlation = hooks->call_made(work.cbid);
  if (work.kind == WorkKind::graph) {
    return [work, op = std::move(op)] {
      TraceContext running;
      running.graph_launch = &work;
      TraceContext* previous = std::exchange(t_trace, &running);
      op();
      t_trace = previous;
    };
  }
  return [work, op = std::move(op)] { run_reported(work, op); };
}

WorkMemory memory_at(const void* address) {
  const Allocation* a = find_allocation(reinterpret_cast<std::uintptr_t>(address));
  if (!a) return WorkMemory::pageable;
  switch (a->kind) {
    case MemoryKind::host:
    case MemoryKind::registered: return WorkMemory::pinned;
    case MemoryKind::device:
    case MemoryKind::managed: return WorkMemory::device;
  }
  return WorkMemory::unknown;
}

}  // namespace sim

SIM_API void simcuda_set_activity_hooks(const sim::ActivityHooks* hooks) {
  sim::g_hooks.store(hooks, std::memory_order_release);
}
