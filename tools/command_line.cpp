#include "tools/command_line.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "config/counters.hpp"
#include "tools/config_text.hpp"

namespace computeprof::tools {
namespace {

using Value = ConfigOption::Value;

// Each row is a config file line of docs/format.md; the parser of the config file judges
// the values, so that a flag and its line cannot disagree.
constexpr ConfigOption kConfigOptions[] = {
    {"--conckerneltrace", "conckerneltrace", Value::none, "", "kernels and copies not serialized, streams overlap"},
    {"--export", "export", Value::required, "FORMATS", "json, sqlite or json,sqlite: files of the whole process"},
    {"--print-summary", "summary", Value::none, "", "nvprof's table of GPU activities on stderr at exit"},
    {"--memtrace", "memtrace", Value::none, "", "every allocation and free: <log>.memory, <log>_memory.svg"},
    {"--callstack", "callstack", Value::optional_after_equals, "[=DEPTH]",
     "the call stack of each operation (default depth 32)"},
    {"--kernels", "kernels", Value::required, "SPEC", "[context:[stream:]]name[:invocation], name or regex:EXPR"},
    {"--kernel-exclude", "kernelexclude", Value::required, "EXPR", "leave out kernels this regex finds"},
    {"--launch-skip", "launchskip", Value::required, "N", "skip the first N selected launches"},
    {"--launch-count", "launchcount", Value::required, "N", "then select at most N launches"},
    {"--kernel-filter-scope", "kernelfilterscope", Value::required, "SCOPE",
     "counters (default: only counters filtered) or all"},
};

UsageError usage_error(std::string_view what) { return UsageError{fmt::format("{} (see computeprof --help)", what)}; }

const ConfigOption* find_config_option(std::string_view flag) {
  const auto* found = std::ranges::find(kConfigOptions, flag, &ConfigOption::flag);
  return found == std::end(kConfigOptions) ? nullptr : found;
}

// The config parser's verdict on the line a flag stands for: its first problem, if any,
// without the source and line number it would name in a file.
std::optional<UsageError> check_config_line(std::string_view flag, const std::string& line) {
  const std::vector<std::string> problems = parse_config_text(line, "flag").problems;
  if (problems.empty()) return std::nullopt;
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
  CommandLine result{CommandLine::Action::query_counters, {}, {}, {}};
  if (chip) result.query.chip = *chip;
  result.query.config_path = run.config_path;
  result.query.counters = run.counters;
  return result;
}

std::variant<CommandLine, UsageError> stats_command_line(std::span<const std::string_view> files) {
  if (files.empty()) return usage_error("stats needs at least one log or database");
  CommandLine result{CommandLine::Action::stats, {}, {}, {}};
  result.stats_files.assign(files.begin(), files.end());
  return result;
}

}  // namespace

std::span<const ConfigOption> config_options() { return kConfigOptions; }

std::variant<CommandLine, UsageError> parse_command_line(std::span<const std::string_view> args) {
  if (!args.empty() && args.front() == "stats") return stats_command_line(args.subspan(1));
  CommandLine result;
  RunOptions& run = result.run;
  std::optional<std::string> chip;
  bool query_counters = false;
  std::size_t next = 0;

  while (next < args.size()) {
    const std::string_view arg = args[next];
    if (arg == "--") {
      ++next;
      break;
    }
    // The first argument that is not an option is the application.
    if (!arg.starts_with('-')) break;
    ++next;

    // Long options may carry their value as "--name=value", -o as "-oPATH"; --output is -o.
    const std::size_t equals = arg.starts_with("--") ? arg.find('=') : std::string_view::npos;
    std::string_view name = arg.substr(0, equals);
    std::optional<std::string_view> value;
    if (equals != std::string_view::npos) value = arg.substr(equals + 1);
    if (name.starts_with("-o") && name.size() > 2 && name[2] != '-') {
      value = name.substr(2);
      name = "-o";
    }
    if (name == "--output") name = "-o";

    if (name == "-h" || name == "--help" || name == "--version" || name == "--csv" || name == "--query-counters") {
      if (value) return usage_error(fmt::format("option '{}' takes no value", name));
      if (name == "--csv") {
        run.csv = true;
        continue;
      }
      if (name == "--query-counters") {
        query_counters = true;
        continue;
      }
      return CommandLine{name == "--version" ? CommandLine::Action::version : CommandLine::Action::help, {}, {}, {}};
    }
    if (const ConfigOption* option = find_config_option(name)) {
      std::string line(option->config_name);
      if (option->value == Value::none && value) return usage_error(fmt::format("option '{}' takes no value", name));
      if (option->value == Value::required && !value && next < args.size()) value = args[next++];
      if (option->value == Value::required && (!value || value->empty())) {
        return usage_error(fmt::format("option '{}' needs a value", name));
      }
      if (option->value == Value::optional_after_equals && value && value->empty()) {
        return usage_error(fmt::format("option '{}=' needs a value", name));
      }
      if (value && value->find_first_of("\r\n") != std::string_view::npos) {
        return usage_error(fmt::format("option '{}': a value is one line", name));
      }
      if (value) line.append(" ").append(*value);
      if (auto error = check_config_line(name, line)) return *error;
      run.config_lines.push_back(std::move(line));
      continue;
    }
    if (name != "-o" && name != "--config" && name != "--counters" && name != "--chip") {
      return usage_error(fmt::format("unknown option '{}'", arg));
    }
    if (!value && next < args.size()) value = args[next++];
    if (!value || value->empty()) return usage_error(fmt::format("option '{}' needs a value", name));

    if (name == "-o") {
      run.log_path = std::string(*value);
    } else if (name == "--config") {
      run.config_path = std::string(*value);
    } else if (name == "--chip") {
      // CUPTI names chips in capitals: tu102 is TU102.
      chip = std::string(*value);
      std::ranges::transform(*chip, chip->begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    } else if (auto error = add_counters(*value, run.counters)) {
      return *error;
    }
  }

  if (query_counters) return query_command_line(run, chip, args.subspan(next));
  if (chip) return usage_error("option '--chip' needs --query-counters");
  run.command.assign(args.begin() + static_cast<std::ptrdiff_t>(next), args.end());
  if (run.command.empty()) return usage_error("no application to run");
  return result;
}

}  // namespace computeprof::tools
