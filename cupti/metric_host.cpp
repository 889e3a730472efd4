#include "cupti/metric_host.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace computeprof::cupti {
namespace {

std::string failed(const CuptiLibrary& cupti, std::string_view call, CUptiResult result) {
  return fmt::format("{} failed: {}", call, cupti.result_text(result));
}

Outcome<CUpti_Profiler_Host_Object*> initialize(const CuptiLibrary& cupti, const std::string& chip,
                                               const std::vector<std::uint8_t>& counter_availability) {
  CUpti_Profiler_Host_Initialize_Params params{};
  params.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
  params.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  params.pChipName = chip.c_str();
  params.pCounterAvailabilityImage = counter_availability.empty() ? nullptr : counter_availability.data();
  const CUptiResult result = cupti.cuptiProfilerHostInitialize(&params);
  if (result != CUPTI_SUCCESS) {
    return Outcome<CUpti_Profiler_Host_Object*>::failure(
        fmt::format("chip '{}': {}", chip, failed(cupti, "cuptiProfilerHostInitialize", result)));
  }
  return {params.pHostObject, {}};
}

void deinitialize(const CuptiLibrary& cupti, CUpti_Profiler_Host_Object* host_object) {
  CUpti_Profiler_Host_Deinitialize_Params params{};
  params.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
  params.pHostObject = host_object;
  cupti.cuptiProfilerHostDeinitialize(&params);
}

std::vector<const char*> c_strings(std::span<const std::string> names) {
  std::vector<const char*> pointers;
  pointers.reserve(names.size());
  for (const std::string& name : names) pointers.push_back(name.c_str());
  return pointers;
}

Outcome<std::vector<std::uint8_t>> build_config_image(const CuptiLibrary& cupti, CUpti_Profiler_Host_Object* host_object,
                                                      std::span<const std::string> metrics) {
  using Image = Outcome<std::vector<std::uint8_t>>;
  std::vector<const char*> names = c_strings(metrics);
  CUpti_Profiler_Host_ConfigAddMetrics_Params add{};
  add.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
  add.pHostObject = host_object;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  if (CUptiResult result = cupti.cuptiProfilerHostConfigAddMetrics(&add); result != CUPTI_SUCCESS) {
    return Image::failure(failed(cupti, "cuptiProfilerHostConfigAddMetrics", result));
  }
  CUpti_Profiler_Host_GetConfigImageSize_Params size{};
  size.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
  size.pHostObject = host_object;
  if (CUptiResult result = cupti.cuptiProfilerHostGetConfigImageSize(&size); result != CUPTI_SUCCESS) {
    return Image::failure(failed(cupti, "cuptiProfilerHostGetConfigImageSize", result));
  }
  std::vector<std::uint8_t> image(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params get{};
  get.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
  get.pHostObject = host_object;
  get.configImageSize = image.size();
  get.pConfigImage = image.data();
  if (CUptiResult result = cupti.cuptiProfilerHostGetConfigImage(&get); result != CUPTI_SUCCESS) {
    return Image::failure(failed(cupti, "cuptiProfilerHostGetConfigImage", result));
  }
  return {std::move(image), {}};
}

}  // namespace

MetricHost::MetricHost(const CuptiLibrary& cupti, std::string chip, std::vector<std::uint8_t> counter_availability,
                       CUpti_Profiler_Host_Object* host_object)
    : cupti_(&cupti),
      chip_(std::move(chip)),
      counter_availability_(std::move(counter_availability)),
      host_object_(host_object) {}

Outcome<MetricHost> MetricHost::open(const CuptiLibrary& cupti, std::string chip,
                                     std::vector<std::uint8_t> counter_availability) {
  Outcome<CUpti_Profiler_Host_Object*> host_object = initialize(cupti, chip, counter_availability);
  if (!host_object) return Outcome<MetricHost>::failure(std::move(host_object.error));
  return {MetricHost(cupti, std::move(chip), std::move(counter_availability), *host_object.value), {}};
}

MetricHost::MetricHost(MetricHost&& other) noexcept
    : cupti_(other.cupti_),
      chip_(std::move(other.chip_)),
      counter_availability_(std::move(other.counter_availability_)),
      host_object_(std::exchange(other.host_object_, nullptr)) {}

MetricHost& MetricHost::operator=(MetricHost&& other) noexcept {
  if (this != &other) {
    if (host_object_ != nullptr) deinitialize(*cupti_, host_object_);
    cupti_ = other.cupti_;
    chip_ = std::move(other.chip_);
    counter_availability_ = std::move(other.counter_availability_);
    host_object_ = std::exchange(other.host_object_, nullptr);
  }
  return *this;
}

MetricHost::~MetricHost() {
  if (host_object_ != nullptr) deinitialize(*cupti_, host_object_);
}

bool MetricHost::supports(const std::string& metric) const {
  CUpti_Profiler_Host_GetMetricProperties_Params params{};
  params.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
  params.pHostObject = host_object_;
  params.pMetricName = metric.c_str();
  return cupti_->cuptiProfilerHostGetMetricProperties(&params) == CUPTI_SUCCESS;
}

Outcome<std::vector<std::uint8_t>> MetricHost::config_image(std::span<const std::string> metrics) const {
  Outcome<CUpti_Profiler_Host_Object*> fresh = initialize(*cupti_, chip_, counter_availability_);
  if (!fresh) return Outcome<std::vector<std::uint8_t>>::failure(std::move(fresh.error));
  Outcome<std::vector<std::uint8_t>> image = build_config_image(*cupti_, *fresh.value, metrics);
  deinitialize(*cupti_, *fresh.value);
  return image;
}

Outcome<std::size_t> MetricHost::passes(std::span<const std::uint8_t> config_image) const {
  CUpti_Profiler_Host_GetNumOfPasses_Params params{};
  params.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
  params.configImageSize = config_image.size();
  // The parameter is not const in the C API, but CUPTI only reads the image.
  params.pConfigImage = const_cast<std::uint8_t*>(config_image.data());
  if (CUptiResult result = cupti_->cuptiProfilerHostGetNumOfPasses(&params); result != CUPTI_SUCCESS) {
    return Outcome<std::size_t>::failure(failed(*cupti_, "cuptiProfilerHostGetNumOfPasses", result));
  }
  return {params.numOfPasses, {}};
}

Outcome<std::vector<double>> MetricHost::evaluate(std::span<const std::uint8_t> counter_data_image,
                                                  std::size_t range_index,
                                                  std::span<const std::string> metrics) const {
  std::vector<const char*> names = c_strings(metrics);
  std::vector<double> values(metrics.size());
  CUpti_Profiler_Host_EvaluateToGpuValues_Params params{};
  params.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
  params.pHostObject = host_object_;
  params.pCounterDataImage = counter_data_image.data();
  params.counterDataImageSize = counter_data_image.size();
  params.rangeIndex = range_index;
  params.ppMetricNames = names.data();
  params.numMetrics = names.size();
  params.pMetricValues = values.data();
  if (CUptiResult result = cupti_->cuptiProfilerHostEvaluateToGpuValues(&params); result != CUPTI_SUCCESS) {
    return Outcome<std::vector<double>>::failure(failed(*cupti_, "cuptiProfilerHostEvaluateToGpuValues", result));
  }
  return {std::move(values), {}};
}

std::optional<std::vector<std::string>> supported_chips(const CuptiLibrary& cupti) {
  if (cupti.cuptiProfilerHostGetSupportedChips == nullptr) return std::nullopt;
  CUpti_Profiler_Host_GetSupportedChips_Params params{};
  params.structSize = CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE;
  if (cupti.cuptiProfilerHostGetSupportedChips(&params) != CUPTI_SUCCESS) return std::nullopt;
  return std::vector<std::string>(params.ppChipNames, params.ppChipNames + params.numChips);
}

}  // namespace computeprof::cupti
