#pragma once
// The driver functions the shim calls for its own purposes (events, names,
// attributes), taken from the loaded libcuda by their exact exported names: never
// through the shim's own wrappers.
#include <atomic>

#include "shim/intercept/cuda_api.hpp"

namespace computeprof::shim {

struct DriverCalls {
  int driver_version = 0;
  PFN_cuCtxGetCurrent_v4000 ctx_get_current = nullptr;
  PFN_cuCtxGetDevice_v2000 ctx_get_device = nullptr;
  PFN_cuCtxGetId_v12000 ctx_get_id = nullptr;
  PFN_cuCtxPushCurrent_v4000 ctx_push = nullptr;
  PFN_cuCtxPopCurrent_v4000 ctx_pop = nullptr;
  PFN_cuCtxGetCacheConfig_v3020 ctx_get_cache_config = nullptr;
  PFN_cuCtxSynchronize_v2000 ctx_synchronize = nullptr;
  PFN_cuDeviceGetName_v2000 device_get_name = nullptr;
  PFN_cuDeviceGetAttribute_v2000 device_get_attribute = nullptr;
  PFN_cuDeviceTotalMem_v3020 device_total_mem = nullptr;
  PFN_cuDeviceGetUuid_v11040 device_get_uuid = nullptr;
  PFN_cuStreamGetCtx_v9020 stream_get_ctx = nullptr;
  PFN_cuStreamGetId_v12000 stream_get_id = nullptr;
  PFN_cuStreamIsCapturing_v10000 stream_is_capturing = nullptr;
  PFN_cuStreamSynchronize_v2000 stream_synchronize = nullptr;
  PFN_cuThreadExchangeStreamCaptureMode_v10010 exchange_capture_mode = nullptr;
  PFN_cuEventCreate_v2000 event_create = nullptr;
  PFN_cuEventRecord_v2000 event_record = nullptr;
  PFN_cuEventSynchronize_v2000 event_synchronize = nullptr;
  PFN_cuEventElapsedTime_v2000 event_elapsed = nullptr;  // _v2 where the driver has it
  PFN_cuFuncGetName_v12030 func_get_name = nullptr;      // 12.3+
  PFN_cuKernelGetName_v12030 kernel_get_name = nullptr;  // 12.3+
  PFN_cuFuncGetAttribute_v2020 func_get_attribute = nullptr;
  PFN_cuKernelGetAttribute_v12000 kernel_get_attribute = nullptr;
  PFN_cuKernelGetFunction_v12000 kernel_get_function = nullptr;
  PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050 occupancy_max_blocks = nullptr;
  PFN_cuPointerGetAttributes_v7000 pointer_get_attributes = nullptr;
  PFN_cuArray3DGetDescriptor_v3020 array_get_descriptor = nullptr;
  // memtrace
  PFN_cuMemGetInfo_v3020 mem_get_info = nullptr;
  PFN_cuMemPoolGetAttribute_v11020 mem_pool_get_attribute = nullptr;
  PFN_cuDeviceGetMemPool_v11020 device_get_mem_pool = nullptr;
  PFN_cuPointerGetAttribute_v4000 pointer_get_attribute = nullptr;

  // Everything timing needs is there (decided once, when the calls are resolved).
  bool can_time() const { return timing_calls_present; }
  bool timing_calls_present = false;
};

const DriverCalls* resolve_driver_calls();
extern std::atomic<DriverCalls*> g_driver_calls;

// Resolved once, the first time it is asked for after libcuda is loaded; null while
// no driver is loaded. Inline: every recorded operation asks several times.
inline const DriverCalls* driver_calls() {
  if (const DriverCalls* d = g_driver_calls.load(std::memory_order_acquire)) return d;
  return resolve_driver_calls();
}

}  // namespace computeprof::shim
