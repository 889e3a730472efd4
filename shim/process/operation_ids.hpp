#pragma once
// Who made an operation: an id for each intercepted call, unique in the process, and
// the calling thread's id. Both per thread, without a counter shared by all threads.
#include <cstdint>

namespace computeprof::shim {

namespace detail {
// Constant-initialised (constinit): read inline with no thread-local wrapper call.
extern constinit thread_local std::uint64_t t_operation_base;
extern constinit thread_local std::uint64_t t_operations;
extern constinit thread_local std::uint32_t t_thread_id;
std::uint64_t first_operation_id();
std::uint32_t find_thread_id();
}  // namespace detail

// A fresh id for an operation of the calling thread: the thread's number above its own
// count (2^40 operations per thread before ids could repeat). Inline: asked per operation.
inline std::uint64_t next_operation_id() {
  if (detail::t_operation_base == 0) return detail::first_operation_id();
  return detail::t_operation_base | (++detail::t_operations & ((std::uint64_t{1} << 40) - 1));
}

// The kernel's id of the calling thread (gettid), cached.
inline std::uint32_t this_thread_id() {
  if (detail::t_thread_id == 0) return detail::find_thread_id();
  return detail::t_thread_id;
}

}  // namespace computeprof::shim
