// At load, with CUDA profiling asked for, NVTX_INJECTION64_PATH names the shim, so that
// NVTX's loader in every object that uses NVTX calls InitializeInjectionNvtx2
// (injection.cpp). A value set already is kept: another tool holds NVTX (one line says
// so), or the computeprof command set it to this very library.
#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "config/report.hpp"
#include "shim/process/secure_execution.hpp"

extern "C" int InitializeInjectionNvtx2(const void* (*)(std::uint32_t));

namespace computeprof::shim {
namespace {

// What config::read_api_environment decides for CUDA, from the values alone, without
// its warnings (said once, when the settings are read at the first call): COMPUTE_PROFILE
// wins over CUDA_PROFILE; empty is unset; anything but 0 asks for profiling.
bool cuda_profiling_asked_for() {
  for (const char* name : {"COMPUTE_PROFILE", "CUDA_PROFILE"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return std::strcmp(value, "0") != 0;
  }
  return false;
}

bool same_file(const char* a, const char* b) {
  struct stat sa {}, sb {};
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

__attribute__((constructor)) void offer_nvtx_injection() {
  if (!cuda_profiling_asked_for() || secure_execution()) return;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&InitializeInjectionNvtx2), &info) == 0 || info.dli_fname == nullptr) return;
  const char* held = std::getenv("NVTX_INJECTION64_PATH");
  if (held == nullptr) {
    setenv("NVTX_INJECTION64_PATH", info.dli_fname, 0);
    return;
  }
  if (same_file(held, info.dli_fname)) return;
  config::warn(fmt::format("NVTX_INJECTION64_PATH is set to '{}': that tool holds NVTX, and NVTX ranges are not "
                           "traced",
                           config::escape_for_warning(held)));
}

}  // namespace
}  // namespace computeprof::shim
