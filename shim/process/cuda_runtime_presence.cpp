#include "shim/process/cuda_runtime_presence.hpp"

#include <atomic>

namespace computeprof::shim {
namespace {

std::atomic<bool> g_cuda_runtime{false};

}  // namespace

void note_cuda_runtime() { g_cuda_runtime.store(true, std::memory_order_relaxed); }

bool cuda_runtime_present() { return g_cuda_runtime.load(std::memory_order_relaxed); }

}  // namespace computeprof::shim
