#include "tools/stats_command_line.hpp"

#include <charconv>
#include <cmath>
#include <optional>

namespace computeprof::tools {
namespace {

// A percentage: a non-negative decimal number ("10", "2.5").
std::optional<double> parse_percent(std::string_view text) {
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  if (error != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace

std::variant<StatsOptions, UsageError> parse_stats_command_line(std::span<const std::string_view> args) {
  StatsOptions options;
  std::optional<double> straggler;
  std::optional<double> max_regress;
  bool separated = false;  // compare: after "--", the NEW files
  bool options_ended = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (options_ended || !arg.starts_with("--")) {
      (separated ? options.new_files : options.files).emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      if (options.mode == StatsOptions::Mode::compare) {
        if (separated) return usage_error("stats --compare: a second '--'");
        separated = true;
      } else {
        options_ended = true;
      }
      continue;
    }
    std::optional<std::string_view> value;
    if (const std::size_t equals = arg.find('='); equals != std::string_view::npos) {
      value = arg.substr(equals + 1);
      arg = arg.substr(0, equals);
    }
    const bool takes_value = arg == "--format" || arg == "--straggler" || arg == "--max-regress";
    if (takes_value && !value) {
      if (i + 1 == args.size()) return usage_error(fmt::format("stats: option '{}' needs a value", arg));
      value = args[++i];
    }
    if (!takes_value && value) return usage_error(fmt::format("stats: option '{}' takes no value", arg));
    if (arg == "--ranks" || arg == "--compare") {
      const auto mode = arg == "--ranks" ? StatsOptions::Mode::ranks : StatsOptions::Mode::compare;
      if (options.mode != StatsOptions::Mode::summary && options.mode != mode) {
        return usage_error("stats: --ranks and --compare cannot be used together");
      }
      if (mode == StatsOptions::Mode::compare && !options.files.empty()) {
        return usage_error("stats: --compare comes before the files");
      }
      options.mode = mode;
    } else if (arg == "--format") {
      if (*value == "text") {
        options.format = reports::TableFormat::text;
      } else if (*value == "csv") {
        options.format = reports::TableFormat::csv;
      } else if (*value == "json") {
        options.format = reports::TableFormat::json;
      } else {
        return usage_error(fmt::format("stats: --format is text, csv or json, not '{}'", *value));
      }
    } else if (arg == "--straggler" || arg == "--max-regress") {
      const std::optional<double> percent = parse_percent(*value);
      if (!percent) return usage_error(fmt::format("stats: {} takes a percentage (10, 2.5), not '{}'", arg, *value));
      (arg == "--straggler" ? straggler : max_regress) = percent;
    } else {
      return usage_error(fmt::format("stats: unknown option '{}' (a file whose name starts with '--': ./{})", arg,
                                     args[i]));
    }
  }
  if (straggler) {
    if (options.mode != StatsOptions::Mode::ranks) return usage_error("stats: --straggler needs --ranks");
    options.straggler_percent = *straggler;
  }
  if (max_regress) {
    if (options.mode != StatsOptions::Mode::compare) return usage_error("stats: --max-regress needs --compare");
    options.max_regress_percent = *max_regress;
  }
  if (options.mode == StatsOptions::Mode::compare) {
    if (!separated || options.files.empty() || options.new_files.empty()) {
      return usage_error("stats --compare needs BASE... -- NEW... (at least one file each)");
    }
  } else if (options.files.empty()) {
    return usage_error("stats needs at least one log or database");
  }
  return options;
}

}  // namespace computeprof::tools
