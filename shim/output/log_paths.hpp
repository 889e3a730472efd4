#pragma once
// The paths of the process's output files: claimed, so that no two outputs share a
// file (docs/format.md, "Log path template"), and listed in the file that
// COMPUTEPROF_LOG_INDEX names (the computeprof command reads it to say where they are).
#include <string>

#include "exports/run_facts.hpp"
#include "logfmt/log_file.hpp"
#include "logfmt/log_path.hpp"

namespace computeprof::shim {

// The process's one registry of claimed paths. Writer thread only (and flushes, under
// the record pipeline's drain lock); forgotten in a forked child.
logfmt::LogPathRegistry& log_paths();

// Appends `path` (made absolute) to COMPUTEPROF_LOG_INDEX's file, when it is set.
void note_log_path(const std::string& path);

// Appends why an output file could not be opened (the warning that said so) to
// COMPUTEPROF_LOG_INDEX's file, when it is set, as a line starting with '!'
// (docs/format.md, "Environment").
void note_unopened_log(std::string_view why);

// A launcher (the computeprof command) collects the output files' paths in
// COMPUTEPROF_LOG_INDEX's file, and says itself where they are.
bool launcher_lists_outputs();

// `path_template` expanded for `device`, this process and this host; not claimed.
std::string output_path(std::string_view path_template, int device);

// The path of an output file: `path_template` expanded for `device`, this process and
// this host, and claimed for `claimant` (a context number; 0 for a process-wide file).
std::string claim_output_path(std::string_view path_template, int device, int claimant);

// The path of a process-wide export (docs/format.md, "Exports"): `log_template` with
// `extension` for its own and no %d, claimed for the whole process.
std::string claim_export_path(std::string_view log_template, std::string_view extension);

// Time 0 of the process-wide exports (docs/format.md, "Exports"): the first context's
// origin; with memtrace, when the settings were read, since the program may allocate
// before any operation is recorded (no event is older).
std::uint64_t export_base_wall_ns();

// Time 0 of the exports on both clocks (exports::ExportClocks): export_base_wall_ns and
// the monotonic clock at the same instant.
exports::ExportClocks export_base_clocks();

// Opens `path` for `file`; where another live process writes that file (it holds its
// lock), opens the path with `_<pid>` before the extension instead, and says so once.
// Notes the path opened in COMPUTEPROF_LOG_INDEX, or why none was. False when no file
// could be opened.
bool open_output_file(logfmt::LogFile& file, const std::string& path);

}  // namespace computeprof::shim
