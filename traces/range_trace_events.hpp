#pragma once
// NVTX events as Chrome trace events (docs/format.md, "JSON trace"): a push/pop range a
// complete event on its thread's track with cat "user_annotation" (Kineto's category for
// record_function, which HTA's iteration detection reads: ProfilerStep#N), a start/end
// range an async begin and end (it may end on another thread), a mark an instant event.
#include <cstdint>
#include <string>

#include "records/range_event.hpp"

namespace computeprof::traces {

// Appends `event`'s trace events (none for a kind the trace does not draw: categories,
// domains, thread names) to `out`; `pid` is the process's track, `base_ns` the trace's
// time 0 (wall clock). Returns whether it appended any.
bool append_range_event(std::string& out, const records::RangeEvent& event, std::uint64_t pid, std::uint64_t base_ns);

}  // namespace computeprof::traces
