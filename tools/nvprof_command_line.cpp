#include "tools/nvprof_command_line.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>

namespace computeprof::tools {
namespace {

UsageError nvprof_error(std::string_view what) {
  return UsageError{fmt::format("nvprof: {} (see docs/format.md, \"computeprof nvprof\")", what)};
}

// Splits "a,b" into names, dropping empty ones.
void add_names(std::vector<std::string>& to, std::string_view list) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    if (!name.empty()) to.emplace_back(name);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
}

std::optional<reports::NvprofTimeUnit> time_unit(std::string_view v) {
  using reports::NvprofTimeUnit;
  constexpr std::array<std::pair<std::string_view, NvprofTimeUnit>, 6> kUnits{{{"auto", NvprofTimeUnit::automatic},
                                                                              {"col", NvprofTimeUnit::column},
                                                                              {"s", NvprofTimeUnit::s},
                                                                              {"ms", NvprofTimeUnit::ms},
                                                                              {"us", NvprofTimeUnit::us},
                                                                              {"ns", NvprofTimeUnit::ns}}};
  for (const auto& [name, unit] : kUnits) {
    if (name == v) return unit;
  }
  return std::nullopt;
}

std::optional<bool> on_off(std::string_view v) {
  if (v == "on") return true;
  if (v == "off") return false;
  return std::nullopt;
}

}  // namespace

std::variant<NvprofOptions, UsageError> parse_nvprof_command_line(std::span<const std::string_view> args) {
  NvprofOptions o;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (!arg.starts_with("-") || arg == "-") break;
    // --name=value or --name value (nvprof took both).
    std::optional<std::string_view> attached;
    if (const std::size_t eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
      attached = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    const auto value = [&]() -> std::optional<std::string_view> {
      if (attached) return attached;
      if (i + 1 < args.size()) return args[++i];
      return std::nullopt;
    };
    const auto flag = [&](bool& to) -> std::optional<UsageError> {
      if (attached) return nvprof_error(fmt::format("option '{}' takes no value", arg));
      to = true;
      return std::nullopt;
    };
    std::optional<UsageError> error;
    if (arg == "--csv") {
      error = flag(o.csv);
    } else if (arg == "--print-gpu-trace") {
      error = flag(o.gpu_trace);
    } else if (arg == "--print-api-trace") {
      error = flag(o.api_trace);
    } else if (arg == "--print-gpu-summary") {
      error = flag(o.gpu_summary);
    } else if (arg == "--print-api-summary") {
      error = flag(o.api_summary);
    } else if (arg == "--print-summary") {
      bool both = false;
      error = flag(both);
      o.gpu_summary = o.api_summary = true;
    } else if (arg == "--quiet") {
      error = flag(o.quiet);
    } else if (arg == "--profile-child-processes") {
      error = flag(o.child_processes);
    } else if (arg == "-f" || arg == "--force-overwrite") {
      error = flag(o.force_overwrite);
    } else {
      constexpr std::string_view kValueOptions[] = {"-o", "--export-profile", "--log-file", "--kernels", "-e",
                                                    "--events", "-m", "--metrics", "-u", "--normalized-time-unit",
                                                    "--concurrent-kernels", "--profile-from-start",
                                                    "--openacc-profiling"};
      if (std::find(std::begin(kValueOptions), std::end(kValueOptions), arg) == std::end(kValueOptions)) {
        return nvprof_error(fmt::format("option '{}' is not supported", arg));
      }
      const auto v = value();
      if (!v) return nvprof_error(fmt::format("option '{}' needs a value", arg));
      if (arg == "-o" || arg == "--export-profile") {
        if (v->empty()) return nvprof_error(fmt::format("option '{}' needs a file name", arg));
        o.export_profile = std::string(*v);
      } else if (arg == "--log-file") {
        if (v->empty()) return nvprof_error("option '--log-file' needs a file name");
        o.log_file = std::string(*v);
      } else if (arg == "--kernels") {
        o.kernels.emplace_back(*v);
      } else if (arg == "-e" || arg == "--events" || arg == "-m" || arg == "--metrics") {
        add_names(o.counters, *v);
      } else if (arg == "-u" || arg == "--normalized-time-unit") {
        const auto unit = time_unit(*v);
        if (!unit) return nvprof_error(fmt::format("option '{}' takes s, ms, us, ns, col or auto, not '{}'", arg, *v));
        o.unit = *unit;
      } else if (arg == "--concurrent-kernels" || arg == "--profile-from-start" || arg == "--openacc-profiling") {
        const auto on = on_off(*v);
        if (!on) return nvprof_error(fmt::format("option '{}' takes on or off, not '{}'", arg, *v));
        if (arg == "--concurrent-kernels") o.concurrent_kernels = *on;
        if (arg == "--profile-from-start") o.profile_from_start = *on;
        // OpenACC is not traced: "off" is what computeprof does anyway.
        if (arg == "--openacc-profiling" && *on) return nvprof_error("--openacc-profiling on is not supported");
      }
    }
    if (error) return *error;
  }
  if (i >= args.size()) return nvprof_error("no application to profile");
  for (; i < args.size(); ++i) o.command.emplace_back(args[i]);
  return o;
}

}  // namespace computeprof::tools
