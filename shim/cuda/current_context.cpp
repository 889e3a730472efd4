#include "shim/cuda/current_context.hpp"

#include <cstdint>

#include "shim/timing/thread_context.hpp"

namespace computeprof::shim {
namespace {

struct CurrentContext {
  CUcontext context = nullptr;
  std::uint64_t generation = 0;
  const ProfiledContext* profiled = nullptr;
};
thread_local CurrentContext t_current;

}  // namespace

const ProfiledContext* current_profiled_context(const DriverCalls& d, CUcontext* handle) {
  CUcontext context = nullptr;
  if (!d.ctx_get_current || d.ctx_get_current(&context) != CUDA_SUCCESS) context = nullptr;
  if (handle) *handle = context;
  if (!context) return nullptr;
  const std::uint64_t generation = thread_contexts_generation();
  if (context != t_current.context || generation != t_current.generation) {
    t_current = {context, generation, profiled_context(context)};
  }
  return t_current.profiled;
}

}  // namespace computeprof::shim
