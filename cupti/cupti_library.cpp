#include "cupti/cupti_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace computeprof::cupti {
namespace {

constexpr const char* kSoname = "libcupti.so.13";

// dlsym into `slot`; false when the library does not export `name`.
template <typename Function>
bool resolve(void* handle, const char* name, Function& slot) {
  slot = reinterpret_cast<Function>(dlsym(handle, name));
  return slot != nullptr;
}

// Fills every function; returns the first required one that is missing, or empty.
std::string resolve_all(void* handle, CuptiLibrary& library) {
  resolve(handle, "cuptiProfilerHostGetSupportedChips", library.cuptiProfilerHostGetSupportedChips);
  // The name is written once, as the member, so the two cannot disagree.
#define COMPUTEPROF_REQUIRE(name) \
  if (!resolve(handle, #name, library.name)) return #name
  COMPUTEPROF_REQUIRE(cuptiGetResultString);
  COMPUTEPROF_REQUIRE(cuptiProfilerHostInitialize);
  COMPUTEPROF_REQUIRE(cuptiProfilerHostDeinitialize);
  COMPUTEPROF_REQUIRE(cuptiProfilerHostGetMetricProperties);
  COMPUTEPROF_REQUIRE(cuptiProfilerHostConfigAddMetrics);
  COMPUTEPROF_REQUIRE(cuptiProfilerHostGetConfigImageSize);
  COMPUTEPROF_REQUIRE(cuptiProfilerHostGetConfigImage);
  COMPUTEPROF_REQUIRE(cuptiProfilerHostGetNumOfPasses);
  COMPUTEPROF_REQUIRE(cuptiProfilerHostEvaluateToGpuValues);
  COMPUTEPROF_REQUIRE(cuptiSubscribe);
  COMPUTEPROF_REQUIRE(cuptiUnsubscribe);
  COMPUTEPROF_REQUIRE(cuptiEnableCallback);
  COMPUTEPROF_REQUIRE(cuptiEnableDomain);
  COMPUTEPROF_REQUIRE(cuptiActivityRegisterCallbacks);
  COMPUTEPROF_REQUIRE(cuptiActivityEnable);
  COMPUTEPROF_REQUIRE(cuptiActivityDisable);
  COMPUTEPROF_REQUIRE(cuptiActivityGetNextRecord);
  COMPUTEPROF_REQUIRE(cuptiActivityFlushAll);
  COMPUTEPROF_REQUIRE(cuptiGetTimestamp);
  COMPUTEPROF_REQUIRE(cuptiProfilerInitialize);
  COMPUTEPROF_REQUIRE(cuptiProfilerDeInitialize);
  COMPUTEPROF_REQUIRE(cuptiProfilerDeviceSupported);
  COMPUTEPROF_REQUIRE(cuptiDeviceGetChipName);
  COMPUTEPROF_REQUIRE(cuptiProfilerGetCounterAvailability);
  COMPUTEPROF_REQUIRE(cuptiRangeProfilerEnable);
  COMPUTEPROF_REQUIRE(cuptiRangeProfilerDisable);
  COMPUTEPROF_REQUIRE(cuptiRangeProfilerGetCounterDataSize);
  COMPUTEPROF_REQUIRE(cuptiRangeProfilerCounterDataImageInitialize);
  COMPUTEPROF_REQUIRE(cuptiRangeProfilerSetConfig);
  COMPUTEPROF_REQUIRE(cuptiRangeProfilerStart);
  COMPUTEPROF_REQUIRE(cuptiRangeProfilerStop);
  COMPUTEPROF_REQUIRE(cuptiRangeProfilerDecodeData);
  COMPUTEPROF_REQUIRE(cuptiRangeProfilerGetCounterDataInfo);
  COMPUTEPROF_REQUIRE(cuptiRangeProfilerCounterDataGetRangeInfo);
#undef COMPUTEPROF_REQUIRE
  return {};
}

}  // namespace

std::string CuptiLibrary::result_text(CUptiResult result) const {
  const char* name = nullptr;
  if (cuptiGetResultString(result, &name) != CUPTI_SUCCESS || name == nullptr) name = "unknown CUPTI result";
  return fmt::format("{} ({})", name, static_cast<int>(result));
}

std::string CuptiLibrary::explain(const char* call, CUptiResult result) const {
  switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      return fmt::format("{}: insufficient privileges (the driver restricts GPU performance counters to admin "
                         "users: NVreg_RestrictProfilingToAdminUsers)", call);
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return fmt::format("{}: another CUPTI client (Nsight?) is attached to this process", call);
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
      return fmt::format("{}: not supported on a MIG instance", call);
    default:
      return fmt::format("{}: {}", call, result_text(result));
  }
}

std::vector<std::string> cupti_library_candidates(const char* override_path) {
  if (override_path != nullptr && *override_path != '\0') return {override_path};
  return {kSoname, COMPUTEPROF_CUPTI_TOOLKIT_LIBRARY};
}

CuptiLoad load_cupti_library(std::span<const std::string> candidates) {
  std::string reasons;
  for (const std::string& candidate : candidates) {
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      reasons.append(reasons.empty() ? "" : "; ").append(why != nullptr ? why : candidate + ": cannot be opened");
      continue;
    }
    CuptiLibrary library;
    library.path = candidate;
    const std::string missing = resolve_all(handle, library);
    if (missing.empty()) return CuptiLoad{std::move(library), {}};
    // Too old, or not CUPTI: never used, but left open, since its initialisers ran.
    reasons.append(reasons.empty() ? "" : "; ").append(fmt::format("{}: has no {}", candidate, missing));
  }
  if (reasons.empty()) reasons = "no candidate to try";
  return CuptiLoad{std::nullopt, fmt::format("{} not found: {}", kSoname, reasons)};
}

const CuptiLoad& process_cupti() {
  // A function-local static: loaded on first use, never in a constructor of the
  // preloaded library; C++ makes its initialisation thread-safe.
  static const CuptiLoad loaded = load_cupti_library(cupti_library_candidates(std::getenv("COMPUTEPROF_CUPTI_LIBRARY")));
  return loaded;
}

}  // namespace computeprof::cupti
