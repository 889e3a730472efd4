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

// The return addresses of stack `id`, innermost first (one per address: the frames of
// functions inlined at a call share it); how many were written.
__attribute__((visibility("default"))) std::size_t stack_capture_shim_frames(std::uint32_t id, std::uintptr_t* out,
                                                                             std::size_t most) {
  std::size_t n = 0;
  for (const auto& frame : computeprof::shim::symbolized_stack(id)) {
    if (n == most) break;
    if (!frame.inlined) out[n++] = frame.address;
  }
  return n;
}

// Stack `id` named as the writer names it (symbolized_stack), and, when `describe`,
// its frames' text as the stacks file writes them; the number of frames, and of bytes
// of text in `*bytes`.
__attribute__((visibility("default"))) std::size_t stack_capture_shim_name(std::uint32_t id, bool describe,
                                                                           std::size_t* bytes) {
  const auto& frames = computeprof::shim::symbolized_stack(id);
  if (describe) {
    for (const auto& frame : frames) *bytes += computeprof::shim::describe_frame(frame).size();
  }
  return frames.size();
}

}  // extern "C"
