#pragma once
// The program's call stack at each recorded call (`callstack [DEPTH]`, docs/format.md
// "Call stacks"): captured on the calling thread as return addresses, the shim's own
// frames left out, and interned: each distinct stack gets a number once, and later
// captures of the same stack find it in a per-thread cache without a lock. Names are
// looked up only by the outputs (symbolized_stack), never on the calling thread: from
// the binaries with libdw (symbols/), else from the exported symbols (dladdr).
#include <cstdint>
#include <string>
#include <vector>

#include "symbols/frame.hpp"
#include "symbols/symbolizer.hpp"

namespace computeprof::shim {

// The number of the calling thread's current stack (up to `depth` of the program's
// frames), 0 when `depth` is 0 (callstack off) or nothing could be captured.
std::uint32_t capture_call_stack(unsigned depth);

// How a stack is captured: libunwind's unw_backtrace where libunwind.so.8 can be
// loaded, else libgcc's unwinder (what glibc's backtrace() uses); both read the frames'
// unwind tables, so they work through code built without frame pointers.
// bench/stack_capture compares them with glibc's backtrace() and frame pointers.

using StackFrame = symbols::Frame;

// The frames of stack `id`, innermost first, a function inlined at a call a frame of
// its own; symbolized the first time it is asked for and kept (entries are never
// removed: the reference stays valid). Any thread: the writer and the exports' own.
const std::vector<StackFrame>& symbolized_stack(std::uint32_t id);

// The modules the frames symbolized so far lie in, in the order first seen, with the
// build-ids of their images in memory (the stacks file's module list). Any thread.
std::vector<symbols::ModuleIdentity> symbolized_modules();

using symbols::describe_frame;

}  // namespace computeprof::shim
