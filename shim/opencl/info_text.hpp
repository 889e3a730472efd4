#pragma once
// Text-valued OpenCL queries (device names, kernel names, build logs): the size is
// asked first, then the text.
#include <cstddef>
#include <string>

#include "shim/intercept/opencl_api.hpp"

namespace computeprof::shim {

// `query(size, value, size_ret)` asked for the size, then for the text, up to its first
// NUL. Empty when either fails or the text is empty.
template <typename Query>
std::string opencl_text(Query&& query) {
  std::size_t size = 0;
  if (query(0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string text(size, '\0');
  if (query(size, text.data(), nullptr) != CL_SUCCESS) return {};
  if (const auto end = text.find('\0'); end != std::string::npos) text.resize(end);
  return text;
}

// `param` of `object` as `get_info` (clGetDeviceInfo, clGetKernelInfo, ...) tells it;
// empty also when `get_info` is null (no such function behind the shim).
template <typename GetInfo, typename Object>
std::string opencl_info_text(GetInfo* get_info, Object object, cl_uint param) {
  if (!get_info) return {};
  return opencl_text([&](std::size_t size, void* value, std::size_t* size_ret) {
    return get_info(object, param, size, value, size_ret);
  });
}

}  // namespace computeprof::shim
