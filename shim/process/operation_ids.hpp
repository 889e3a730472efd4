#pragma once
// Who made an operation: an id for each intercepted call, unique in the process, and
// the calling thread's id. Both per thread, without a counter shared by all threads.
#include <cstdint>

namespace computeprof::shim {

// A fresh id for an operation of the calling thread: the thread's number above its own
// count (2^40 operations per thread before ids could repeat).
std::uint64_t next_operation_id();

// The kernel's id of the calling thread (gettid), cached.
std::uint32_t this_thread_id();

}  // namespace computeprof::shim
