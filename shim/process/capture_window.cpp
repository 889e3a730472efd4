#include "shim/process/capture_window.hpp"

#include <cstdint>
#include <mutex>

#include <fmt/format.h>

#include "config/report.hpp"
#include "shim/process/profiling_state.hpp"

namespace computeprof::shim {
namespace {

// Only ranges of the window's name come here: a lock is no cost to the others.
std::mutex g_mutex;
std::uint64_t g_open = 0;       // instances open now
std::uint64_t g_instances = 0;  // instances that opened
bool g_done = false;            // the last instance closed: recording stays paused

const config::CaptureRange& window() { return process_profile().cuda.settings.config.capture_range; }

}  // namespace

bool capture_window_configured() {
  const auto& cuda = process_profile().cuda.settings;
  return cuda.enabled && cuda.config.capture_range.active();
}

void capture_range_opened() {
  std::lock_guard lock(g_mutex);
  if (g_done) return;
  if (g_open++ == 0) {
    ++g_instances;
    set_cuda_paused(false);
  }
}

void capture_range_closed() {
  std::lock_guard lock(g_mutex);
  if (g_done || g_open == 0) return;
  if (--g_open != 0) return;
  set_cuda_paused(true);
  g_done = g_instances >= window().instances;
}

void report_unopened_capture_window() {
  std::lock_guard lock(g_mutex);
  if (g_instances != 0) return;
  const auto& w = window();
  config::warn(fmt::format("capturerange: no NVTX range '{}'{} was opened; nothing was profiled",
                           config::escape_for_warning(w.name),
                           w.domain.empty() ? std::string() : fmt::format(" of domain '{}'",
                                                                          config::escape_for_warning(w.domain))));
}

}  // namespace computeprof::shim
