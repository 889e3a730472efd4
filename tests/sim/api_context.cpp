// Initialisation, devices, contexts, errors.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "sim.hpp"
#include "sim_api.hpp"

using namespace sim;

namespace {
void tear_down() { driver().deinitialised = true; }

bool valid_context(Context* c) {
  std::lock_guard lock(driver().mutex);
  return driver().contexts.count(c) != 0;
}
}  // namespace

SIM_API CUresult cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = driver();
  if (d.deinitialised) return CUDA_ERROR_DEINITIALIZED;
  std::lock_guard lock(d.mutex);
  if (!d.initialised.load()) {
    d.initialised.store(true, std::memory_order_release);
    // Like the real driver: torn down in an atexit handler of its own.
    std::atexit(tear_down);
  }
  return CUDA_SUCCESS;
}

SIM_API CUresult cuDriverGetVersion(int* version) {
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  *version = kDriverVersion;
  return CUDA_SUCCESS;
}

SIM_API CUresult cuGetErrorName(CUresult error, const char** name) {
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  switch (error) {
#define SIM_ERROR(e) \
  case e:            \
    *name = #e;      \
    return CUDA_SUCCESS;
    SIM_ERROR(CUDA_SUCCESS)
    SIM_ERROR(CUDA_ERROR_INVALID_VALUE)
    SIM_ERROR(CUDA_ERROR_OUT_OF_MEMORY)
    SIM_ERROR(CUDA_ERROR_NOT_INITIALIZED)
    SIM_ERROR(CUDA_ERROR_DEINITIALIZED)
    SIM_ERROR(CUDA_ERROR_INVALID_DEVICE)
    SIM_ERROR(CUDA_ERROR_INVALID_CONTEXT)
    SIM_ERROR(CUDA_ERROR_INVALID_HANDLE)
    SIM_ERROR(CUDA_ERROR_NOT_FOUND)
    SIM_ERROR(CUDA_ERROR_NOT_READY)
    SIM_ERROR(CUDA_ERROR_NOT_SUPPORTED)
    SIM_ERROR(CUDA_ERROR_INVALID_IMAGE)
    SIM_ERROR(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
    SIM_ERROR(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
    SIM_ERROR(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)
    SIM_ERROR(CUDA_ERROR_ILLEGAL_STATE)
#undef SIM_ERROR
    default:
      *name = nullptr;
      return CUDA_ERROR_INVALID_VALUE;
  }
}

SIM_API CUresult cuGetErrorString(CUresult error, const char** text) { return cuGetErrorName(error, text); }

SIM_API CUresult cuDeviceGetCount(int* count) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  *count = driver().device_count;
  return CUDA_SUCCESS;
}

SIM_API CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(ordinal)) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

SIM_API CUresult cuDeviceGetName(char* name, int len, CUdevice device) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(name, static_cast<std::size_t>(len), "computeprof simulated GPU");
  return CUDA_SUCCESS;
}

SIM_API CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = size_t{80} << 30;
  return CUDA_SUCCESS;
}

// Byte i of device d's UUID is 0x10 * d + i.
SIM_API CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice device) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!uuid) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  for (int i = 0; i < 16; ++i) uuid->bytes[i] = static_cast<char>(0x10 * device + i);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice device) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = kMaxThreadsPerBlock; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *value = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *value = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = kWarpSize; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *value = kMaxThreadsPerSm; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: *value = kMaxBlocksPerSm; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: *value = kRegistersPerSm; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: *value = kSharedPerSm; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *value = kSharedPerBlock; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *value = 1980000; break;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: *value = 65536; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *value = 52428800; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *value = 2619000; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *value = 5120; break;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: *value = 3; break;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: *value = 1; break;
    default: *value = 0; break;
  }
  return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxCreate_v2(CUcontext* ctx, unsigned int, CUdevice device) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!ctx) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  Context* c = new_context(device, false);
  push_context(c);
  *ctx = reinterpret_cast<CUcontext>(c);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxCreate_v4(CUcontext* ctx, CUctxCreateParams*, unsigned int flags, CUdevice device) {
  return cuCtxCreate_v2(ctx, flags, device);
}

