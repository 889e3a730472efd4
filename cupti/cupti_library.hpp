#pragma once
// libcupti.so.13, opened at run time: computeprof has no link-time dependency on CUPTI
// (the preloaded library must load in every process, CUPTI or not). Each member is
// the CUPTI function of the same name.
#include <cupti.h>  // brings generated_cuda_meta.h, which must not be included again
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace computeprof::cupti {

struct CuptiLibrary {
  std::string path;  // the name or path it was opened by

  decltype(&::cuptiGetResultString) cuptiGetResultString = nullptr;

  // Host API: metric names, config images, pass counts, evaluation. Needs no GPU.
  decltype(&::cuptiProfilerHostInitialize) cuptiProfilerHostInitialize = nullptr;
  decltype(&::cuptiProfilerHostDeinitialize) cuptiProfilerHostDeinitialize = nullptr;
  decltype(&::cuptiProfilerHostGetMetricProperties) cuptiProfilerHostGetMetricProperties = nullptr;
  decltype(&::cuptiProfilerHostConfigAddMetrics) cuptiProfilerHostConfigAddMetrics = nullptr;
  decltype(&::cuptiProfilerHostGetConfigImageSize) cuptiProfilerHostGetConfigImageSize = nullptr;
  decltype(&::cuptiProfilerHostGetConfigImage) cuptiProfilerHostGetConfigImage = nullptr;
  decltype(&::cuptiProfilerHostGetNumOfPasses) cuptiProfilerHostGetNumOfPasses = nullptr;
  decltype(&::cuptiProfilerHostEvaluateToGpuValues) cuptiProfilerHostEvaluateToGpuValues = nullptr;
  // Optional: null when this libcupti does not export it.
  decltype(&::cuptiProfilerHostGetSupportedChips) cuptiProfilerHostGetSupportedChips = nullptr;

  // Callbacks and activity records.
  decltype(&::cuptiSubscribe) cuptiSubscribe = nullptr;
  decltype(&::cuptiUnsubscribe) cuptiUnsubscribe = nullptr;
  decltype(&::cuptiEnableCallback) cuptiEnableCallback = nullptr;
  decltype(&::cuptiEnableDomain) cuptiEnableDomain = nullptr;
  decltype(&::cuptiActivityRegisterCallbacks) cuptiActivityRegisterCallbacks = nullptr;
  decltype(&::cuptiActivityEnable) cuptiActivityEnable = nullptr;
  decltype(&::cuptiActivityDisable) cuptiActivityDisable = nullptr;
  decltype(&::cuptiActivityGetNextRecord) cuptiActivityGetNextRecord = nullptr;
  decltype(&::cuptiActivityFlushAll) cuptiActivityFlushAll = nullptr;
  decltype(&::cuptiGetTimestamp) cuptiGetTimestamp = nullptr;

  // Target side of the Range Profiler (needs a context).
  decltype(&::cuptiProfilerInitialize) cuptiProfilerInitialize = nullptr;
  decltype(&::cuptiProfilerDeInitialize) cuptiProfilerDeInitialize = nullptr;
  decltype(&::cuptiProfilerDeviceSupported) cuptiProfilerDeviceSupported = nullptr;
  decltype(&::cuptiDeviceGetChipName) cuptiDeviceGetChipName = nullptr;
  decltype(&::cuptiProfilerGetCounterAvailability) cuptiProfilerGetCounterAvailability = nullptr;
  decltype(&::cuptiRangeProfilerEnable) cuptiRangeProfilerEnable = nullptr;
  decltype(&::cuptiRangeProfilerDisable) cuptiRangeProfilerDisable = nullptr;
  decltype(&::cuptiRangeProfilerGetCounterDataSize) cuptiRangeProfilerGetCounterDataSize = nullptr;
  decltype(&::cuptiRangeProfilerCounterDataImageInitialize) cuptiRangeProfilerCounterDataImageInitialize = nullptr;
  decltype(&::cuptiRangeProfilerSetConfig) cuptiRangeProfilerSetConfig = nullptr;
  decltype(&::cuptiRangeProfilerStart) cuptiRangeProfilerStart = nullptr;
  decltype(&::cuptiRangeProfilerStop) cuptiRangeProfilerStop = nullptr;
  decltype(&::cuptiRangeProfilerDecodeData) cuptiRangeProfilerDecodeData = nullptr;
  decltype(&::cuptiRangeProfilerGetCounterDataInfo) cuptiRangeProfilerGetCounterDataInfo = nullptr;
  decltype(&::cuptiRangeProfilerCounterDataGetRangeInfo) cuptiRangeProfilerCounterDataGetRangeInfo = nullptr;

  // "CUPTI_ERROR_INVALID_METRIC_NAME (17)"; never fails.
  std::string result_text(CUptiResult result) const;
  // "<call>: <why>", with what a user can do about the common refusals (privileges,
  // another CUPTI client, MIG).
  std::string explain(const char* call, CUptiResult result) const;
};

// A loaded library, or why none could be loaded.
struct CuptiLoad {
  std::optional<CuptiLibrary> library;
  std::string error;  // empty when loaded
};

// Where to look, in order: only `override_path` when it is set (the user chose that
// file: falling back would hide a mistake); else "libcupti.so.13" by the dynamic
// loader's search, then the toolkit's copy known at build time.
std::vector<std::string> cupti_library_candidates(const char* override_path);

// Opens the first candidate that dlopen accepts and that exports every function above
// (but the optional ones). A library that is opened stays loaded for the life of the
// process: CUPTI starts threads and registers exit handlers, so it is never dlclosed.
CuptiLoad load_cupti_library(std::span<const std::string> candidates);

// The process's CUPTI: loaded on the first call (from COMPUTEPROF_CUPTI_LIBRARY or the
// default candidates), thread-safe, the same answer ever after.
const CuptiLoad& process_cupti();

}  // namespace computeprof::cupti
