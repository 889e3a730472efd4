#pragma once
// The NVTX push/pop ranges open on the calling thread, as a path of the process's
// RangeTable (records/range_table.hpp): shim/nvtx/ sets it at each push and pop, and
// every record the thread makes carries it (identify). One thread-local load per
// operation.
#include <cstdint>

namespace computeprof::shim {

namespace detail {
// Constant-initialised (constinit): read inline with no thread-local wrapper call.
extern constinit thread_local std::uint32_t t_range_path;
}  // namespace detail

inline std::uint32_t thread_range_path() { return detail::t_range_path; }
inline void set_thread_range_path(std::uint32_t path) { detail::t_range_path = path; }

}  // namespace computeprof::shim
