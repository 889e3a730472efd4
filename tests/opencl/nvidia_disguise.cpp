// Test equipment: makes the installed OpenCL platform (PoCL) look like NVIDIA's, so the
// shim's NVIDIA-only path runs on a machine without an NVIDIA GPU. Preloaded after the
// shim; every call goes on to the real loader (kernels still run on PoCL), but:
// - platform and device vendor are NVIDIA's, the device lists cl_nv_device_attribute_query
//   and answers its queries for a compute capability 9.0 device;
// - a build asked for with -cl-nv-verbose is made without it (PoCL does not know it),
//   and its build log then ends with ptxas's lines for each kernel of the program, in
//   NVIDIA's format, with the registers COMPUTEPROF_TEST_REGISTERS gives
//   ("vec_add=64,other=32"; 32 for a kernel it does not name).
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <map>
#include <string>

namespace {

constexpr const char* kVendor = "NVIDIA Corporation";
constexpr std::string_view kVerbose = "-cl-nv-verbose";

template <typename Fn>
Fn* next(const char* name) {
  return reinterpret_cast<Fn*>(dlsym(RTLD_NEXT, name));
}
#define NEXT(name) next<decltype(::name)>(#name)

std::mutex g_mutex;
std::map<cl_program, std::string> g_verbose;  // programs built with -cl-nv-verbose: their options

cl_int answer(const void* data, std::size_t bytes, std::size_t size, void* value, std::size_t* size_ret) {
  if (value && size < bytes) return CL_INVALID_VALUE;
  if (value) std::memcpy(value, data, bytes);
  if (size_ret) *size_ret = bytes;
  return CL_SUCCESS;
}
cl_int answer(const std::string& text, std::size_t size, void* value, std::size_t* size_ret) {
  return answer(text.c_str(), text.size() + 1, size, value, size_ret);
}
cl_int answer(cl_uint v, std::size_t size, void* value, std::size_t* size_ret) {
  return answer(&v, sizeof v, size, value, size_ret);
}

unsigned registers_of(const std::string& kernel) {
  const char* spec = std::getenv("COMPUTEPROF_TEST_REGISTERS");
  const std::string list = spec ? spec : "";
  const std::string key = kernel + "=";
  for (std::size_t at = 0; at < list.size();) {
    const std::size_t end = std::min(list.find(',', at), list.size());
    const std::string item = list.substr(at, end - at);
    if (item.starts_with(key)) return static_cast<unsigned>(std::stoul(item.substr(key.size())));
    at = end + 1;
  }
  return 32;
}

std::string ptxas_lines(cl_program program) {
  std::size_t size = 0;
  auto* info = NEXT(clGetProgramInfo);
  if (info(program, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size) != CL_SUCCESS) return {};
  std::string names(size, '\0');
  info(program, CL_PROGRAM_KERNEL_NAMES, size, names.data(), nullptr);
  names.resize(std::strlen(names.c_str()));
  std::string lines = "ptxas info    : 0 bytes gmem\n";
  for (std::size_t at = 0; at < names.size();) {
    const std::size_t end = std::min(names.find(';', at), names.size());
    const std::string kernel = names.substr(at, end - at);
    lines += "ptxas info    : Compiling entry function '" + kernel + "' for 'sm_90'\n";
    lines += "ptxas info    : Function properties for " + kernel + "\n";
    lines += "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";
    lines += "ptxas info    : Used " + std::to_string(registers_of(kernel)) + " registers, 380 bytes cmem[0]\n";
    at = end + 1;
  }
  return lines;
}

}  // namespace

extern "C" {

cl_int clGetPlatformInfo(cl_platform_id platform, cl_platform_info name, size_t size, void* value, size_t* size_ret) {
  if (name == CL_PLATFORM_VENDOR) return answer(std::string(kVendor), size, value, size_ret);
  if (name == CL_PLATFORM_NAME) return answer(std::string("NVIDIA CUDA"), size, value, size_ret);
  return NEXT(clGetPlatformInfo)(platform, name, size, value, size_ret);
}

cl_int clGetDeviceInfo(cl_device_id device, cl_device_info name, size_t size, void* value, size_t* size_ret) {
  auto* real = NEXT(clGetDeviceInfo);
  switch (name) {
    case CL_DEVICE_VENDOR: return answer(std::string(kVendor), size, value, size_ret);
    case CL_DEVICE_EXTENSIONS: {
      std::size_t n = 0;
      if (cl_int r = real(device, name, 0, nullptr, &n); r != CL_SUCCESS) return r;
      std::string extensions(n, '\0');
      real(device, name, n, extensions.data(), nullptr);
      extensions.resize(std::strlen(extensions.c_str()));
      return answer(extensions + " cl_nv_device_attribute_query", size, value, size_ret);
    }
    case 0x4000: return answer(cl_uint{9}, size, value, size_ret);      // COMPUTE_CAPABILITY_MAJOR_NV
    case 0x4001: return answer(cl_uint{0}, size, value, size_ret);      // COMPUTE_CAPABILITY_MINOR_NV
    case 0x4002: return answer(cl_uint{65536}, size, value, size_ret);  // REGISTERS_PER_BLOCK_NV
    case 0x4003: return answer(cl_uint{32}, size, value, size_ret);     // WARP_SIZE_NV
    default: return real(device, name, size, value, size_ret);
  }
}

cl_int clBuildProgram(cl_program program, cl_uint num_devices, const cl_device_id* devices, const char* options,
                      void(CL_CALLBACK* notify)(cl_program, void*), void* user_data) {
  std::string kept = options ? options : "";
  const std::size_t at = kept.find(kVerbose);
  {
    std::lock_guard lock(g_mutex);
    if (at != std::string::npos) {
      g_verbose[program] = kept;
    } else {
      g_verbose.erase(program);
    }
  }
  if (at != std::string::npos) kept.erase(at, kVerbose.size());
  return NEXT(clBuildProgram)(program, num_devices, devices, options ? kept.c_str() : nullptr, notify, user_data);
}

cl_int clGetProgramBuildInfo(cl_program program, cl_device_id device, cl_program_build_info name, size_t size,
                             void* value, size_t* size_ret) {
  auto* real = NEXT(clGetProgramBuildInfo);
  std::string options;
  bool verbose = false;
  {
    std::lock_guard lock(g_mutex);
    const auto it = g_verbose.find(program);
    verbose = it != g_verbose.end();
    if (verbose) options = it->second;
  }
  if (verbose && name == CL_PROGRAM_BUILD_OPTIONS) {
    // As NVIDIA's OpenCL answers: the options as given, -cl-nv-verbose included.
    if (cl_int r = real(program, device, name, 0, nullptr, nullptr); r != CL_SUCCESS) return r;
    return answer(options, size, value, size_ret);
  }
  if (name != CL_PROGRAM_BUILD_LOG || !verbose) return real(program, device, name, size, value, size_ret);
  std::size_t n = 0;
  if (cl_int r = real(program, device, name, 0, nullptr, &n); r != CL_SUCCESS) return r;
  std::string log(n, '\0');
  real(program, device, name, n, log.data(), nullptr);
  log.resize(std::strlen(log.c_str()));
  return answer(log + ptxas_lines(program), size, value, size_ret);
}

}  // extern "C"
