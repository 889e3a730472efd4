#pragma once
// Which library a handle or a code address belongs to, by its file name. Inline: the
// exported dlsym reaches these before sanitizer runtimes initialise, so they are
// compiled into its uninstrumented callers (CMakeLists.txt).
#include <dlfcn.h>
#include <link.h>

#include <string_view>

namespace computeprof::shim {

// "/usr/lib/x86_64-linux-gnu/libcuda.so.1" -> "libcuda.so.1"
inline std::string_view file_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Whether dlopen's `handle` is a library whose file name starts with `prefix`.
inline bool handle_names_library(void* handle, std::string_view prefix) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name) return false;
  return file_name(map->l_name).starts_with(prefix);
}

// Whether `address` lies in a library whose file name starts with `prefix`.
inline bool address_in_library(const void* address, std::string_view prefix) {
  Dl_info info;
  if (!address || dladdr(address, &info) == 0 || !info.dli_fname) return false;
  return file_name(info.dli_fname).starts_with(prefix);
}

}  // namespace computeprof::shim
