// OpenCL calls the shim wraps for what they create or answer, not to time them:
// queues get profiling turned on behind the program's back (and the program's own
// view of them stays as it asked), contexts and kernels are noted as handles that may
// have been reused.
#include <cstring>
#include <vector>

#include "shim/intercept/opencl_entry_functions.hpp"
#include "shim/opencl/context_table.hpp"
#include "shim/opencl/kernel_names.hpp"
#include "shim/opencl/nvidia_occupancy.hpp"
#include "shim/opencl/queue_registry.hpp"
#include "shim/process/profiling_state.hpp"

namespace computeprof::shim {
namespace {

void set_error(cl_int* errcode_ret, cl_int error) {
  if (errcode_ret) *errcode_ret = error;
}

// The program's property list with CL_QUEUE_PROFILING_ENABLE added.
std::vector<cl_queue_properties> with_profiling(const cl_queue_properties* asked) {
  std::vector<cl_queue_properties> list;
  bool has_properties = false;
  for (const cl_queue_properties* p = asked; p && *p; p += 2) {
    list.push_back(p[0]);
    list.push_back(p[0] == CL_QUEUE_PROPERTIES ? (p[1] | CL_QUEUE_PROFILING_ENABLE) : p[1]);
    has_properties = has_properties || p[0] == CL_QUEUE_PROPERTIES;
  }
  if (!has_properties) {
    list.push_back(CL_QUEUE_PROPERTIES);
    list.push_back(CL_QUEUE_PROFILING_ENABLE);
  }
  list.push_back(0);
  return list;
}

ProgramQueueProperties as_asked(const cl_queue_properties* asked) {
  ProgramQueueProperties q;
  for (const cl_queue_properties* p = asked; p && *p; p += 2) {
    if (p[0] == CL_QUEUE_PROPERTIES) q.properties = p[1];
    q.property_list.push_back(p[0]);
    q.property_list.push_back(p[1]);
  }
  if (asked) q.property_list.push_back(0);
  q.profiling_added = !(q.properties & CL_QUEUE_PROFILING_ENABLE);
  return q;
}

// Answers a query with `bytes` bytes at `data`, as the runtime would.
cl_int answer(const void* data, std::size_t bytes, std::size_t size, void* value, std::size_t* size_ret) {
  if (value && size < bytes) return CL_INVALID_VALUE;
  if (value && bytes) std::memcpy(value, data, bytes);
  if (size_ret) *size_ret = bytes;
  return CL_SUCCESS;
}

}  // namespace
}  // namespace computeprof::shim

using namespace computeprof::shim;

COMPUTEPROF_CL_EXPORT cl_command_queue clCreateCommandQueue(cl_context context, cl_device_id device,
                                                            cl_command_queue_properties properties,
                                                            cl_int* errcode_ret) {
  auto* real_fn = COMPUTEPROF_CL_REAL(clCreateCommandQueue);
  if (!real_fn) {
    set_error(errcode_ret, missing_opencl_function("clCreateCommandQueue"));
    return nullptr;
  }
  if (!opencl_enabled() || (properties & CL_QUEUE_PROFILING_ENABLE)) {
    cl_command_queue queue = real_fn(context, device, properties, errcode_ret);
    if (queue && opencl_enabled()) remember_queue(queue, {properties, {}, false, 0});
    return queue;
  }
  cl_command_queue queue = real_fn(context, device, properties | CL_QUEUE_PROFILING_ENABLE, errcode_ret);
  // A runtime that refuses profiling gets the program's own request, and its answer.
  if (!queue) return real_fn(context, device, properties, errcode_ret);
  remember_queue(queue, {properties, {}, true, 0});
  return queue;
}

COMPUTEPROF_CL_EXPORT cl_command_queue clCreateCommandQueueWithProperties(cl_context context, cl_device_id device,
                                                                          const cl_queue_properties* properties,
                                                                          cl_int* errcode_ret) {
  auto* real_fn = COMPUTEPROF_CL_REAL(clCreateCommandQueueWithProperties);
  if (!real_fn) {
    set_error(errcode_ret, missing_opencl_function("clCreateCommandQueueWithProperties"));
    return nullptr;
  }
  if (!opencl_enabled()) return real_fn(context, device, properties, errcode_ret);
  ProgramQueueProperties asked = as_asked(properties);
  if (!asked.profiling_added) {
    cl_command_queue queue = real_fn(context, device, properties, errcode_ret);
    if (queue) remember_queue(queue, std::move(asked));
    return queue;
  }
  const std::vector<cl_queue_properties> list = with_profiling(properties);
  cl_command_queue queue = real_fn(context, device, list.data(), errcode_ret);
  if (!queue) return real_fn(context, device, properties, errcode_ret);
  remember_queue(queue, std::move(asked));
  return queue;
}

