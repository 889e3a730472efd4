#pragma once
// capturerange nvtx NAME[@DOMAIN] (docs/format.md, "NVTX ranges"): CUDA operations are
// recorded only while a range of that name is open on some thread, for its first
// `capturerangeend` instances. The window pauses and resumes recording as
// cuProfilerStop and cuProfilerStart do, so that the trampolines' one test keeps
// everything outside it away from the shim, and the kernel filters count only the
// launches inside it. shim/nvtx/ tells it when such a range opens and closes.
namespace computeprof::shim {

// Recording starts paused when a window is configured (profiling_state).
bool capture_window_configured();
// An instance of the window's range opened, or closed, on any thread. Ranges of the
// name may nest or overlap: the window is open while any is.
void capture_range_opened();
void capture_range_closed();
// At exit, with a window whose range never opened: one line saying so.
void report_unopened_capture_window();

}  // namespace computeprof::shim
