// The parts of CUPTI the simulated device does not have: the host API, the range
// profiler and the callback API answer CUPTI_ERROR_NOT_SUPPORTED, as CUPTI does for a
// device it cannot profile. They exist because a CUPTI without them is not loaded.
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#define NOT_SIMULATED(name, Params) \
  extern "C" CUptiResult CUPTIAPI name(Params*) { return CUPTI_ERROR_NOT_SUPPORTED; }

NOT_SIMULATED(cuptiProfilerHostInitialize, CUpti_Profiler_Host_Initialize_Params)
NOT_SIMULATED(cuptiProfilerHostDeinitialize, CUpti_Profiler_Host_Deinitialize_Params)
NOT_SIMULATED(cuptiProfilerHostGetMetricProperties, CUpti_Profiler_Host_GetMetricProperties_Params)
NOT_SIMULATED(cuptiProfilerHostConfigAddMetrics, CUpti_Profiler_Host_ConfigAddMetrics_Params)
NOT_SIMULATED(cuptiProfilerHostGetConfigImageSize, CUpti_Profiler_Host_GetConfigImageSize_Params)
NOT_SIMULATED(cuptiProfilerHostGetConfigImage, CUpti_Profiler_Host_GetConfigImage_Params)
NOT_SIMULATED(cuptiProfilerHostGetNumOfPasses, CUpti_Profiler_Host_GetNumOfPasses_Params)
NOT_SIMULATED(cuptiProfilerHostEvaluateToGpuValues, CUpti_Profiler_Host_EvaluateToGpuValues_Params)
NOT_SIMULATED(cuptiProfilerInitialize, CUpti_Profiler_Initialize_Params)
NOT_SIMULATED(cuptiProfilerDeInitialize, CUpti_Profiler_DeInitialize_Params)
NOT_SIMULATED(cuptiProfilerDeviceSupported, CUpti_Profiler_DeviceSupported_Params)
NOT_SIMULATED(cuptiDeviceGetChipName, CUpti_Device_GetChipName_Params)
NOT_SIMULATED(cuptiProfilerGetCounterAvailability, CUpti_Profiler_GetCounterAvailability_Params)
NOT_SIMULATED(cuptiRangeProfilerEnable, CUpti_RangeProfiler_Enable_Params)
NOT_SIMULATED(cuptiRangeProfilerDisable, CUpti_RangeProfiler_Disable_Params)
NOT_SIMULATED(cuptiRangeProfilerGetCounterDataSize, CUpti_RangeProfiler_GetCounterDataSize_Params)
NOT_SIMULATED(cuptiRangeProfilerCounterDataImageInitialize, CUpti_RangeProfiler_CounterDataImage_Initialize_Params)
NOT_SIMULATED(cuptiRangeProfilerSetConfig, CUpti_RangeProfiler_SetConfig_Params)
NOT_SIMULATED(cuptiRangeProfilerStart, CUpti_RangeProfiler_Start_Params)
NOT_SIMULATED(cuptiRangeProfilerStop, CUpti_RangeProfiler_Stop_Params)
NOT_SIMULATED(cuptiRangeProfilerDecodeData, CUpti_RangeProfiler_DecodeData_Params)
NOT_SIMULATED(cuptiRangeProfilerGetCounterDataInfo, CUpti_RangeProfiler_GetCounterDataInfo_Params)
NOT_SIMULATED(cuptiRangeProfilerCounterDataGetRangeInfo, CUpti_RangeProfiler_CounterData_GetRangeInfo_Params)

extern "C" CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                                    CUpti_CallbackId) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}
extern "C" CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) {
  return CUPTI_ERROR_NOT_SUPPORTED;
}
