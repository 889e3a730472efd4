// Modules and libraries of PTX text, their functions and kernels, occupancy.
#include <cctype>
#include <fstream>
#include <sstream>
#include <string_view>

#include "sim.hpp"
#include "sim_api.hpp"

using namespace sim;

namespace {

bool identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool identifier_char(char c) { return identifier_start(c) || std::isdigit(static_cast<unsigned char>(c)); }
bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The `.entry NAME(` names of a PTX image. Scanned by hand: std::regex would bring
// locale facets into a library that is loaded beside another C++ runtime user.
std::vector<std::string> entries_of(const char* ptx) {
  std::vector<std::string> names;
  const std::string_view text(ptx);
  constexpr std::string_view kEntry = ".entry";
  for (std::size_t at = text.find(kEntry); at != std::string_view::npos; at = text.find(kEntry, at + 1)) {
    std::size_t i = at + kEntry.size();
    if (i >= text.size() || !space(text[i])) continue;
    while (i < text.size() && space(text[i])) ++i;
    if (i >= text.size() || !identifier_start(text[i])) continue;
    const std::size_t begin = i;
    while (i < text.size() && identifier_char(text[i])) ++i;
    const std::size_t end = i;
    while (i < text.size() && space(text[i])) ++i;
    if (i < text.size() && text[i] == '(') names.emplace_back(text.substr(begin, end - begin));
  }
  return names;
}

Function* function_of(CUfunction f) {
  auto* fn = reinterpret_cast<Function*>(f);
  std::lock_guard lock(driver().mutex);
  return driver().functions.count(fn) ? fn : nullptr;
}

Kernel* kernel_of(CUkernel k) {
  auto* kn = reinterpret_cast<Kernel*>(k);
  std::lock_guard lock(driver().mutex);
  return driver().kernels.count(kn) ? kn : nullptr;
}

CUresult attribute(const KernelSpec& spec, CUfunction_attribute a, int* value) {
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  switch (a) {
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *value = spec.registers; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = spec.static_smem; break;
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = kMaxThreadsPerBlock; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *value = 90; break;
    default: *value = 0; break;
  }
  return CUDA_SUCCESS;
}

}  // namespace

namespace sim {
// The kernel a launch names: a CUfunction, or a CUkernel (resolved in the current
// context).
const KernelSpec* launched_spec(CUfunction f) {
  if (Function* fn = function_of(f)) return fn->spec;
  if (Kernel* k = kernel_of(reinterpret_cast<CUkernel>(f))) return k->spec;
  return nullptr;
}
}  // namespace sim

SIM_API CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!module || !image) return CUDA_ERROR_INVALID_VALUE;
  Context* c = current_context();
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  const auto names = entries_of(static_cast<const char*>(image));
  if (names.empty()) return CUDA_ERROR_INVALID_IMAGE;
  auto* m = new Module{c, {}};
  std::lock_guard lock(driver().mutex);
  for (const auto& n : names) {
    auto* f = new Function{&kernel_spec(n), c, reinterpret_cast<CUmodule>(m)};
    m->functions[n] = f;
    driver().functions.insert(f);
  }
  driver().modules.insert(m);
  *module = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int, CUjit_option*, void**) {
  return cuModuleLoadData(module, image);
}

SIM_API CUresult cuModuleLoad(CUmodule* module, const char* path) {
  if (!path) return CUDA_ERROR_INVALID_VALUE;
  std::ifstream in(path);
  if (!in) return CUDA_ERROR_FILE_NOT_FOUND;
  std::stringstream text;
  text << in.rdbuf();
  return cuModuleLoadData(module, text.str().c_str());
}

SIM_API CUresult cuModuleUnload(CUmodule module) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  auto* m = reinterpret_cast<Module*>(module);
  std::lock_guard lock(driver().mutex);
  if (!driver().modules.erase(m)) return CUDA_ERROR_INVALID_HANDLE;
  for (auto& [name, f] : m->functions) driver().functions.erase(f);
  driver().retired.push_back(m);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuModuleGetFunction(CUfunction* f, CUmodule module, const char* name) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!f || !name) return CUDA_ERROR_INVALID_VALUE;
  auto* m = reinterpret_cast<Module*>(module);
  std::lock_guard lock(driver().mutex);
  if (!driver().modules.count(m)) return CUDA_ERROR_INVALID_HANDLE;
  auto it = m->functions.find(name);
  if (it == m->functions.end()) return CUDA_ERROR_NOT_FOUND;
  *f = reinterpret_cast<CUfunction>(it->second);
  return CUDA_SUCCESS;
}

