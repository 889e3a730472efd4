#include "shim/intercept/opencl_entry_functions.hpp"
#include "shim/opencl/nvidia_occupancy.hpp"

#include <array>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "shim/opencl/info_text.hpp"
#include "shim/opencl/kernel_names.hpp"
#include "shim/opencl/occupancy_calculator.hpp"
#include "shim/opencl/ptxas_usage.hpp"
#include "shim/process/profiling_state.hpp"

// cl_nv_device_attribute_query (CL/cl_ext.h names them too; spelled here so that older
// headers build).
#define COMPUTEPROF_CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#define COMPUTEPROF_CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001

namespace computeprof::shim {
namespace {

constexpr std::string_view kVerbose = "-cl-nv-verbose";

struct ProgramBuild {
  std::string options;      // as the program gave them
  bool verbose_added = false;
  bool registers_read = false;
  std::map<std::string, std::uint32_t, std::less<>> registers;  // per kernel name
};

// Builds and device limits are looked at per build and per launch of a kernel on an
// NVIDIA device only; a lock is good enough there.
struct NvidiaState {
  std::mutex mutex;
  std::map<cl_program, ProgramBuild> builds;
  std::map<cl_device_id, std::optional<SmLimits>> devices;
};
NvidiaState& state() {
  static NvidiaState* s = new NvidiaState;  // used by exit-time records
  return *s;
}

std::optional<SmLimits> query_limits(cl_device_id device) {
  auto* info = COMPUTEPROF_CL_REAL(clGetDeviceInfo);
  // Both texts are empty where `info` is null.
  if (opencl_info_text(info, device, CL_DEVICE_VENDOR).find("NVIDIA") == std::string::npos ||
      opencl_info_text(info, device, CL_DEVICE_EXTENSIONS).find("cl_nv_device_attribute_query") == std::string::npos) {
    return std::nullopt;
  }
  cl_uint major = 0, minor = 0;
  if (info(device, COMPUTEPROF_CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major, &major, nullptr) != CL_SUCCESS ||
      info(device, COMPUTEPROF_CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof minor, &minor, nullptr) != CL_SUCCESS) {
    return std::nullopt;
  }
  return sm_limits(static_cast<int>(major), static_cast<int>(minor));
}

// Under the state's lock.
const std::optional<SmLimits>& limits_of(NvidiaState& s, cl_device_id device) {
  auto it = s.devices.find(device);
  if (it == s.devices.end()) it = s.devices.emplace(device, query_limits(device)).first;
  return it->second;
}

std::vector<cl_device_id> build_devices(cl_program program, cl_uint count, const cl_device_id* listed) {
  if (listed && count > 0) return {listed, listed + count};
  auto* info = COMPUTEPROF_CL_REAL(clGetProgramInfo);
  cl_uint n = 0;
  if (!info || info(program, CL_PROGRAM_NUM_DEVICES, sizeof n, &n, nullptr) != CL_SUCCESS || n == 0) return {};
  std::vector<cl_device_id> devices(n);
  if (info(program, CL_PROGRAM_DEVICES, n * sizeof(cl_device_id), devices.data(), nullptr) != CL_SUCCESS) return {};
  return devices;
}

std::string real_build_log(cl_program program, cl_device_id device) {
  auto* info = COMPUTEPROF_CL_REAL(clGetProgramBuildInfo);
  if (!info) return {};
  return opencl_text([&](std::size_t size, void* value, std::size_t* size_ret) {
    return info(program, device, CL_PROGRAM_BUILD_LOG, size, value, size_ret);
  });
}

// Answers a string query with `text` and its terminating NUL, as the runtime would.
cl_int answer_string(const std::string& text, std::size_t size, void* value, std::size_t* size_ret) {
  const std::size_t bytes = text.size() + 1;
  if (value && size < bytes) return CL_INVALID_VALUE;
  if (value) std::memcpy(value, text.c_str(), bytes);
  if (size_ret) *size_ret = bytes;
  return CL_SUCCESS;
}

// A launch's view of its kernel, cached per thread: no lock on the launch path once
// seen. A build or a kernel creation (handles are reused) makes every entry stale.
std::atomic<std::uint64_t> g_generation{1};

struct KernelResources {
  cl_kernel kernel = nullptr;
  cl_device_id device = nullptr;
  std::uint64_t generation = 0;
  std::optional<SmLimits> limits;          // empty: not an NVIDIA GPU
  std::optional<std::uint32_t> registers;  // empty: not built through the shim
};
constexpr std::size_t kThreadCacheSize = 32;
thread_local std::array<KernelResources, kThreadCacheSize> t_kernels;

KernelResources look_up_kernel(cl_device_id device, cl_kernel kernel) {
  KernelResources k;
  k.kernel = kernel;
  k.device = device;
  NvidiaState& s = state();
  {
    std::lock_guard lock(s.mutex);
    k.limits = limits_of(s, device);
  }
  if (!k.limits) return k;
  auto* kernel_info = COMPUTEPROF_CL_REAL(clGetKernelInfo);
  cl_program program = nullptr;
  if (!kernel_info || kernel_info(kernel, CL_KERNEL_PROGRAM, sizeof program, &program, nullptr) != CL_SUCCESS) {
    return k;
  }
  const std::string_view name = opencl_kernel_name(kernel);
  std::lock_guard lock(s.mutex);
  auto build = s.builds.find(program);
  if (build == s.builds.end()) return k;
  if (!build->second.registers_read) {
    // Read at the first launch: the build may have completed asynchronously.
    build->second.registers = kernel_registers(real_build_log(program, device));
    build->second.registers_read = true;
  }
  if (auto r = build->second.registers.find(name); r != build->second.registers.end()) k.registers = r->second;
  return k;
}

}  // namespace

std::optional<double> nvidia_kernel_occupancy(cl_device_id device, cl_kernel kernel, std::uint32_t group_items) {
  if (!device || group_items == 0) return std::nullopt;
  const std::uint64_t generation = g_generation.load(std::memory_order_acquire);
  const auto h = reinterpret_cast<std::uintptr_t>(kernel);
  KernelResources& slot = t_kernels[(h >> 4 ^ h >> 12) % kThreadCacheSize];
  if (slot.kernel != kernel || slot.device != device || slot.generation != generation) {
    slot = look_up_kernel(device, kernel);
    slot.generation = generation;
  }
  if (!slot.limits || !slot.registers) return std::nullopt;
  // Asked per launch: local memory arguments may change between launches.
  auto* group_info = COMPUTEPROF_CL_REAL(clGetKernelWorkGroupInfo);
  cl_ulong local_bytes = 0;
  if (!group_info ||
      group_info(kernel, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local_bytes, &local_bytes, nullptr) != CL_SUCCESS) {
    return std::nullopt;
  }
  return theoretical_occupancy(*slot.limits, {group_items, *slot.registers, local_bytes});
}

void nvidia_kernels_created() { g_generation.fetch_add(1, std::memory_order_acq_rel); }

}  // namespace computeprof::shim

