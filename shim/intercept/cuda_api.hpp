#pragma once
// The driver API as the shim sees it: cuda.h for types, cudaTypedefs.h for the exact
// signature of every ABI variant. cuda.h renames some base names to their newest
// variant; the shim defines several variants side by side, so those renames go.
#include <cuda.h>
#include <cudaProfilerTypedefs.h>
#include <cudaTypedefs.h>

#undef cuGetProcAddress
#undef cuMemcpyBatchAsync
#undef cuMemcpy3DBatchAsync

#define COMPUTEPROF_EXPORT extern "C" __attribute__((visibility("default")))
