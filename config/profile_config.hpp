#pragma once
// The contents of a COMPUTE_PROFILE_CONFIG file (docs/format.md, "Config file").
#include <bitset>
#include <cstdint>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "config/counters.hpp"
#include "config/kernel_filter.hpp"

namespace computeprof::config {

// The config file's lines without a value that are options (config/options.def).
enum class Option : unsigned char {
#define OPTION(option, ...) option,
#define OPTION_COLUMN(option, ...) option,
#include "config/options.def"
};
inline constexpr std::size_t kOptionCount = 0
#define OPTION(...) +1
#define OPTION_COLUMN(...) +1
#include "config/options.def"
    ;

enum class LogFormat { kvp, csv };

// Files beside the classic logs, one per process (`export json`, `export sqlite`,
// `export json.gz`: the JSON trace gzip-compressed). nvprof: a database in nvprof's own
// schema (`.nvvp`), for the tools that read nvprof's files.
// cprof: the run file itself, kept (docs/format.md, "Run file"). pftrace: Perfetto's
// native protobuf trace.
enum class ExportFormat : unsigned char { json, sqlite, nvprof, json_gz, cprof, pftrace };
inline constexpr std::size_t kExportFormatCount = 6;

// capturerange nvtx NAME[@DOMAIN], capturerangeend stop|repeat:N: only what is issued
// while a range of that name is open (on any thread) is profiled, for its first
// `instances` instances.
struct CaptureRange {
  std::string name;    // empty: no window
  std::string domain;  // empty: the default domain
  std::uint64_t instances = 1;

  bool active() const { return !name.empty(); }
};

struct ProfileConfig {
  std::bitset<kOptionCount> options;
  std::bitset<kLegacyCounterCount> counters;  // indexed by legacy counter id
  bool enable_on_start = true;
  std::optional<LogFormat> log_format;  // profilelogformat, overrides *_PROFILE_CSV
  // conckerneltrace together with counters: the counters were dropped (the old rule).
  bool counters_dropped = false;
  std::bitset<kExportFormatCount> exports;  // indexed by ExportFormat
  bool summary = false;                     // nvprof's summary table at exit
  bool memtrace = false;                    // every allocation and free traced (docs/format.md)
  KernelFilters kernel_filters;             // kernels, kernelexclude, launchskip, launchcount, kernelfilterscope
  unsigned callstack_depth = 0;             // callstack [DEPTH]: the frames kept of each call; 0: none
  CaptureRange capture_range;               // capturerange, capturerangeend
  std::uint64_t export_limit = 0;           // exportlimit SIZE: the exports stop at SIZE bytes; 0: no limit
  bool export_later = false;                // exportwhen later: the run file is left for `computeprof export`
  std::uint64_t flight_recorder_ns = 0;     // flightrecorder SECONDS: the exports keep the last SECONDS; 0: all
  std::string flight_recorder_trigger;      // flightrecordertrigger PATH: a dump when this file appears
  std::optional<bool> api_trace;            // apitrace [on|off]: the CUDA API calls traced; unset: with any export

  // apitrace's calls are traced: asked for, or by default with any export (the classic
  // log's contract is kernels and copies).
  bool traces_api_calls() const { return api_trace.value_or(exports.any()); }

  bool exports_to(ExportFormat f) const { return exports.test(static_cast<std::size_t>(f)); }

  bool has(Option o) const { return options.test(static_cast<std::size_t>(o)); }
  // Counters are asked for and were not dropped: counted launches are made.
  bool collects_counters() const { return counters.any() && !counters_dropped; }
  void set(Option o) { options.set(static_cast<std::size_t>(o)); }
};

// Parses config text. Problems are reported through warn() with `source` and the line
// number; at most a handful per file, then one line that counts the rest.
ProfileConfig parse_profile_config(std::string_view text, std::string_view source);

// Reads and parses a config file. Any failure (missing, a directory, unreadable, not a
// regular file, binary, too large) is one warning, and the defaults are returned.
// Warnings name the file `shown_name`, or `path` when it is empty.
ProfileConfig load_profile_config(const std::string& path, std::string_view shown_name = {});

}  // namespace computeprof::config
