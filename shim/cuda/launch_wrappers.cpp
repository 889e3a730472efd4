// Kernel launches and graph launches.
#include "shim/cuda/kernel_catalog.hpp"
#include "shim/intercept/cuda_entry_functions.hpp"
#include "shim/intercept/driver_calls.hpp"
#include "shim/timing/operation_timing.hpp"

namespace computeprof::shim {
namespace {

struct LaunchShape {
  records::Dim3 grid;
  records::Dim3 block;
  unsigned int dynamic_smem;
};

// The id of `stream`, 0 when the driver cannot tell (kernels lines that name a stream).
std::uint64_t stream_id(CUstream stream) {
  const DriverCalls* d = driver_calls();
  unsigned long long id = 0;
  if (d && d->stream_get_id && d->stream_get_id(stream, &id) == CUDA_SUCCESS) return id;
  return 0;
}

template <typename Call>
CUresult launch(std::string_view api, CUfunction f, const LaunchShape& shape, CUstream stream, bool per_thread,
                Call&& call) {
  auto describe = [&](records::Record& r) { describe_kernel_launch(r, f, shape.grid, shape.block, shape.dynamic_smem); };
  if (inside_recorded_call()) return call();
  OperationTimer timer(stream, per_thread);
  if (!timer.active()) return call();
  const LaunchSelection selection =
      select_launch([&timer]() -> const ProfiledContext& { return *timer.profiled(); },
                    [f]() -> const KernelSelectionState& { return kernel_info(f).selection; },
                    [&timer] { return stream_id(timer.stream()); });
  if (selection == LaunchSelection::unseen) return call();
  return run_recorded_with(api, timer, selection, describe, call);
}

LaunchShape shape_of(const CUlaunchConfig* config) {
  if (!config) return {};
  return {{config->gridDimX, config->gridDimY, config->gridDimZ},
          {config->blockDimX, config->blockDimY, config->blockDimZ},
          config->sharedMemBytes};
}

template <typename Call>
CUresult graph_launch(std::string_view api, CUstream stream, bool per_thread, Call&& call) {
  return run_recorded(
      api, stream, per_thread,
      [](records::Record& r) {
        r.kind = records::RecordKind::graph;
        r.method = "graphLaunch";
      },
      call);
}

}  // namespace
}  // namespace computeprof::shim

using namespace computeprof::shim;

// The real call captures the arguments by value: a copy of each, where capturing by
// reference builds a pointer to each and reads through it (about 25 instructions more
// per launch).
#define COMPUTEPROF_LAUNCH_KERNEL(NAME, PER_THREAD)                                                              \
  COMPUTEPROF_WRAPPER(NAME,                                                                                     \
                      (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,          \
                       unsigned int by, unsigned int bz, unsigned int smem, CUstream stream, void** params,       \
                       void** extra)) {                                                                           \
    COMPUTEPROF_REAL_OR_RETURN(NAME);                                                                             \
    auto call = [=] { return real_fn(f, gx, gy, gz, bx, by, bz, smem, stream, params, extra); };                \
    if (!cuda_recording()) return call();                                                                         \
    return launch(#NAME, f, {{gx, gy, gz}, {bx, by, bz}, smem}, stream, PER_THREAD, call);                        \
  }
COMPUTEPROF_LAUNCH_KERNEL(cuLaunchKernel, false)
COMPUTEPROF_LAUNCH_KERNEL(cuLaunchKernel_ptsz, true)

#define COMPUTEPROF_LAUNCH_KERNEL_EX(NAME, PER_THREAD)                                                            \
  COMPUTEPROF_WRAPPER(NAME, (const CUlaunchConfig* config, CUfunction f, void** params, void** extra)) {         \
    COMPUTEPROF_REAL_OR_RETURN(NAME);                                                                             \
    auto call = [&] { return real_fn(config, f, params, extra); };                                               \
    if (!cuda_recording() || !config) return call();                                                             \
    return launch(#NAME, f, shape_of(config), config->hStream, PER_THREAD, call);                                \
  }
COMPUTEPROF_LAUNCH_KERNEL_EX(cuLaunchKernelEx, false)
COMPUTEPROF_LAUNCH_KERNEL_EX(cuLaunchKernelEx_ptsz, true)

#define COMPUTEPROF_LAUNCH_COOPERATIVE(NAME, PER_THREAD)                                                         \
  COMPUTEPROF_WRAPPER(NAME,                                                                                     \
                      (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,          \
                       unsigned int by, unsigned int bz, unsigned int smem, CUstream stream, void** params)) {    \
    COMPUTEPROF_REAL_OR_RETURN(NAME);                                                                             \
    auto call = [=] { return real_fn(f, gx, gy, gz, bx, by, bz, smem, stream, params); };                        \
    if (!cuda_recording()) return call();                                                                         \
    return launch(#NAME, f, {{gx, gy, gz}, {bx, by, bz}, smem}, stream, PER_THREAD, call);                        \
  }
COMPUTEPROF_LAUNCH_COOPERATIVE(cuLaunchCooperativeKernel, false)
COMPUTEPROF_LAUNCH_COOPERATIVE(cuLaunchCooperativeKernel_ptsz, true)

#define COMPUTEPROF_GRAPH_LAUNCH(NAME, PER_THREAD)                                  \
  COMPUTEPROF_WRAPPER(NAME, (CUgraphExec graph, CUstream stream)) {                  \
    COMPUTEPROF_REAL_OR_RETURN(NAME);                                                \
    auto call = [&] { return real_fn(graph, stream); };                              \
    if (!cuda_recording()) return call();                                            \
    return graph_launch(#NAME, stream, PER_THREAD, call);                            \
  }
COMPUTEPROF_GRAPH_LAUNCH(cuGraphLaunch, false)
COMPUTEPROF_GRAPH_LAUNCH(cuGraphLaunch_ptsz, true)