using namespace computeprof::shim;

COMPUTEPROF_CL_EXPORT cl_int clBuildProgram(cl_program program, cl_uint num_devices, const cl_device_id* device_list,
                                            const char* options, void(CL_CALLBACK* notify)(cl_program, void*),
                                            void* user_data) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clBuildProgram);
  if (!opencl_enabled()) return real_fn(program, num_devices, device_list, options, notify, user_data);
  const std::string asked = options ? options : "";
  bool nvidia = false;
  {
    NvidiaState& s = state();
    std::lock_guard lock(s.mutex);
    for (cl_device_id d : build_devices(program, num_devices, device_list)) nvidia = nvidia || limits_of(s, d);
  }
  const bool add = nvidia && asked.find(kVerbose) == std::string::npos;
  const std::string used = add ? (asked.empty() ? std::string(kVerbose) : asked + " " + std::string(kVerbose)) : asked;
  const cl_int result = real_fn(program, num_devices, device_list, options || add ? used.c_str() : nullptr, notify,
                                user_data);
  NvidiaState& s = state();
  {
    std::lock_guard lock(s.mutex);
    if (nvidia) {
      s.builds[program] = ProgramBuild{asked, add, false, {}};
    } else {
      s.builds.erase(program);  // a reused handle
    }
  }
  nvidia_kernels_created();
  return result;
}

COMPUTEPROF_CL_EXPORT cl_int clGetProgramBuildInfo(cl_program program, cl_device_id device,
                                                   cl_program_build_info name, size_t size, void* value,
                                                   size_t* size_ret) {
  COMPUTEPROF_CL_REAL_OR_RETURN(clGetProgramBuildInfo);
  if (name != CL_PROGRAM_BUILD_OPTIONS && name != CL_PROGRAM_BUILD_LOG) {
    return real_fn(program, device, name, size, value, size_ret);
  }
  std::string options;
  {
    NvidiaState& s = state();
    std::lock_guard lock(s.mutex);
    const auto build = s.builds.find(program);
    if (build == s.builds.end() || !build->second.verbose_added) {
      return real_fn(program, device, name, size, value, size_ret);
    }
    options = build->second.options;
  }
  // The runtime checks the program and device; only the text is the program's.
  const cl_int valid = real_fn(program, device, name, 0, nullptr, nullptr);
  if (valid != CL_SUCCESS) return valid;
  if (name == CL_PROGRAM_BUILD_OPTIONS) return answer_string(options, size, value, size_ret);
  return answer_string(without_verbose_lines(real_build_log(program, device)), size, value, size_ret);
}