SIM_API CUresult cuCtxDestroy_v2(CUcontext ctx) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  auto* c = reinterpret_cast<Context*>(ctx);
  if (!valid_context(c) || c->primary) return CUDA_ERROR_INVALID_CONTEXT;
  destroy_context(c);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxSetCurrent(CUcontext ctx) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  auto* c = reinterpret_cast<Context*>(ctx);
  if (c && !valid_context(c)) return CUDA_ERROR_INVALID_CONTEXT;
  set_current_context(c);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxGetCurrent(CUcontext* ctx) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!ctx) return CUDA_ERROR_INVALID_VALUE;
  *ctx = reinterpret_cast<CUcontext>(current_context());
  return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  auto* c = reinterpret_cast<Context*>(ctx);
  if (!valid_context(c)) return CUDA_ERROR_INVALID_CONTEXT;
  push_context(c);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxPopCurrent_v2(CUcontext* ctx) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Context* c = pop_context();
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  if (ctx) *ctx = reinterpret_cast<CUcontext>(c);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxGetDevice(CUdevice* device) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  Context* c = current_context();
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  *device = c->device;
  return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxGetId(CUcontext ctx, unsigned long long* id) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!id) return CUDA_ERROR_INVALID_VALUE;
  auto* c = ctx ? reinterpret_cast<Context*>(ctx) : current_context();
  if (!c || !valid_context(c)) return CUDA_ERROR_INVALID_CONTEXT;
  *id = c->id;
  return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxSynchronize() {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Context* c = current_context();
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  std::vector<Stream*> streams;
  {
    std::lock_guard lock(c->mutex);
    streams = c->streams;
  }
  streams.push_back(c->legacy);
  for (Stream* s : streams) s->synchronize();
  return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxGetCacheConfig(CUfunc_cache* config) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Context* c = current_context();
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  if (!config) return CUDA_ERROR_INVALID_VALUE;
  *config = c->cache_config;
  return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxSetCacheConfig(CUfunc_cache config) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  Context* c = current_context();
  if (!c) return CUDA_ERROR_INVALID_CONTEXT;
  c->cache_config = config;
  return CUDA_SUCCESS;
}

SIM_API CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice device) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!ctx) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  Driver& d = driver();
  Context* c;
  {
    std::lock_guard lock(d.mutex);
    c = d.primary[device];
    ++d.primary_refs[device];
  }
  if (!c) {
    c = new_context(device, true);
    std::lock_guard lock(d.mutex);
    d.primary[device] = c;
  }
  *ctx = reinterpret_cast<CUcontext>(c);
  return CUDA_SUCCESS;
}

namespace {
CUresult drop_primary(CUdevice device, bool reset) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!valid_device(device)) return CUDA_ERROR_INVALID_DEVICE;
  Driver& d = driver();
  Context* gone = nullptr;
  {
    std::lock_guard lock(d.mutex);
    if (!reset && d.primary_refs[device] == 0) return CUDA_ERROR_INVALID_CONTEXT;
    if (!reset) --d.primary_refs[device];
    if (reset || d.primary_refs[device] == 0) {
      gone = d.primary[device];
      d.primary[device] = nullptr;
      d.primary_refs[device] = 0;
    }
  }
  if (gone) destroy_context(gone);
  return CUDA_SUCCESS;
}
}  // namespace

SIM_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) { return drop_primary(device, false); }
SIM_API CUresult cuDevicePrimaryCtxReset_v2(CUdevice device) { return drop_primary(device, true); }

SIM_API CUresult cuProfilerStart() { return ready(); }
SIM_API CUresult cuProfilerStop() { return ready(); }
