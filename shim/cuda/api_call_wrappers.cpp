// apitrace's calls (docs/format.md, "API calls"): the calls that wait for the GPU or mark
// its streams, each traced with its thread, times, result and what it waited for or
// marked. The trampolines (intercept/cuda_trampolines.S) reach these wrappers only while
// apitrace is on or undecided; a call made inside a recorded operation's real call is
// the driver's own business and passes untraced.
#include "shim/cuda/api_call_trace.hpp"

using namespace computeprof::shim;
using computeprof::records::ApiCallKind;

COMPUTEPROF_API_WRAPPER(cuStreamSynchronize, (CUstream stream)) {
  COMPUTEPROF_UNTRACED_CALL_OR(cuStreamSynchronize, stream);
  return traced_call("cuStreamSynchronize", ApiCallKind::stream_synchronize, stream_target(stream, false),
                     [&] { return real_fn(stream); });
}

COMPUTEPROF_API_WRAPPER(cuStreamSynchronize_ptsz, (CUstream stream)) {
  COMPUTEPROF_UNTRACED_CALL_OR(cuStreamSynchronize_ptsz, stream);
  return traced_call("cuStreamSynchronize_ptsz", ApiCallKind::stream_synchronize, stream_target(stream, true),
                     [&] { return real_fn(stream); });
}

COMPUTEPROF_API_WRAPPER(cuCtxSynchronize, ()) {
  COMPUTEPROF_UNTRACED_CALL_OR(cuCtxSynchronize);
  return traced_call("cuCtxSynchronize", ApiCallKind::context_synchronize, {}, [&] { return real_fn(); });
}

COMPUTEPROF_API_WRAPPER(cuCtxSynchronize_v2, (CUcontext context)) {
  COMPUTEPROF_UNTRACED_CALL_OR(cuCtxSynchronize_v2, context);
  return traced_call("cuCtxSynchronize_v2", ApiCallKind::context_synchronize, {}, [&] { return real_fn(context); });
}

COMPUTEPROF_API_WRAPPER(cuEventSynchronize, (CUevent event)) {
  COMPUTEPROF_UNTRACED_CALL_OR(cuEventSynchronize, event);
  return traced_call("cuEventSynchronize", ApiCallKind::event_synchronize, {nullptr, false, event},
                     [&] { return real_fn(event); });
}

COMPUTEPROF_API_WRAPPER(cuStreamWaitEvent, (CUstream stream, CUevent event, unsigned int flags)) {
  COMPUTEPROF_UNTRACED_CALL_OR(cuStreamWaitEvent, stream, event, flags);
  return traced_call("cuStreamWaitEvent", ApiCallKind::stream_wait_event, stream_target(stream, false, event),
                     [&] { return real_fn(stream, event, flags); });
}

COMPUTEPROF_API_WRAPPER(cuStreamWaitEvent_ptsz, (CUstream stream, CUevent event, unsigned int flags)) {
  COMPUTEPROF_UNTRACED_CALL_OR(cuStreamWaitEvent_ptsz, stream, event, flags);
  return traced_call("cuStreamWaitEvent_ptsz", ApiCallKind::stream_wait_event, stream_target(stream, true, event),
                     [&] { return real_fn(stream, event, flags); });
}

COMPUTEPROF_API_WRAPPER(cuEventRecord, (CUevent event, CUstream stream)) {
  COMPUTEPROF_UNTRACED_CALL_OR(cuEventRecord, event, stream);
  return traced_call("cuEventRecord", ApiCallKind::event_record, stream_target(stream, false, event),
                     [&] { return real_fn(event, stream); });
}

COMPUTEPROF_API_WRAPPER(cuEventRecord_ptsz, (CUevent event, CUstream stream)) {
  COMPUTEPROF_UNTRACED_CALL_OR(cuEventRecord_ptsz, event, stream);
  return traced_call("cuEventRecord_ptsz", ApiCallKind::event_record, stream_target(stream, true, event),
                     [&] { return real_fn(event, stream); });
}

COMPUTEPROF_API_WRAPPER(cuEventRecordWithFlags, (CUevent event, CUstream stream, unsigned int flags)) {
  COMPUTEPROF_UNTRACED_CALL_OR(cuEventRecordWithFlags, event, stream, flags);
  return traced_call("cuEventRecordWithFlags", ApiCallKind::event_record, stream_target(stream, false, event),
                     [&] { return real_fn(event, stream, flags); });
}

COMPUTEPROF_API_WRAPPER(cuEventRecordWithFlags_ptsz, (CUevent event, CUstream stream, unsigned int flags)) {
  COMPUTEPROF_UNTRACED_CALL_OR(cuEventRecordWithFlags_ptsz, event, stream, flags);
  return traced_call("cuEventRecordWithFlags_ptsz", ApiCallKind::event_record, stream_target(stream, true, event),
                     [&] { return real_fn(event, stream, flags); });
}
