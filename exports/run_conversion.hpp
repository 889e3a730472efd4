#pragma once
// A run file made into one export (docs/format.md, "Run file"): its records read back
// in order and handed to the export's writer as the shim once handed them to it while
// the program ran, so that the file is the one a live export wrote. Used at exit by
// the shim (each export on a thread of its own) and by `computeprof export`.
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

#include "config/profile_config.hpp"
#include "exports/output_files.hpp"
#include "runfile/run_reader.hpp"

namespace computeprof::exports {

// The formats a run file is made into, in the order they are made and named.
inline constexpr config::ExportFormat kConvertedFormats[] = {config::ExportFormat::json, config::ExportFormat::json_gz,
                                                             config::ExportFormat::pftrace, config::ExportFormat::sqlite,
                                                             config::ExportFormat::nvprof};

// ".json", ".json.gz", ".pftrace", ".sqlite", ".nvvp", ".cprof".
std::string_view export_extension(config::ExportFormat format);
// "json", "json.gz", "pftrace", "sqlite", "nvprof", "cprof": as `export` names it.
std::string_view export_format_name(config::ExportFormat format);

// The run file's bytes read so far, of `total`.
using ConversionProgress = std::function<void(std::uint64_t read, std::uint64_t total)>;

struct ConversionResult {
  runfile::ReadSummary summary;  // what was read, and the error that stopped it
  // The export's file could not be made (its writer said why); false too when the run
  // had no record at all and no file was begun.
  bool not_written = false;
};

// Converts `run` (a run file's bytes) into the export `format` (not cprof), its file
// opened through `files`.
ConversionResult convert_run(std::string_view run, config::ExportFormat format, OutputFiles& files,
                             const ConversionProgress& progress = {});

// One export of a run: its format, where its file goes (an `open` that may be called
// from any thread), and how it went.
struct ExportTarget {
  config::ExportFormat format = config::ExportFormat::json;
  OutputFiles* files = nullptr;
  ConversionResult result;
};

// Converts `run` into every target, each on a thread of its own ("cprof-export", every
// signal blocked: in a profiled process the program's signals never land on it; where
// no thread can be started, here). On a terminal, a conversion longer than two seconds
// redraws one line of progress on stderr every half second.
void convert_run_in_parallel(std::string_view run, std::span<ExportTarget> targets);

}  // namespace computeprof::exports
