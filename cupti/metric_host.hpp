#pragma once
// CUPTI's Host API for one chip: which metrics exist, the config image and pass count
// of a set of metrics, and the values of a decoded counter data image. It needs no GPU
// (a chip name is enough), so all of it is tested in CI.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cupti/cupti_library.hpp"

namespace computeprof::cupti {

// A value, or why there is none: the CUPTI call that failed and its result name.
template <typename T>
struct Outcome {
  std::optional<T> value;
  std::string error;  // empty when there is a value

  static Outcome failure(std::string why) { return Outcome{std::nullopt, std::move(why)}; }
  explicit operator bool() const { return value.has_value(); }
};

// One CUpti_Profiler_Host_Object (range profiler) for a chip. Not thread-safe: use
// one MetricHost from one thread at a time.
class MetricHost {
 public:
  // `chip` as CUPTI names it ("GH100", or cuptiDeviceGetChipName on a GPU);
  // `counter_availability` from cuptiProfilerGetCounterAvailability, or empty offline.
  static Outcome<MetricHost> open(const CuptiLibrary& cupti, std::string chip,
                                  std::vector<std::uint8_t> counter_availability = {});

  MetricHost(MetricHost&& other) noexcept;
  MetricHost& operator=(MetricHost&& other) noexcept;
  MetricHost(const MetricHost&) = delete;
  MetricHost& operator=(const MetricHost&) = delete;
  ~MetricHost();

  const std::string& chip() const { return chip_; }

  // Whether the chip has this metric (a full name with its rollup: "sm__ctas_launched.sum").
  bool supports(const std::string& metric) const;

  // The config image that collects `metrics` (for cuptiRangeProfilerSetConfig). Each
  // call builds it on a fresh host object, because CUPTI adds metrics to an object
  // cumulatively: the image depends on `metrics` only.
  Outcome<std::vector<std::uint8_t>> config_image(std::span<const std::string> metrics) const;

  // How many replay passes a config image needs.
  Outcome<std::size_t> passes(std::span<const std::uint8_t> config_image) const;

  // The values of `metrics`, in that order, for one range of a decoded counter data image.
  Outcome<std::vector<double>> evaluate(std::span<const std::uint8_t> counter_data_image, std::size_t range_index,
                                        std::span<const std::string> metrics) const;

 private:
  MetricHost(const CuptiLibrary& cupti, std::string chip, std::vector<std::uint8_t> counter_availability,
             CUpti_Profiler_Host_Object* host_object);

  const CuptiLibrary* cupti_;
  std::string chip_;
  std::vector<std::uint8_t> counter_availability_;
  CUpti_Profiler_Host_Object* host_object_;  // null only when moved from
};

// The chip names this CUPTI accepts, when it can list them (cuptiProfilerHostGetSupportedChips).
std::optional<std::vector<std::string>> supported_chips(const CuptiLibrary& cupti);

}  // namespace computeprof::cupti
