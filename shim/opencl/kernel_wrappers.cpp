// Kernel launches: clEnqueueNDRangeKernel and clEnqueueTask. ndrangesize is the number
// of work-groups per dimension and workgroupsize the work-items per group (the CUDA
// gridsize and threadblocksize); when the program lets the runtime choose the group
// size and the kernel does not fix it, neither is known: both are written as 0.
// Occupancy is computed for NVIDIA GPUs only (opencl_nvidia.hpp), from a known
// work-group size.
#include <cstddef>
#include <cstdint>

#include "shim/intercept/opencl_entry_functions.hpp"
#include "shim/opencl/command_timer.hpp"
#include "shim/opencl/kernel_names.hpp"
#include "shim/opencl/nvidia_occupancy.hpp"

namespace computeprof::shim {
namespace {

// reqd_work_group_size of the kernel on the queue's device; zeros when it has none.
bool required_group_size(cl_command_queue queue, cl_kernel kernel, std::size_t (&size)[3]) {
  auto* queue_info = COMPUTEPROF_CL_REAL(clGetCommandQueueInfo);
  auto* group_info = COMPUTEPROF_CL_REAL(clGetKernelWorkGroupInfo);
  cl_device_id device = nullptr;
  return queue_info && group_info &&
         queue_info(queue, CL_QUEUE_DEVICE, sizeof device, &device, nullptr) == CL_SUCCESS &&
         group_info(kernel, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof size, size, nullptr) == CL_SUCCESS &&
         size[0] != 0;
}

void describe_launch(records::Record& r, cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
                     const std::size_t* global, const std::size_t* local) {
  r.kind = records::RecordKind::kernel;
  r.method = opencl_kernel_name(kernel);
  if (!global || work_dim < 1 || work_dim > 3) return;  // the runtime rejects it
  std::size_t required[3] = {0, 0, 0};
  const std::size_t* group = local;
  if (!group && required_group_size(queue, kernel, required)) group = required;
  if (local) {
    std::uint64_t items = 1;
    for (cl_uint d = 0; d < work_dim; ++d) items *= local[d];
    r.local_block_size = static_cast<std::uint32_t>(items);
  }
  if (!group) {
    r.grid = {0, 0, 0};
    r.block = {0, 0, 0};
    return;
  }
  std::uint32_t groups[3] = {1, 1, 1}, items[3] = {1, 1, 1};
  for (cl_uint d = 0; d < work_dim; ++d) {
    if (group[d] == 0) return;  // the runtime rejects it
    items[d] = static_cast<std::uint32_t>(group[d]);
    groups[d] = static_cast<std::uint32_t>((global[d] + group[d] - 1) / group[d]);
  }
  r.grid = {groups[0], groups[1], groups[2]};
  r.block = {items[0], items[1], items[2]};
  auto* queue_info = COMPUTEPROF_CL_REAL(clGetCommandQueueInfo);
  cl_device_id device = nullptr;
  if (queue_info && queue_info(queue, CL_QUEUE_DEVICE, sizeof device, &device, nullptr) == CL_SUCCESS) {
    r.occupancy = nvidia_kernel_occupancy(device, kernel, items[0] * items[1] * items[2]);
  }
}

}  // namespace
}  // namespace computeprof::shim

using namespace computeprof::shim;

COMPUTEPROF_CL_EXPORT cl_int clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
                                                    const size_t* global_offset, const size_t* global,
                                                    const size_t* local, cl_uint num_waits, const cl_event* waits,
                                                    cl_event* event) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clEnqueueNDRangeKernel);
  return run_recorded_opencl(
      api_name, queue, event, num_waits, waits,
      [&](computeprof::records::Record& r) { describe_launch(r, queue, kernel, work_dim, global, local); },
      [&](cl_event* e) {
        return real_fn(queue, kernel, work_dim, global_offset, global, local, num_waits, waits, e);
      });
}

// One work-item in one work-group.
COMPUTEPROF_CL_EXPORT cl_int clEnqueueTask(cl_command_queue queue, cl_kernel kernel, cl_uint num_waits,
                                           const cl_event* waits, cl_event* event) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clEnqueueTask);
  return run_recorded_opencl(
      api_name, queue, event, num_waits, waits,
      [&](computeprof::records::Record& r) {
        const std::size_t one = 1;
        describe_launch(r, queue, kernel, 1, &one, &one);
      },
      [&](cl_event* e) { return real_fn(queue, kernel, num_waits, waits, e); });
}
