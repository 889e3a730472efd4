#include "shim/intercept/driver_calls.hpp"

#include <atomic>
#include <mutex>

#include "shim/intercept/cuda_entry_functions.hpp"
#include "shim/intercept/real_dlsym.hpp"

namespace computeprof::shim {
namespace {

template <typename Fn>
void resolve(void* driver, Fn& slot, const char* name) {
  slot = reinterpret_cast<Fn>(real_dlsym(driver, name));
}

DriverCalls* load(void* driver) {
  auto* d = new DriverCalls;
  PFN_cuDriverGetVersion_v2020 get_version = nullptr;
  resolve(driver, get_version, "cuDriverGetVersion");
  if (get_version) get_version(&d->driver_version);
  resolve(driver, d->ctx_get_current, "cuCtxGetCurrent");
  resolve(driver, d->ctx_get_device, "cuCtxGetDevice");
  resolve(driver, d->ctx_get_id, "cuCtxGetId");
  resolve(driver, d->ctx_push, "cuCtxPushCurrent_v2");
  resolve(driver, d->ctx_pop, "cuCtxPopCurrent_v2");
  resolve(driver, d->ctx_get_cache_config, "cuCtxGetCacheConfig");
  resolve(driver, d->ctx_synchronize, "cuCtxSynchronize");
  resolve(driver, d->device_get_name, "cuDeviceGetName");
  resolve(driver, d->device_get_attribute, "cuDeviceGetAttribute");
  resolve(driver, d->device_total_mem, "cuDeviceTotalMem_v2");
  resolve(driver, d->device_get_uuid, "cuDeviceGetUuid_v2");
  resolve(driver, d->stream_get_ctx, "cuStreamGetCtx");
  resolve(driver, d->stream_get_id, "cuStreamGetId");
  resolve(driver, d->stream_is_capturing, "cuStreamIsCapturing");
  resolve(driver, d->stream_synchronize, "cuStreamSynchronize");
  resolve(driver, d->exchange_capture_mode, "cuThreadExchangeStreamCaptureMode");
  resolve(driver, d->event_create, "cuEventCreate");
  resolve(driver, d->event_record, "cuEventRecord");
  resolve(driver, d->event_synchronize, "cuEventSynchronize");
  resolve(driver, d->event_elapsed, "cuEventElapsedTime_v2");
  if (!d->event_elapsed) resolve(driver, d->event_elapsed, "cuEventElapsedTime");
  resolve(driver, d->func_get_name, "cuFuncGetName");
  resolve(driver, d->kernel_get_name, "cuKernelGetName");
  resolve(driver, d->func_get_attribute, "cuFuncGetAttribute");
  resolve(driver, d->kernel_get_attribute, "cuKernelGetAttribute");
  resolve(driver, d->kernel_get_function, "cuKernelGetFunction");
  resolve(driver, d->occupancy_max_blocks, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  resolve(driver, d->pointer_get_attributes, "cuPointerGetAttributes");
  resolve(driver, d->array_get_descriptor, "cuArray3DGetDescriptor_v2");
  resolve(driver, d->mem_get_info, "cuMemGetInfo_v2");
  resolve(driver, d->mem_pool_get_attribute, "cuMemPoolGetAttribute");
  resolve(driver, d->device_get_mem_pool, "cuDeviceGetMemPool");
  resolve(driver, d->pointer_get_attribute, "cuPointerGetAttribute");
  d->timing_calls_present = d->ctx_get_current && d->ctx_get_id && d->ctx_get_device && d->stream_get_ctx &&
                            d->stream_synchronize && d->event_create && d->event_record && d->event_synchronize && d->event_elapsed;
  return d;
}

std::mutex g_load_mutex;

}  // namespace

std::atomic<DriverCalls*> g_driver_calls{nullptr};

const DriverCalls* resolve_driver_calls() {
  void* driver = loaded_driver_handle();
  if (!driver) return nullptr;
  std::lock_guard lock(g_load_mutex);
  if (DriverCalls* d = g_driver_calls.load(std::memory_order_acquire)) return d;
  DriverCalls* d = load(driver);
  g_driver_calls.store(d, std::memory_order_release);
  return d;
}

}  // namespace computeprof::shim
