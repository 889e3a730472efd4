// The 32-bit ABI of CUDA 2.x (PFN_*_v2000 of cudaTypedefs.h), still exported by the
// real driver under the unsuffixed names. A 32-bit device pointer cannot address a
// 64-bit process, so they refuse; the tests only check that interposers never hand
// out a _v2 wrapper in their place. No cuda.h here: it renames these names to _v2.
#define SIM_LEGACY_32BIT(NAME) \
  extern "C" __attribute__((visibility("default"))) int NAME() { return 801; /* CUDA_ERROR_NOT_SUPPORTED */ }

SIM_LEGACY_32BIT(cuMemcpyHtoD)
SIM_LEGACY_32BIT(cuMemcpyDtoH)
SIM_LEGACY_32BIT(cuMemcpyDtoD)
SIM_LEGACY_32BIT(cuMemcpyHtoDAsync)
SIM_LEGACY_32BIT(cuMemcpyDtoHAsync)
SIM_LEGACY_32BIT(cuMemcpy2D)
SIM_LEGACY_32BIT(cuMemcpy3D)
SIM_LEGACY_32BIT(cuMemsetD8)
