#include "tools/command_line.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "config/counters.hpp"
#include "tools/config_text.hpp"
#include "tools/option_scanner.hpp"
#include "tools/options.hpp"
#include "tools/stats_command_line.hpp"

namespace computeprof::tools {
namespace {

using Effect = Option::Effect;

// The config file line a config option stands for, judged by the config file's parser,
// whose first problem, if any, is the usage error (without the source and line number it
// would name in a file).
std::variant<std::string, UsageError> config_line(const Option& option, std::optional<std::string_view> value) {
  const std::string flag = fmt::format("--{}", option.long_name);
  if (value && value->find_first_of("\r\n") != std::string_view::npos) {
    return usage_error(fmt::format("option '{}': a value is one line", flag));
  }
  std::string line(option.config_name);
  if (value) line.append(" ").append(*value);
  const std::vector<std::string> problems = parse_config_text(line, "flag").problems;
  if (problems.empty()) return line;
  std::string_view problem = problems.front();
  if (problem.starts_with("flag:1: ")) problem.remove_prefix(std::string_view("flag:1: ").size());
  for (std::string_view ending : {"; ignored", ", ignored"}) {
    if (problem.ends_with(ending)) problem.remove_suffix(ending.size());
  }
  return usage_error(fmt::format("option '{}': {}", flag, problem));
}

// Appends the names of a comma-separated list; returns the first problem found.
std::optional<UsageError> add_counters(std::string_view list, std::vector<std::string>& counters) {
  const std::string_view whole_list = list;
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    if (name.empty()) return usage_error(fmt::format("empty counter name in --counters '{}'", whole_list));
    if (!config::find_legacy_counter(name)) return usage_error(fmt::format("unknown counter '{}'", name));
    counters.emplace_back(name);
    if (comma == std::string_view::npos) return std::nullopt;
    list.remove_prefix(comma + 1);
  }
}

// --query-counters takes the counter options of a run and nothing else.
std::variant<CommandLine, UsageError> query_command_line(const RunOptions& run, const std::optional<std::string>& chip,
                                                         std::span<const std::string_view> rest) {
  if (run.csv) return usage_error("option '--csv' cannot be used with --query-counters");
  if (run.log_path) return usage_error("option '-o' cannot be used with --query-counters");
  if (!run.config_lines.empty()) return usage_error("config options cannot be used with --query-counters");
  if (!rest.empty()) return usage_error(fmt::format("--query-counters runs no application ('{}')", rest.front()));
  CommandLine result{CommandLine::Action::query_counters, {}, {}, {}, {}};
  if (chip) result.query.chip = *chip;
  result.query.config_path = run.config_path;
  result.query.counters = run.counters;
  return result;
}

std::variant<CommandLine, UsageError> stats_command_line(std::span<const std::string_view> args) {
  auto parsed = parse_stats_command_line(args);
  if (auto* error = std::get_if<UsageError>(&parsed)) return std::move(*error);
  return CommandLine{CommandLine::Action::stats, {}, {}, std::move(std::get<StatsOptions>(parsed)), {}};
}

std::variant<CommandLine, UsageError> stacks_command_line(std::span<const std::string_view> files) {
  if (files.size() != 1) return usage_error("stacks needs one stacks file");
  CommandLine result{CommandLine::Action::stacks, {}, {}, {}, {}};
  result.stacks_file = std::string(files.front());
  return result;
}

}  // namespace

std::variant<CommandLine, UsageError> parse_command_line(std::span<const std::string_view> args) {
  if (!args.empty() && args.front() == "stats") return stats_command_line(args.subspan(1));
  if (!args.empty() && args.front() == "stacks") return stacks_command_line(args.subspan(1));
  CommandLine result;
  RunOptions& run = result.run;
  std::optional<std::string> chip;
  bool query_counters = false;

  OptionScanner scanner(args);
  while (true) {
    const auto next = scanner.next();
    if (const auto* error = std::get_if<UsageError>(&next)) return *error;
    if (std::holds_alternative<EndOfOptions>(next)) break;
    const auto& [option, value] = std::get<ScannedOption>(next);
    switch (option->effect) {
      case Effect::help:
        return CommandLine{CommandLine::Action::help, {}, {}, {}, {}};
      case Effect::version:
        return CommandLine{CommandLine::Action::version, {}, {}, {}, {}};
      case Effect::csv:
        run.csv = true;
        break;
      case Effect::query_counters:
        query_counters = true;
        break;
      case Effect::log_path:
        run.log_path = std::string(*value);
        break;
      case Effect::config_path:
        run.config_path = std::string(*value);
        break;
      case Effect::chip:
        // CUPTI names chips in capitals: tu102 is TU102.
        chip = std::string(*value);
        std::ranges::transform(*chip, chip->begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
        break;
      case Effect::counters:
        if (auto error = add_counters(*value, run.counters)) return *error;
        break;
      case Effect::config_line: {
        auto line = config_line(*option, value);
        if (const auto* error = std::get_if<UsageError>(&line)) return *error;
        run.config_lines.push_back(std::move(std::get<std::string>(line)));
        break;
      }
    }
  }

  if (query_counters) return query_command_line(run, chip, scanner.rest());
  if (chip) return usage_error("option '--chip' needs --query-counters");
  run.command.assign(scanner.rest().begin(), scanner.rest().end());
  if (run.command.empty()) return usage_error("no application to run");
  return result;
}

}  // namespace computeprof::tools
