// Streams, events, stream capture and graphs.
#include <cupti_driver_cbid.h>

#include "sim.hpp"
#include "sim_api.hpp"
#include "work_trace.hpp"

using namespace sim;

namespace {

Event* event_of(CUevent e) {
  auto* ev = reinterpret_cast<Event*>(e);
  std::lock_guard lock(driver().mutex);
  return driver().events.count(ev) ? ev : nullptr;
}

// Waiting on something a capture holds breaks the capture, as on the real driver.
CUresult invalidate_capture(Stream* s) {
  std::lock_guard lock(s->mutex);
  s->capture = CU_STREAM_CAPTURE_STATUS_INVALIDATED;
  return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
}

bool capturing(Stream* s) {
  std::lock_guard lock(s->mutex);
  return s->capture != CU_STREAM_CAPTURE_STATUS_NONE;
}

CUresult stream_create(CUstream* out, unsigned int flags) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Context* c = current_context();
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  auto* s = new Stream;
  s->context = c;
  s->id = driver().next_id++;
  s->blocking = (flags & CU_STREAM_NON_BLOCKING) == 0;
  s->start();
  {
    std::lock_guard lock(driver().mutex);
    driver().streams.insert(s);
  }
  std::lock_guard lock(c->mutex);
  c->streams.push_back(s);
  *out = reinterpret_cast<CUstream>(s);
  return CUDA_SUCCESS;
}

}  // namespace

SIM_API CUresult cuStreamCreate(CUstream* s, unsigned int flags) { return stream_create(s, flags); }
SIM_API CUresult cuStreamCreateWithPriority(CUstream* s, unsigned int flags, int) { return stream_create(s, flags); }

SIM_API CUresult cuStreamDestroy_v2(CUstream handle) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  auto* s = reinterpret_cast<Stream*>(handle);
  {
    std::lock_guard lock(driver().mutex);
    if (!driver().streams.erase(s)) return CUDA_ERROR_INVALID_HANDLE;
    driver().retired.push_back(s);
  }
  {
    std::lock_guard lock(s->context->mutex);
    std::erase(s->context->streams, s);
  }
  // The worker finishes what is queued, then ends.
  std::lock_guard lock(s->mutex);
  s->stopping = true;
  s->cv.notify_all();
  s->room.notify_all();
  return CUDA_SUCCESS;
}

SIM_STREAM_PAIR(cuStreamSynchronize, cuStreamSynchronize_ptsz, (CUstream h), (h), {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Stream* s = resolve_stream(h, per_thread);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  if (capturing(s)) return invalidate_capture(s);
  s->synchronize();
  return CUDA_SUCCESS;
})

SIM_STREAM_PAIR(cuStreamQuery, cuStreamQuery_ptsz, (CUstream h), (h), {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Stream* s = resolve_stream(h, per_thread);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  if (capturing(s)) return invalidate_capture(s);
  return s->idle() ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
})

SIM_STREAM_PAIR(cuStreamGetCtx, cuStreamGetCtx_ptsz, (CUstream h, CUcontext* ctx), (h, ctx), {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!ctx) return CUDA_ERROR_INVALID_VALUE;
  Stream* s = resolve_stream(h, per_thread);
  if (!s) return h ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_CONTEXT;
  *ctx = reinterpret_cast<CUcontext>(s->context);
  return CUDA_SUCCESS;
})

SIM_STREAM_PAIR(cuStreamGetId, cuStreamGetId_ptsz, (CUstream h, unsigned long long* id), (h, id), {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!id) return CUDA_ERROR_INVALID_VALUE;
  Stream* s = resolve_stream(h, per_thread);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  *id = s->id;
  return CUDA_SUCCESS;
})

SIM_STREAM_PAIR(cuStreamIsCapturing, cuStreamIsCapturing_ptsz, (CUstream h, CUstreamCaptureStatus* status), (h, status), {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!status) return CUDA_ERROR_INVALID_VALUE;
  Stream* s = resolve_stream(h, per_thread);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  std::lock_guard lock(s->mutex);
  *status = s->capture;
  return CUDA_SUCCESS;
})

SIM_STREAM_PAIR(cuStreamBeginCapture_v2, cuStreamBeginCapture_v2_ptsz, (CUstream h, CUstreamCaptureMode mode), (h, mode), {
  (void)mode;
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Stream* s = resolve_stream(h, per_thread);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  if (s->legacy) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  std::lock_guard lock(s->mutex);
  if (s->capture != CU_STREAM_CAPTURE_STATUS_NONE) return CUDA_ERROR_ILLEGAL_STATE;
  s->capture = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  s->capture_graph = new Graph;
  return CUDA_SUCCESS;
})

