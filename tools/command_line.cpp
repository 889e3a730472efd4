#include "tools/command_line.hpp"

#include <fmt/format.h>

#include "config/counters.hpp"

namespace computeprof::tools {
namespace {

UsageError usage_error(std::string_view what) { return UsageError{fmt::format("{} (see computeprof --help)", what)}; }

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
  if (!rest.empty()) return usage_error(fmt::format("--query-counters runs no application ('{}')", rest.front()));
  CommandLine result{CommandLine::Action::query_counters, {}, {}};
  if (chip) result.query.chip = *chip;
  result.query.config_path = run.config_path;
  result.query.counters = run.counters;
  return result;
}

}  // namespace

std::variant<CommandLine, UsageError> parse_command_line(std::span<const std::string_view> args) {
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

    // Long options may carry their value as "--name=value".
    const std::size_t equals = arg.starts_with("--") ? arg.find('=') : std::string_view::npos;
    const std::string_view name = arg.substr(0, equals);
    std::optional<std::string_view> value;
    if (equals != std::string_view::npos) value = arg.substr(equals + 1);

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
      return CommandLine{name == "--version" ? CommandLine::Action::version : CommandLine::Action::help, {}, {}};
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
      chip = std::string(*value);
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
