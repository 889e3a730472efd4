#pragma once
// API calls (apitrace) as Chrome trace events (docs/format.md, "JSON trace"): a
// complete event on the calling thread's track, cat "cuda_driver" or "cuda_runtime" as
// Kineto names the calls of each API, with what the call waited for or marked as args.
#include <cstdint>
#include <string>

#include "records/api_call.hpp"
#include "traces/trace_events.hpp"

namespace computeprof::traces {

// Appends `call`'s event to `out`: on `track`, starting `start_ns` after the trace's
// time 0.
void append_api_call_event(std::string& out, const records::ApiCall& call, TraceTrack track, std::uint64_t start_ns);

}  // namespace computeprof::traces