SIM_STREAM_PAIR(cuStreamEndCapture, cuStreamEndCapture_ptsz, (CUstream h, CUgraph* graph), (h, graph), {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!graph) return CUDA_ERROR_INVALID_VALUE;
  Stream* s = resolve_stream(h, per_thread);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  Graph* g;
  CUstreamCaptureStatus status;
  {
    std::lock_guard lock(s->mutex);
    if (s->capture == CU_STREAM_CAPTURE_STATUS_NONE) return CUDA_ERROR_ILLEGAL_STATE;
    status = s->capture;
    g = s->capture_graph;
    s->capture = CU_STREAM_CAPTURE_STATUS_NONE;
    s->capture_graph = nullptr;
  }
  if (status == CU_STREAM_CAPTURE_STATUS_INVALIDATED) {
    delete g;
    *graph = nullptr;
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  {
    std::lock_guard lock(driver().mutex);
    driver().graphs.insert(g);
  }
  *graph = reinterpret_cast<CUgraph>(g);
  return CUDA_SUCCESS;
})

SIM_STREAM_PAIR(cuStreamWaitEvent, cuStreamWaitEvent_ptsz, (CUstream h, CUevent e, unsigned int flags), (h, e, flags), {
  (void)flags;
  Event* ev = event_of(e);
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  settle_marker(ev);
  return submit(h, per_thread, false, [ev] {
    std::unique_lock lock(ev->mutex);
    ev->cv.wait(lock, [&] { return !ev->recorded || ev->done; });
    if (ev->recorded) device_at_least(ev->stamp_ns);
  });
})

SIM_STREAM_PAIR(cuLaunchHostFunc, cuLaunchHostFunc_ptsz, (CUstream h, CUhostFn fn, void* data), (h, fn, data), {
  if (!fn) return CUDA_ERROR_INVALID_VALUE;
  return submit(h, per_thread, false, [fn, data] { fn(data); });
})

SIM_API CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode* mode) {
  if (!mode) return CUDA_ERROR_INVALID_VALUE;
  thread_local CUstreamCaptureMode current = CU_STREAM_CAPTURE_MODE_GLOBAL;
  std::swap(current, *mode);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuEventCreate(CUevent* e, unsigned int) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Context* c = current_context();
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  if (!e) return CUDA_ERROR_INVALID_VALUE;
  auto* ev = new Event;
  ev->context = c;
  driver().events_created.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard lock(driver().mutex);
  driver().events.insert(ev);
  *e = reinterpret_cast<CUevent>(ev);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuEventDestroy_v2(CUevent e) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  auto* ev = reinterpret_cast<Event*>(e);
  std::lock_guard lock(driver().mutex);
  // Retired, not freed: a stream may still stamp it.
  if (!driver().events.erase(ev)) return CUDA_ERROR_INVALID_HANDLE;
  driver().retired.push_back(ev);
  return CUDA_SUCCESS;
}

SIM_STREAM_PAIR(cuEventRecord, cuEventRecord_ptsz, (CUevent e, CUstream h), (e, h), {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  driver().event_records.fetch_add(1, std::memory_order_relaxed);
  Event* ev = event_of(e);
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  Stream* s = resolve_stream(h, per_thread);
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  if (s->context != ev->context) return CUDA_ERROR_INVALID_HANDLE;
  if (capturing(s)) {
    std::lock_guard lock(ev->mutex);
    ev->captured = true;
    ev->capture_stream = s;
    return CUDA_SUCCESS;
  }
  settle_marker(ev);  // recorded again: the earlier record is over
  {
    std::lock_guard lock(ev->mutex);
    ev->recorded = true;
    ev->done = false;
    ev->captured = false;
  }
  if (!s->legacy && s->add_marker(ev)) return CUDA_SUCCESS;
  Operation stamp = [ev] {
    {
      std::lock_guard lock(ev->mutex);
      ev->stamp_ns = device_now();
      ev->done = true;
    }
    ev->cv.notify_all();
  };
  s->enqueue(std::move(stamp), implicit_waits(s));
  return CUDA_SUCCESS;
})

SIM_STREAM_PAIR(cuEventRecordWithFlags, cuEventRecordWithFlags_ptsz, (CUevent e, CUstream h, unsigned int flags), (e, h, flags), {
  (void)flags;
  return per_thread ? cuEventRecord_ptsz(e, h) : cuEventRecord(e, h);
})

