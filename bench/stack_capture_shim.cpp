// The shim's own stack capture (shim/process/call_stacks.cpp, compiled once for the
// shim), in a shared library linked as libcomputeprof.so is (libgcc's unwinder and the
// C++ runtime linked in statically, kept local), so that bench/stack_capture measures
// exactly what a launch pays: the frames of this library are the "shim's own" ones the
// capture leaves out, the bench's are the program's.
#include <cstddef>
#include <cstdint>

#include "shim/process/call_stacks.hpp"

extern "C" {

// capture_call_stack: unwinding and interning (a hit in the per-thread cache when the
// same stack was captured before, as in a loop of launches).
__attribute__((visibility("default"))) std::uint32_t stack_capture_shim_capture(unsigned depth) {
  return computeprof::shim::capture_call_stack(depth);
}

// The return addresses of stack `id`, innermost first; how many were written.
__attribute__((visibility("default"))) std::size_t stack_capture_shim_frames(std::uint32_t id, std::uintptr_t* out,
                                                                             std::size_t most) {
  const auto& frames = computeprof::shim::symbolized_stack(id);
  std::size_t n = 0;
  for (; n < frames.size() && n < most; ++n) out[n] = frames[n].address;
  return n;
}

}  // extern "C"
