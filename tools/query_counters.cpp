#include "tools/query_counters.hpp"

#include <algorithm>
#include <bitset>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "config/counters.hpp"
#include "config/profile_config.hpp"
#include "config/report.hpp"
#include "cupti/counter_metrics.hpp"
#include "cupti/cupti_library.hpp"
#include "cupti/metric_host.hpp"
#include "tools/text_file.hpp"

namespace computeprof::tools {
namespace {

constexpr int kCuptiMissingExit = 1;
constexpr int kBadInputExit = 2;
constexpr std::string_view kNoMetric = "n/a";

using CounterSet = std::bitset<config::kLegacyCounterCount>;

// One line per legacy counter, in column order, with aligned columns.
std::string counter_table(const cupti::MetricHost& host) {
  std::size_t name_width = std::string_view("counter").size();
  std::size_t metric_width = kNoMetric.size();
  for (const config::LegacyCounter& counter : config::legacy_counters()) {
    name_width = std::max(name_width, counter.name.size());
    metric_width = std::max(metric_width, counter.metric.size());
  }
  std::string table = fmt::format("{:<{}}  {:<{}}  available on {}\n", "counter", name_width, "metric", metric_width, host.chip());
  for (const config::LegacyCounter& counter : config::legacy_counters()) {
    const bool available = !counter.metric.empty() && host.supports(std::string(counter.metric));
    table += fmt::format("{:<{}}  {:<{}}  {}\n", counter.name, name_width,
                         counter.metric.empty() ? kNoMetric : counter.metric, metric_width, available ? "yes" : "no");
  }
  return table;
}

std::string counter_names(const CounterSet& counters) {
  std::string names;
  for (std::size_t id = 0; id < counters.size(); ++id) {
    if (!counters.test(id)) continue;
    if (!names.empty()) names.push_back(' ');
    names.append(config::legacy_counters()[id].name);
  }
  return names;
}

// The requested counters, which of them get no value on this chip, and the passes
// the others need.
cupti::Outcome<std::string> passes_report(const cupti::MetricHost& host, const CounterSet& requested) {
  CounterSet without_value;
  for (std::size_t id = 0; id < requested.size(); ++id) {
    const std::string_view metric = config::legacy_counters()[id].metric;
    if (requested.test(id) && (metric.empty() || !host.supports(std::string(metric)))) without_value.set(id);
  }
  const std::vector<std::string> metrics = cupti::counter_metrics(requested & ~without_value).metrics;
  std::size_t passes = 0;
  if (!metrics.empty()) {
    const auto image = host.config_image(metrics);
    const auto count = image ? host.passes(*image.value) : cupti::Outcome<std::size_t>::failure(image.error);
    if (!count) return cupti::Outcome<std::string>::failure(count.error);
    passes = *count.value;
  }
  std::string report = fmt::format("\nrequested: {}\n", requested.any() ? counter_names(requested) : "none");
  if (without_value.any()) report += fmt::format("no value ({}): {}\n", kNoMetric, counter_names(without_value));
  report += fmt::format("passes on {}: {}\n", host.chip(), passes);
  return {std::move(report), {}};
}

std::optional<std::string> config_path_of(const QueryOptions& options, const std::optional<std::string>& environment_config) {
  if (options.config_path) return options.config_path;
  if (environment_config && !environment_config->empty()) return environment_config;
  return std::nullopt;
}

}  // namespace

int query_counters(const QueryOptions& options, const std::optional<std::string>& environment_config) {
  const std::optional<std::string> config_path = config_path_of(options, environment_config);
  CounterSet requested;
  if (config_path) {
    const std::optional<std::string> text = read_text_file(*config_path);
    if (!text) {
      config::warn(fmt::format("cannot read config file '{}': {}", *config_path, std::strerror(errno)));
      return kBadInputExit;
    }
    requested = config::parse_profile_config(*text, *config_path).counters;
  }
  // The command line only holds names it found in the table.
  for (const std::string& name : options.counters) requested.set(*config::find_legacy_counter(name));

  const cupti::CuptiLoad& loaded = cupti::process_cupti();
  if (!loaded.library) {
    config::warn(loaded.error);
    return kCuptiMissingExit;
  }
  auto host = cupti::MetricHost::open(*loaded.library, options.chip);
  if (!host) {
    const auto chips = cupti::supported_chips(*loaded.library);
    std::string known;
    for (const std::string& chip : chips.value_or(std::vector<std::string>{})) known += " " + chip;
    config::warn(fmt::format("{}{}", host.error, known.empty() ? "" : "; chips CUPTI knows:" + known));
    return kBadInputExit;
  }

  std::string answer = counter_table(*host.value);
  if (config_path || !options.counters.empty()) {
    const cupti::Outcome<std::string> report = passes_report(*host.value, requested);
    if (!report) {
      config::warn(report.error);
      return kBadInputExit;
    }
    answer += *report.value;
  }
  std::fputs(answer.c_str(), stdout);
  return 0;
}

}  // namespace computeprof::tools