namespace {
// A captured event: waiting on it breaks the capture that holds it.
CUresult check_not_captured(Event* ev) {
  Stream* s = nullptr;
  {
    std::lock_guard lock(ev->mutex);
    if (ev->captured) s = ev->capture_stream;
  }
  return s ? invalidate_capture(s) : CUDA_SUCCESS;
}
}  // namespace

SIM_API CUresult cuEventSynchronize(CUevent e) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Event* ev = event_of(e);
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  if (CUresult r = check_not_captured(ev); r != CUDA_SUCCESS) return r;
  settle_marker(ev);
  std::unique_lock lock(ev->mutex);
  ev->cv.wait(lock, [&] { return !ev->recorded || ev->done; });
  return CUDA_SUCCESS;
}

SIM_API CUresult cuEventQuery(CUevent e) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Event* ev = event_of(e);
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  if (CUresult r = check_not_captured(ev); r != CUDA_SUCCESS) return r;
  settle_marker(ev);
  std::lock_guard lock(ev->mutex);
  return !ev->recorded || ev->done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

SIM_API CUresult cuEventElapsedTime_v2(float* ms, CUevent start, CUevent end) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!ms) return CUDA_ERROR_INVALID_VALUE;
  Event* a = event_of(start);
  Event* b = event_of(end);
  if (!a || !b) return CUDA_ERROR_INVALID_HANDLE;
  if (CUresult r = check_not_captured(a); r != CUDA_SUCCESS) return r;
  if (CUresult r = check_not_captured(b); r != CUDA_SUCCESS) return r;
  settle_marker(a);
  settle_marker(b);
  std::uint64_t t0, t1;
  {
    std::lock_guard lock(a->mutex);
    if (!a->recorded) return CUDA_ERROR_INVALID_HANDLE;
    if (!a->done) return CUDA_ERROR_NOT_READY;
    t0 = a->stamp_ns;
  }
  {
    std::lock_guard lock(b->mutex);
    if (!b->recorded) return CUDA_ERROR_INVALID_HANDLE;
    if (!b->done) return CUDA_ERROR_NOT_READY;
    t1 = b->stamp_ns;
  }
  *ms = static_cast<float>((static_cast<double>(t1) - static_cast<double>(t0)) / 1e6);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) { return cuEventElapsedTime_v2(ms, start, end); }

SIM_API CUresult cuGraphCreate(CUgraph* graph, unsigned int flags) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!graph || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  auto* g = new Graph;
  std::lock_guard lock(driver().mutex);
  driver().graphs.insert(g);
  *graph = reinterpret_cast<CUgraph>(g);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuGraphInstantiateWithFlags(CUgraphExec* exec, CUgraph graph, unsigned long long) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!exec) return CUDA_ERROR_INVALID_VALUE;
  auto* g = reinterpret_cast<Graph*>(graph);
  std::lock_guard lock(driver().mutex);
  if (!driver().graphs.count(g)) return CUDA_ERROR_INVALID_HANDLE;
  auto* e = new GraphExec{g->operations};
  driver().graph_execs.insert(e);
  *exec = reinterpret_cast<CUgraphExec>(e);
  return CUDA_SUCCESS;
}

SIM_STREAM_PAIR(cuGraphLaunch, cuGraphLaunch_ptsz, (CUgraphExec exec, CUstream h), (exec, h), {
  auto* e = reinterpret_cast<GraphExec*>(exec);
  {
    std::lock_guard lock(driver().mutex);
    if (!driver().graph_execs.count(e)) return CUDA_ERROR_INVALID_HANDLE;
  }
  DriverCall call(per_thread ? CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz : CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch);
  WorkRecord work;
  work.kind = WorkKind::graph;
  work.graph_id = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(e) >> 4) | 1;
  WorkNote note(work);
  return submit(h, per_thread, false, [e] {
    for (const auto& op : e->operations) op();
  });
})

SIM_API CUresult cuGraphExecDestroy(CUgraphExec exec) {
  std::lock_guard lock(driver().mutex);
  if (!driver().graph_execs.erase(reinterpret_cast<GraphExec*>(exec))) return CUDA_ERROR_INVALID_HANDLE;
  driver().retired.push_back(exec);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuGraphDestroy(CUgraph graph) {
  std::lock_guard lock(driver().mutex);
  if (!driver().graphs.erase(reinterpret_cast<Graph*>(graph))) return CUDA_ERROR_INVALID_HANDLE;
  driver().retired.push_back(graph);
  return CUDA_SUCCESS;
}
