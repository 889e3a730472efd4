#include "shim/process/profiling_state.hpp"

#include <pthread.h>

#include <atomic>
#include <cstdlib>

#include "config/report.hpp"
#include "shim/process/capture_window.hpp"
#include "shim/process/clock.hpp"
#include "shim/process/secure_execution.hpp"

__attribute__((visibility("hidden"))) std::atomic<computeprof::shim::RecordingState> computeprof_cuda_state{
    computeprof::shim::RecordingState::unknown};
__attribute__((visibility("hidden"))) std::atomic<computeprof::shim::MemoryTracing> computeprof_memory_state{
    computeprof::shim::MemoryTracing::unknown};
__attribute__((visibility("hidden"))) std::atomic<computeprof::shim::ApiTracing> computeprof_api_state{
    computeprof::shim::ApiTracing::unknown};

namespace computeprof::shim {
namespace detail {
std::atomic<RecordingState> g_opencl_state{RecordingState::unknown};
// Leaked: read until the very end of the process.
std::atomic<const ProcessProfile*> g_profile{nullptr};
}  // namespace detail

namespace {

pthread_once_t g_once = PTHREAD_ONCE_INIT;
std::atomic<std::uint64_t> g_loaded_wall_ns{0};

ApiProfile make_api_profile(config::Settings settings) {
  ApiProfile p;
  p.fields = record_fields(settings);
  p.operations.concurrent = settings.config.has(config::Option::conckerneltrace);
  p.operations.counters = settings.config.collects_counters();
  p.operations.callstack_depth = settings.config.callstack_depth;
  p.plain_launches = !settings.config.kernel_filters.active() && !p.operations.counters;
  p.settings = std::move(settings);
  return p;
}

// Secure execution: whether the user asked for profiling, from the presence of a
// variable alone (its value is not read), to say once why nothing is profiled.
bool profiling_asked_for() {
  for (const char* name : {"COMPUTE_PROFILE", "CUDA_PROFILE", "OPENCL_PROFILE"}) {
    if (std::getenv(name)) return true;
  }
  return false;
}

void load_profile() {
  g_loaded_wall_ns.store(wall_ns(), std::memory_order_relaxed);
  if (secure_execution()) {
    detail::g_profile.store(new ProcessProfile{}, std::memory_order_release);
    computeprof_cuda_state.store(RecordingState::off, std::memory_order_release);
    computeprof_memory_state.store(MemoryTracing::off, std::memory_order_release);
    computeprof_api_state.store(ApiTracing::off, std::memory_order_release);
    detail::g_opencl_state.store(RecordingState::off, std::memory_order_release);
    if (profiling_asked_for()) {
      config::warn("secure execution (a setuid, setgid or privileged program): nothing is profiled and no "
                   "computeprof variable is read");
    }
    return;
  }
  auto settings = config::load_process_settings(config::process_env, nullptr);
  auto* profile =
      new ProcessProfile{make_api_profile(std::move(settings.cuda)), make_api_profile(std::move(settings.opencl))};
  const auto& cuda = profile->cuda.settings;
  RecordingState s = RecordingState::off;
  // A capture window: paused until its range opens (capture_window).
  const bool window = cuda.config.capture_range.active();
  if (cuda.enabled) s = cuda.config.enable_on_start && !window ? RecordingState::recording : RecordingState::paused;
  if (cuda.enabled && window) std::atexit(report_unopened_capture_window);
  computeprof_cuda_state.store(s, std::memory_order_release);
  MemoryTracing memory = MemoryTracing::off;
  if (cuda.enabled && cuda.config.memtrace) memory = MemoryTracing::on;
  else if (cuda.enabled && cuda.config.traces_api_calls()) memory = MemoryTracing::calls;
  computeprof_memory_state.store(memory, std::memory_order_release);
  computeprof_api_state.store(cuda.enabled && cuda.config.traces_api_calls() ? ApiTracing::on : ApiTracing::off,
                              std::memory_order_release);
  const auto& opencl = profile->opencl.settings;
  RecordingState cl = RecordingState::off;
  if (opencl.enabled) cl = opencl.config.enable_on_start ? RecordingState::recording : RecordingState::paused;
  detail::g_opencl_state.store(cl, std::memory_order_release);
  detail::g_profile.store(profile, std::memory_order_release);
}

}  // namespace

RecordingState detail::initialise_profile() {
  pthread_once(&g_once, load_profile);
  return computeprof_cuda_state.load(std::memory_order_acquire);
}

const ProcessProfile& detail::load_process_profile() {
  pthread_once(&g_once, load_profile);
  return *g_profile.load(std::memory_order_acquire);
}

std::uint64_t profile_loaded_wall_ns() {
  detail::initialise_profile();
  return g_loaded_wall_ns.load(std::memory_order_relaxed);
}

void set_cuda_paused(bool paused) {
  detail::initialise_profile();
  if (!process_profile().cuda.settings.enabled) return;
  computeprof_cuda_state.store(paused ? RecordingState::paused : RecordingState::recording, std::memory_order_release);
}

}  // namespace computeprof::shim