#ifndef SIMCUDA_OLD_DRIVER
SIM_API CUresult cuFuncGetName(const char** name, CUfunction f) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  Function* fn = function_of(f);
  if (!fn) return CUDA_ERROR_INVALID_HANDLE;
  *name = fn->spec->name.c_str();
  return CUDA_SUCCESS;
}

SIM_API CUresult cuKernelGetName(const char** name, CUkernel k) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  Kernel* kn = kernel_of(k);
  if (!kn) return CUDA_ERROR_INVALID_HANDLE;
  *name = kn->spec->name.c_str();
  return CUDA_SUCCESS;
}
#endif

SIM_API CUresult cuFuncGetAttribute(int* value, CUfunction_attribute a, CUfunction f) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Function* fn = function_of(f);
  if (!fn) return CUDA_ERROR_INVALID_HANDLE;
  return attribute(*fn->spec, a, value);
}

SIM_API CUresult cuFuncSetCacheConfig(CUfunction f, CUfunc_cache) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  return function_of(f) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

SIM_API CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option*, void**, unsigned int,
                                   CUlibraryOption*, void**, unsigned int) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!library || !code) return CUDA_ERROR_INVALID_VALUE;
  const auto names = entries_of(static_cast<const char*>(code));
  if (names.empty()) return CUDA_ERROR_INVALID_IMAGE;
  auto* l = new Library;
  std::lock_guard lock(driver().mutex);
  for (const auto& n : names) {
    auto* k = new Kernel{&kernel_spec(n), {}};
    l->kernels[n] = k;
    driver().kernels.insert(k);
  }
  driver().libraries.insert(l);
  *library = reinterpret_cast<CUlibrary>(l);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuLibraryUnload(CUlibrary library) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  auto* l = reinterpret_cast<Library*>(library);
  std::lock_guard lock(driver().mutex);
  if (!driver().libraries.erase(l)) return CUDA_ERROR_INVALID_HANDLE;
  driver().retired.push_back(l);
  for (auto& [name, k] : l->kernels) {
    driver().kernels.erase(k);
    for (auto& [ctx, f] : k->functions) driver().functions.erase(f);
  }
  return CUDA_SUCCESS;
}

SIM_API CUresult cuLibraryGetKernel(CUkernel* k, CUlibrary library, const char* name) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!k || !name) return CUDA_ERROR_INVALID_VALUE;
  auto* l = reinterpret_cast<Library*>(library);
  std::lock_guard lock(driver().mutex);
  if (!driver().libraries.count(l)) return CUDA_ERROR_INVALID_HANDLE;
  auto it = l->kernels.find(name);
  if (it == l->kernels.end()) return CUDA_ERROR_NOT_FOUND;
  *k = reinterpret_cast<CUkernel>(it->second);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuKernelGetFunction(CUfunction* f, CUkernel k) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!f) return CUDA_ERROR_INVALID_VALUE;
  Kernel* kn = kernel_of(k);
  if (!kn) return CUDA_ERROR_INVALID_HANDLE;
  Context* c = current_context();
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard lock(driver().mutex);
  Function*& fn = kn->functions[c];
  if (!fn) {
    fn = new Function{kn->spec, c, nullptr};
    driver().functions.insert(fn);
  }
  *f = reinterpret_cast<CUfunction>(fn);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuKernelGetAttribute(int* value, CUfunction_attribute a, CUkernel k, CUdevice) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Kernel* kn = kernel_of(k);
  if (!kn) return CUDA_ERROR_INVALID_HANDLE;
  return attribute(*kn->spec, a, value);
}

SIM_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction f, int block_size,
                                                             size_t dynamic_smem) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  const KernelSpec* spec = launched_spec(f);
  if (!spec) return CUDA_ERROR_INVALID_HANDLE;
  if (!blocks || block_size <= 0 || block_size > kMaxThreadsPerBlock) return CUDA_ERROR_INVALID_VALUE;
  const int warps = (block_size + kWarpSize - 1) / kWarpSize;
  int limit = std::min(kMaxBlocksPerSm, kMaxThreadsPerSm / (warps * kWarpSize));
  // Registers are allocated per warp in units of 256.
  const int regs_per_warp = (spec->registers * kWarpSize + 255) / 256 * 256;
  if (regs_per_warp > 0) limit = std::min(limit, kRegistersPerSm / (regs_per_warp * warps));
  const std::size_t smem = static_cast<std::size_t>(spec->static_smem) + dynamic_smem;
  if (smem > 0) limit = std::min<int>(limit, static_cast<int>(kSharedPerSm / smem));
  *blocks = limit;
  return CUDA_SUCCESS;
}
