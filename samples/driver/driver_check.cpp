#include "driver/driver_check.hpp"

#include "common/sample_outcome.hpp"

namespace samples {

void check_driver_call(CUresult result, const char* call) {
  if (result == CUDA_SUCCESS) return;
  const char* name = nullptr;
  // A driver too broken to name its own error still gets a readable line.
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || name == nullptr) {
    fail("%s returned CUresult %d", call, static_cast<int>(result));
  }
  fail("%s returned %s", call, name);
}

}  // namespace samples
