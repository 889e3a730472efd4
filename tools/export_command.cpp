#include "tools/export_command.hpp"

#include <sys/stat.h>

#include <fmt/format.h>

#include "config/report.hpp"
#include "exports/run_conversion.hpp"
#include "runfile/file_bytes.hpp"

namespace computeprof::tools {

namespace {

std::optional<UsageError> add_formats(std::string_view list, std::vector<config::ExportFormat>& formats) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    bool known = false;
    for (config::ExportFormat f : exports::kConvertedFormats) {
      if (name != exports::export_format_name(f)) continue;
      known = true;
      if (std::find(formats.begin(), formats.end(), f) == formats.end()) formats.push_back(f);
    }
    if (!known) {
      return usage_error(fmt::format("export: unknown format '{}' (json, json.gz, pftrace, sqlite, nvprof)",
                                     config::escape_for_warning(name)));
    }
  }
  return std::nullopt;
}

std::string stem_of(const ExportOptions& options, const std::string& input) {
  if (!options.stem.empty()) return options.stem;
  if (input.ends_with(".cprof")) return input.substr(0, input.size() - 6);
  return input;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// Each export at STEM + its extension.
class StemFiles final : public exports::OutputFiles {
 public:
  explicit StemFiles(std::string stem) : stem_(std::move(stem)) {}
  bool open(logfmt::LogFile& file, std::string_view extension) override {
    const std::string path = stem_ + std::string(extension);
    const logfmt::OpenResult opened = file.open(path);
    if (opened.status == logfmt::OpenStatus::held) {
      config::warn(fmt::format("export: '{}' is being written by another process; not written",
                               config::escape_for_warning(path)));
    } else if (!opened) {
      config::warn(opened.why);
    }
    return static_cast<bool>(opened);
  }

 private:
  std::string stem_;
};

std::string holding(const runfile::ReadSummary& s) {
  std::string text = fmt::format("{} operations, {} NVTX events, {} memory events, {} API calls", s.operations,
                                 s.range_events, s.memory_events, s.api_calls);
  if (!s.ended && !s.error) text += " (the run had not ended: every record to its last flush point)";
  return text;
}

}  // namespace

std::variant<ExportOptions, UsageError> parse_export_command_line(std::span<const std::string_view> args) {
  ExportOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    auto value = [&]() -> std::optional<std::string_view> {
      if (i + 1 >= args.size()) return std::nullopt;
      return args[++i];
    };
    if (arg == "--to" || arg.starts_with("--to=")) {
      const auto v = arg == "--to" ? value() : std::optional(arg.substr(5));
      if (!v || v->empty()) return usage_error("export: --to needs formats: json, json.gz, pftrace, sqlite, nvprof");
      if (auto error = add_formats(*v, options.formats)) return *error;
    } else if (arg == "-o" || arg == "--output" || arg.starts_with("--output=")) {
      const auto v = arg.starts_with("--output=") ? std::optional(arg.substr(9)) : value();
      if (!v || v->empty()) return usage_error(fmt::format("export: {} needs a stem", arg));
      options.stem = std::string(*v);
    } else if (arg == "-f" || arg == "--force") {
      options.overwrite = true;
    } else if (arg == "--") {
      for (++i; i < args.size(); ++i) options.inputs.emplace_back(args[i]);
    } else if (arg.size() > 1 && arg.starts_with("-")) {
      return usage_error(fmt::format("export: unknown option '{}'", config::escape_for_warning(arg)));
    } else {
      options.inputs.emplace_back(arg);
    }
  }
  if (options.inputs.empty()) return usage_error("export needs a run file (.cprof)");
  if (options.formats.empty()) return usage_error("export needs --to FORMATS (json, json.gz, pftrace, sqlite, nvprof)");
  if (!options.stem.empty() && options.inputs.size() > 1) {
    return usage_error("export: -o names the stem of one run's exports; give one run file with it");
  }
  return options;
}

int export_runs(const ExportOptions& options, std::FILE* out) {
  // Every file checked before any is written: nothing is overwritten without -f.
  if (!options.overwrite) {
    for (const std::string& input : options.inputs) {
      for (config::ExportFormat f : options.formats) {
        const std::string path = stem_of(options, input) + std::string(exports::export_extension(f));
        if (exists(path)) {
          config::warn(fmt::format("export: '{}' exists; -f overwrites it", config::escape_for_warning(path)));
          return 1;
        }
      }
    }
  }
  int status = 0;
  for (const std::string& input : options.inputs) {
    const std::string name = config::escape_for_warning(input);
    std::string why;
    const auto bytes = runfile::read_file_bytes(input, why);
    if (!bytes) {
      config::warn(fmt::format("export: cannot read '{}': {}", name, why));
      status = 1;
      continue;
    }
    StemFiles files(stem_of(options, input));
    std::vector<exports::ExportTarget> targets;
    for (config::ExportFormat f : options.formats) targets.push_back({f, &files, {}});
    exports::convert_run_in_parallel(*bytes, targets);
    // Every target read the same bytes: the same records, the same damage.
    const runfile::ReadSummary& read = targets.front().result.summary;
    if (read.error && read.bytes == 0) {
      config::warn(fmt::format("export: '{}' at byte {}: {}", name, read.error->offset, read.error->what));
      status = 1;
      continue;
    }
    if (read.error) {
      config::warn(fmt::format("export: '{}' is damaged at byte {}: {}; the records before it are written", name,
                               read.error->offset, read.error->what));
      status = 1;
    }
    for (const exports::ExportTarget& t : targets) {
      if (t.result.not_written) {
        status = 1;
      } else if (read.operations + read.range_events + read.memory_events == 0) {
        std::fprintf(out, "%s: no records; nothing written\n", name.c_str());
        break;
      } else {
        const std::string path = stem_of(options, input) + std::string(exports::export_extension(t.format));
        std::fprintf(out, "%s: %s\n", config::escape_for_warning(path).c_str(), holding(read).c_str());
      }
    }
  }
  return status;
}

}  // namespace computeprof::tools
