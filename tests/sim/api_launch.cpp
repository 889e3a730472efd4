// Kernel launches: validated like the driver, executed on the stream's worker.
#include <cupti_driver_cbid.h>

#include <cstring>

#include "sim.hpp"
#include "sim_api.hpp"
#include "work_trace.hpp"

using namespace sim;

namespace sim {
const KernelSpec* launched_spec(CUfunction f);
}

namespace {

CUresult launch(int cbid, CUfunction f, LaunchGeometry g, unsigned int smem, CUstream h, void** params,
                void** extra, bool per_thread) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!current_context()) return CUDA_ERROR_INVALID_CONTEXT;
  const KernelSpec* spec = launched_spec(f);
  if (!spec) return CUDA_ERROR_INVALID_HANDLE;
  for (unsigned d : {g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1], g.block[2]}) {
    if (d == 0) return CUDA_ERROR_INVALID_VALUE;
  }
  if (static_cast<unsigned long long>(g.block[0]) * g.block[1] * g.block[2] > kMaxThreadsPerBlock ||
      g.block[0] > 1024 || g.block[1] > 1024 || g.block[2] > 64 || g.grid[1] > 65535 || g.grid[2] > 65535) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (static_cast<unsigned long long>(spec->static_smem) + smem > kSharedPerBlock) return CUDA_ERROR_INVALID_VALUE;
  // Arguments are copied now: the launch runs later, on the worker.
  std::vector<std::vector<unsigned char>> args;
  if (!spec->param_sizes.empty()) {
    if (params) {
      for (std::size_t i = 0; i < spec->param_sizes.size(); ++i) {
        const auto* p = static_cast<const unsigned char*>(params[i]);
        args.emplace_back(p, p + spec->param_sizes[i]);
      }
    } else if (extra && extra[0] == CU_LAUNCH_PARAM_BUFFER_POINTER && extra[2] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
      const auto* buffer = static_cast<const unsigned char*>(extra[1]);
      std::size_t offset = 0;
      for (std::size_t size : spec->param_sizes) {
        offset = (offset + size - 1) / size * size;
        args.emplace_back(buffer + offset, buffer + offset + size);
        offset += size;
      }
    } else {
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  WorkRecord work;
  work.kind = WorkKind::kernel;
  work.name = spec->name.c_str();
  for (int i = 0; i < 3; ++i) {
    work.grid[i] = g.grid[i];
    work.block[i] = g.block[i];
  }
  work.dynamic_smem = smem;
  work.static_smem = static_cast<std::uint32_t>(spec->static_smem);
  work.registers = static_cast<std::uint32_t>(spec->registers);
  DriverCall call(cbid);
  WorkNote note(work);
  return submit(h, per_thread, false, [spec, g, args = std::move(args)] {
    device_delay(kernel_launch_latency_ns());
    if (spec->body) spec->body(g, args);
  });
}

LaunchGeometry geometry(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz) {
  return {{gx, gy, gz}, {bx, by, bz}};
}

}  // namespace

SIM_API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                unsigned bz, unsigned smem, CUstream s, void** params, void** extra) {
  return launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, f, geometry(gx, gy, gz, bx, by, bz), smem, s, params, extra, false);
}
SIM_API CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                     unsigned bz, unsigned smem, CUstream s, void** params, void** extra) {
  return launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, f, geometry(gx, gy, gz, bx, by, bz), smem, s, params, extra, true);
}
SIM_API CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                           unsigned by, unsigned bz, unsigned smem, CUstream s, void** params) {
  return launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, f, geometry(gx, gy, gz, bx, by, bz), smem, s, params, nullptr, false);
}
SIM_API CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                                unsigned by, unsigned bz, unsigned smem, CUstream s, void** params) {
  return launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz, f, geometry(gx, gy, gz, bx, by, bz), smem, s, params, nullptr, true);
}
SIM_API CUresult cuLaunchKernelEx(const CUlaunchConfig* c, CUfunction f, void** params, void** extra) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  return launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, f, geometry(c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ),
                c->sharedMemBytes, c->hStream, params, extra, false);
}
SIM_API CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig* c, CUfunction f, void** params, void** extra) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  return launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, f, geometry(c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ),
                c->sharedMemBytes, c->hStream, params, extra, true);
}