COMPUTEPROF_CL_EXPORT cl_int clGetCommandQueueInfo(cl_command_queue queue, cl_command_queue_info name, size_t size,
                                                   void* value, size_t* size_ret) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clGetCommandQueueInfo);
  if (!opencl_enabled() || (name != CL_QUEUE_PROPERTIES && name != CL_QUEUE_PROPERTIES_ARRAY)) {
    return real_fn(queue, name, size, value, size_ret);
  }
  const auto asked = program_queue_properties(queue);
  if (!asked || !asked->profiling_added) return real_fn(queue, name, size, value, size_ret);
  if (name == CL_QUEUE_PROPERTIES) {
    // The runtime checks the queue and the size; only the value is the program's.
    const cl_int r = real_fn(queue, name, size, value, size_ret);
    if (r == CL_SUCCESS && value) std::memcpy(value, &asked->properties, sizeof asked->properties);
    return r;
  }
  const cl_int valid = real_fn(queue, CL_QUEUE_REFERENCE_COUNT, 0, nullptr, nullptr);
  if (valid != CL_SUCCESS) return valid;
  return answer(asked->property_list.data(), asked->property_list.size() * sizeof(cl_queue_properties), size, value,
                size_ret);
}

// Events of a queue the program created without profiling have no times for it.
COMPUTEPROF_CL_EXPORT cl_int clGetEventProfilingInfo(cl_event event, cl_profiling_info name, size_t size,
                                                     void* value, size_t* size_ret) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clGetEventProfilingInfo);
  if (!opencl_enabled()) return real_fn(event, name, size, value, size_ret);
  cl_command_queue queue = nullptr;
  auto* event_info = COMPUTEPROF_CL_REAL(clGetEventInfo);
  if (event_info && event_info(event, CL_EVENT_COMMAND_QUEUE, sizeof queue, &queue, nullptr) == CL_SUCCESS && queue) {
    const auto asked = program_queue_properties(queue);
    if (asked && asked->profiling_added) return CL_PROFILING_INFO_NOT_AVAILABLE;
  }
  return real_fn(event, name, size, value, size_ret);
}

COMPUTEPROF_CL_EXPORT cl_context clCreateContext(const cl_context_properties* properties, cl_uint num_devices,
                                                 const cl_device_id* devices,
                                                 void(CL_CALLBACK* notify)(const char*, const void*, size_t, void*),
                                                 void* user_data, cl_int* errcode_ret) {
  auto* real_fn = COMPUTEPROF_CL_REAL(clCreateContext);
  if (!real_fn) {
    set_error(errcode_ret, missing_opencl_function("clCreateContext"));
    return nullptr;
  }
  cl_context context = real_fn(properties, num_devices, devices, notify, user_data, errcode_ret);
  if (context && opencl_enabled()) opencl_context_created(context);
  return context;
}

COMPUTEPROF_CL_EXPORT cl_context clCreateContextFromType(const cl_context_properties* properties,
                                                         cl_device_type type,
                                                         void(CL_CALLBACK* notify)(const char*, const void*, size_t,
                                                                                   void*),
                                                         void* user_data, cl_int* errcode_ret) {
  auto* real_fn = COMPUTEPROF_CL_REAL(clCreateContextFromType);
  if (!real_fn) {
    set_error(errcode_ret, missing_opencl_function("clCreateContextFromType"));
    return nullptr;
  }
  cl_context context = real_fn(properties, type, notify, user_data, errcode_ret);
  if (context && opencl_enabled()) opencl_context_created(context);
  return context;
}

COMPUTEPROF_CL_EXPORT cl_kernel clCreateKernel(cl_program program, const char* name, cl_int* errcode_ret) {
  auto* real_fn = COMPUTEPROF_CL_REAL(clCreateKernel);
  if (!real_fn) {
    set_error(errcode_ret, missing_opencl_function("clCreateKernel"));
    return nullptr;
  }
  cl_kernel kernel = real_fn(program, name, errcode_ret);
  if (kernel && opencl_enabled()) {
    opencl_kernels_created(&kernel, 1);
    nvidia_kernels_created();
  }
  return kernel;
}

COMPUTEPROF_CL_EXPORT cl_int clCreateKernelsInProgram(cl_program program, cl_uint num_kernels, cl_kernel* kernels,
                                                      cl_uint* num_kernels_ret) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clCreateKernelsInProgram);
  cl_uint created = 0;
  const cl_int r = real_fn(program, num_kernels, kernels, &created);
  if (r == CL_SUCCESS && num_kernels_ret) *num_kernels_ret = created;
  if (r == CL_SUCCESS && kernels && opencl_enabled()) {
    opencl_kernels_created(kernels, created);
    nvidia_kernels_created();
  }
  return r;
}

COMPUTEPROF_CL_EXPORT cl_kernel clCloneKernel(cl_kernel source, cl_int* errcode_ret) {
  auto* real_fn = COMPUTEPROF_CL_REAL(clCloneKernel);
  if (!real_fn) {
    set_error(errcode_ret, missing_opencl_function("clCloneKernel"));
    return nullptr;
  }
  cl_kernel kernel = real_fn(source, errcode_ret);
  if (kernel && opencl_enabled()) {
    opencl_kernels_created(&kernel, 1);
    nvidia_kernels_created();
  }
  return kernel;
}
