#include "driver/embedded_kernels.hpp"

// Generated at build time by samples/cuda/embed_ptx.cmake; defines kKernelsPtx.
#include "kernels_ptx.hpp"

namespace samples {

const char* kernels_ptx() { return kKernelsPtx; }

}  // namespace samples
