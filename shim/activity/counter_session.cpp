#include "shim/activity/counter_session.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "config/report.hpp"
#include "cupti/counter_metrics.hpp"
#include "cupti/cupti_library.hpp"
#include "cupti/metric_host.hpp"
#include "shim/intercept/driver_calls.hpp"
#include "shim/process/lifecycle.hpp"
#include "shim/process/profiling_state.hpp"

namespace computeprof::shim {
namespace {
// Chip name -> what the host API built for it.
struct ChipConfig {
  std::optional<cupti::MetricHost> host;
  std::vector<std::string> metrics;         // the configured metrics this chip can count
  std::vector<const char*> metric_names;    // the same, for the range profiler's calls
  std::vector<int> metric_index;            // per CounterMetrics::metrics: index in `metrics` or -1
  std::vector<std::uint8_t> config_image;
};

}  // namespace

struct CounterSession {
  std::mutex mutex;
  CUcontext context = nullptr;
  int device = 0;
  bool running = false;  // enabled and started
  CUpti_RangeProfiler_Object* profiler = nullptr;
  ChipConfig* chip = nullptr;
  std::vector<std::uint8_t> counter_data;
  // Metric values scale to one SM unless countermodeaggregate (docs/counters.md, "Per-SM values and countermodeaggregate").
  double scale = 1.0;
};

namespace {

// Ranges the counter data image holds: one launch is counted at a time, the rest is
// room for launches the shim did not count (enableonstart 0, paused) between two.
constexpr std::size_t kRangesPerImage = 64;

// What the configuration asks for, and the process-wide CUPTI state.
struct CounterProcess {
  cupti::CounterMetrics wanted;
  bool aggregate = false;
  const cupti::CuptiLibrary* cupti = nullptr;  // null: counters cannot be collected
};

std::mutex g_mutex;  // sessions and chips: looked up once per thread and context
std::map<CUcontext, std::unique_ptr<CounterSession>>* g_sessions;
std::map<std::string, std::unique_ptr<ChipConfig>>* g_chips;

// The one line a refusal gets, with what a user can do about the common ones.
void say_unavailable(const std::string& why) {
  config::warn_once(fmt::format("counters unavailable: {}; tracing goes on, counter columns read n/a", why));
}

const CounterProcess& counter_process() {
  static const CounterProcess* process = [] {
    auto* p = new CounterProcess;
    const config::ProfileConfig& cfg = process_profile().cuda.settings.config;
    p->aggregate = cfg.has(config::Option::countermodeaggregate);
    p->wanted = cupti::counter_metrics(cfg.counters);
    for (std::size_t id : p->wanted.unavailable) {
      config::warn_once(fmt::format("counter {} has no equivalent on today's GPUs; its column reads n/a",
                                    config::legacy_counters()[id].name));
    }
    if (p->wanted.metrics.empty()) return p;
    const cupti::CuptiLoad& loaded = cupti::process_cupti();
    if (!loaded.library) {
      say_unavailable(loaded.error);
      return p;
    }
    CUpti_Profiler_Initialize_Params init{};
    init.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
    if (const CUptiResult r = loaded.library->cuptiProfilerInitialize(&init); r != CUPTI_SUCCESS) {
      say_unavailable(loaded.library->explain("cuptiProfilerInitialize", r));
      return p;
    }
    p->cupti = &*loaded.library;
    return p;
  }();
  return *process;
}

std::string unsupported_reason(const CUpti_Profiler_DeviceSupported_Params& s) {
  if (s.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return "the GPU's architecture is not supported";
  if (s.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return "not supported on this vGPU";
  if (s.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return "not supported in confidential computing mode";
  if (s.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return "not supported on a CMP device";
  if (s.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return "not supported under WSL";
  if (s.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return "not supported with SLI";
  return "the device is not supported by the CUPTI range profiler";
}

// The host-side configuration for the context's chip, built once per chip.
ChipConfig* chip_config(const CounterProcess& p, CUcontext context, int device) {
  const cupti::CuptiLibrary& lib = *p.cupti;
  CUpti_Device_GetChipName_Params name{};
  name.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
  name.deviceIndex = static_cast<std::size_t>(device);
  if (CUptiResult r = lib.cuptiDeviceGetChipName(&name); r != CUPTI_SUCCESS || !name.pChipName) {
    say_unavailable(lib.explain("cuptiDeviceGetChipName", r));
    return nullptr;
  }
  const std::string chip = name.pChipName;
  if (auto it = g_chips->find(chip); it != g_chips->end()) return it->second.get();

  CUpti_Profiler_GetCounterAvailability_Params avail{};

  avail.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
  avail.ctx = context;
  std::vector<std::uint8_t> availability;
  if (CUptiResult r = lib.cuptiProfilerGetCounterAvailability(&avail); r != CUPTI_SUCCESS) {
    say_unavailable(lib.explain("cuptiProfilerGetCounterAvailability", r));
    return nullptr;
  }
  availability.resize(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = availability.data();
  if (CUptiResult r = lib.cuptiProfilerGetCounterAvailability(&avail); r != CUPTI_SUCCESS) {
    say_unavailable(lib.explain("cuptiProfilerGetCounterAvailability", r));
    return nullptr;
  }

  auto config = std::make_unique<ChipConfig>();
  auto host = cupti::MetricHost::open(lib, chip, std::move(availability));
  if (!host) {
    say_unavailable(host.error);
    return nullptr;
  }
  config->host.emplace(std::move(*host.value));
  for (const std::string& metric : p.wanted.metrics) {
    if (config->host->supports(metric)) {
      config->metric_index.push_back(static_cast<int>(config->metrics.size()));
      config->metrics.push_back(metric);
    } else {
      config->metric_index.push_back(-1);
      config::warn_once(fmt::format("{} cannot count {}; the counters using it read n/a", chip, metric));
    }
  }
  if (config->metrics.empty()) return nullptr;
  for (const std::string& metric : config->metrics) config->metric_names.push_back(metric.c_str());
  auto image = config->host->config_image(config->metrics);
  if (!image) {
    say_unavailable(image.error);
    return nullptr;
  }
  config->config_image = std::move(*image.value);
  if (const auto passes = config->host->passes(config->config_image); passes && *passes.value > 1) {
    config::warn_once(fmt::format("the configured counters need {} passes on {}: each counted kernel is replayed {} "
                                  "times (its memory saved and restored by CUPTI)",
                                  *passes.value, chip, *passes.value));
  }
  return g_chips->emplace(chip, std::move(config)).first->second.get();
}

bool start_session(const CounterProcess& p, CounterSession& s, ChipConfig& chip) {
  const cupti::CuptiLibrary& lib = *p.cupti;
  CUpti_RangeProfiler_Enable_Params enable{};
  enable.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
  enable.ctx = s.context;
  if (CUptiResult r = lib.cuptiRangeProfilerEnable(&enable); r != CUPTI_SUCCESS) {
    say_unavailable(lib.explain("cuptiRangeProfilerEnable", r));
    return false;
  }
  s.profiler = enable.pRangeProfilerObject;
  CUpti_RangeProfiler_GetCounterDataSize_Params size{};
  size.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
  size.pRangeProfilerObject = s.profiler;
  size.pMetricNames = chip.metric_names.data();
  size.numMetrics = chip.metric_names.size();
  size.maxNumOfRanges = kRangesPerImage;
  size.maxNumRangeTreeNodes = kRangesPerImage;
  CUptiResult r = lib.cuptiRangeProfilerGetCounterDataSize(&size);
  if (r == CUPTI_SUCCESS) {
    s.counter_data.assign(size.counterDataSize, 0);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params image{};
    image.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    image.pRangeProfilerObject = s.profiler;
    image.counterDataSize = s.counter_data.size();
    image.pCounterData = s.counter_data.data();
    r = lib.cuptiRangeProfilerCounterDataImageInitialize(&image);
  }
  if (r == CUPTI_SUCCESS) {
    CUpti_RangeProfiler_SetConfig_Params set{};
    set.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    set.pRangeProfilerObject = s.profiler;
    set.configSize = chip.config_image.size();
    set.pConfig = chip.config_image.data();
    set.counterDataImageSize = s.counter_data.size();
    set.pCounterDataImage = s.counter_data.data();
    set.range = CUPTI_AutoRange;
    set.replayMode = CUPTI_KernelReplay;
    set.maxRangesPerPass = kRangesPerImage;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    r = lib.cuptiRangeProfilerSetConfig(&set);
  }
  if (r == CUPTI_SUCCESS) {
    CUpti_RangeProfiler_Start_Params start{};
    start.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
    start.pRangeProfilerObject = s.profiler;
    r = lib.cuptiRangeProfilerStart(&start);
  }
  if (r != CUPTI_SUCCESS) {
    say_unavailable(lib.explain("starting the range profiler", r));
    CUpti_RangeProfiler_Disable_Params disable{};
    disable.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
    disable.pRangeProfilerObject = s.profiler;
    lib.cuptiRangeProfilerDisable(&disable);
    s.profiler = nullptr;
    return false;
  }
  s.chip = &chip;
  s.running = true;
  return true;
}

void stop_session(const cupti::CuptiLibrary& lib, CounterSession& s) {
  if (!s.running) return;
  CUpti_RangeProfiler_Stop_Params stop{};
  stop.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
  stop.pRangeProfilerObject = s.profiler;
  lib.cuptiRangeProfilerStop(&stop);
  CUpti_RangeProfiler_Disable_Params disable{};
  disable.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
  disable.pRangeProfilerObject = s.profiler;
  lib.cuptiRangeProfilerDisable(&disable);
  s.profiler = nullptr;
  s.running = false;
}

// Added with the first session, after the driver and CUPTI initialised: runs before
// their own teardown.
void stop_all_sessions() {
  const CounterProcess& p = counter_process();
  std::lock_guard lock(g_mutex);
  for (auto& [context, session] : *g_sessions) {
    std::lock_guard launch(session->mutex);
    stop_session(*p.cupti, *session);
  }
}

// Decodes what the hardware holds into the image; the number of ranges there.
std::size_t decode(const cupti::CuptiLibrary& lib, CounterSession& s) {
  CUpti_RangeProfiler_DecodeData_Params decode{};
  decode.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
  decode.pRangeProfilerObject = s.profiler;
  if (lib.cuptiRangeProfilerDecodeData(&decode) != CUPTI_SUCCESS) return 0;
  CUpti_RangeProfiler_GetCounterDataInfo_Params info{};
  info.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
  info.pCounterDataImage = s.counter_data.data();
  info.counterDataImageSize = s.counter_data.size();
  if (lib.cuptiRangeProfilerGetCounterDataInfo(&info) != CUPTI_SUCCESS) return 0;
  return info.numTotalRanges;
}

void reset_image(const cupti::CuptiLibrary& lib, CounterSession& s) {
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params image{};
  image.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
  image.pRangeProfilerObject = s.profiler;
  image.counterDataSize = s.counter_data.size();
  image.pCounterData = s.counter_data.data();
  lib.cuptiRangeProfilerCounterDataImageInitialize(&image);
}

}  // namespace

void mark_counters_unavailable(records::Record& record) { record.counter_state = records::CounterState::unavailable; }

CounterSession* counter_session(CUcontext context, int device) {
  const CounterProcess& p = counter_process();
  if (!p.cupti || !context) return nullptr;
  std::lock_guard lock(g_mutex);
  if (!g_sessions) {
    g_sessions = new std::map<CUcontext, std::unique_ptr<CounterSession>>;
    g_chips = new std::map<std::string, std::unique_ptr<ChipConfig>>;
    add_lifecycle_handlers(LifecycleStage::counters, {stop_all_sessions});
  }
  auto& slot = (*g_sessions)[context];
  if (!slot) {
    slot = std::make_unique<CounterSession>();
    slot->context = context;
    slot->device = device;
  }
  CounterSession& s = *slot;
  if (s.running) return &s;
  CUpti_Profiler_DeviceSupported_Params supported{};
  supported.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
  supported.cuDevice = device;
  supported.api = CUPTI_PROFILER_RANGE_PROFILING;
  if (CUptiResult r = p.cupti->cuptiProfilerDeviceSupported(&supported); r != CUPTI_SUCCESS) {
    say_unavailable(p.cupti->explain("cuptiProfilerDeviceSupported", r));
    return nullptr;
  }
  if (supported.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
    say_unavailable(unsupported_reason(supported));
    return nullptr;
  }
  ChipConfig* chip = chip_config(p, context, device);
  if (!chip || !start_session(p, s, *chip)) return nullptr;
  int sms = 0;
  const DriverCalls* d = driver_calls();
  if (!p.aggregate && d && d->device_get_attribute &&
      d->device_get_attribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device) == CUDA_SUCCESS && sms > 0) {
    s.scale = 1.0 / sms;
  }
  return &s;
}

std::mutex& launch_mutex(CounterSession& session) { return session.mutex; }

void prepare_counted_launch(CounterSession& session) {
  const cupti::CuptiLibrary& lib = *counter_process().cupti;
  if (!session.running) return;
  if (decode(lib, session) > 0) reset_image(lib, session);
}

void collect_counters(CounterSession& session, records::Record& record) {
  const CounterProcess& p = counter_process();
  mark_counters_unavailable(record);
  if (!session.running) return;
  const cupti::CuptiLibrary& lib = *p.cupti;
  const std::size_t ranges = decode(lib, session);
  ChipConfig* chip = session.chip;
  if (ranges == 0) {
    config::warn_once("a counted launch produced no counter range; its counters read n/a");
    return;
  }
  const auto values = chip->host->evaluate(session.counter_data, ranges - 1, chip->metrics);
  reset_image(lib, session);
  if (!values) {
    config::warn_once(fmt::format("evaluating counters failed: {}", values.error));
    return;
  }
  // Counted launches are replayed and cost milliseconds: an allocation here is nothing.
  auto* counters = new records::CounterValues;
  for (const auto& column : p.wanted.columns) {
    records::CounterValue& slot = counters->values[column.counter];
    slot = records::CounterValue::unavailable_value();
    if (!column.metric) continue;
    const int index = chip->metric_index[*column.metric];
    if (index < 0) continue;
    const double v = (*values.value)[static_cast<std::size_t>(index)] * session.scale;
    slot = records::CounterValue::of(static_cast<std::uint64_t>(std::llround(v)));
  }
  record.counters = counters;
  record.counter_state = records::CounterState::measured;
}

void end_counter_session(CUcontext context) {
  std::lock_guard lock(g_mutex);
  if (!g_sessions) return;  // no session ever started: nothing to load or stop
  const CounterProcess& p = counter_process();
  auto it = g_sessions->find(context);
  if (it == g_sessions->end()) return;
  std::lock_guard launch(it->second->mutex);
  stop_session(*p.cupti, *it->second);
}

void end_counter_sessions_on_device(int device) {
  std::lock_guard lock(g_mutex);
  if (!g_sessions) return;
  const CounterProcess& p = counter_process();
  for (auto& [context, session] : *g_sessions) {
    if (session->device != device) continue;
    std::lock_guard launch(session->mutex);
    stop_session(*p.cupti, *session);
  }
}

}  // namespace computeprof::shim
