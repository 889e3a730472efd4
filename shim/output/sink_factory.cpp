#include "shim/output/sink_factory.hpp"

#include "exports/run_conversion.hpp"
#include "logfmt/export_path.hpp"

#include "shim/output/classic_log_sink.hpp"
#include "shim/output/exit_exports.hpp"
#include "shim/output/flight_recorder.hpp"
#include "shim/output/log_paths.hpp"
#include "shim/output/memory_report_sink.hpp"
#include "shim/output/run_file_sink.hpp"
#include "shim/output/stack_file_sink.hpp"
#include "shim/output/summary_sink.hpp"
#include "shim/process/profiling_state.hpp"

namespace computeprof::shim {

SinkList make_context_sinks(const ProfiledContext& context) {
  SinkList sinks;
  if (context.profile->settings.format == config::LogFormat::csv) {
    sinks.push_back(std::make_unique<CsvLogSink>(context));
  } else {
    sinks.push_back(std::make_unique<KeyValueLogSink>(context));
  }
  return sinks;
}

namespace {

// The files the exports make for a stem, in the order they are made: the run file
// last, where it is kept.
std::vector<std::string_view> export_extensions(const config::ProfileConfig& config) {
  std::vector<std::string_view> extensions;
  for (config::ExportFormat f : exports::kConvertedFormats) {
    if (config.exports_to(f)) extensions.push_back(exports::export_extension(f));
  }
  if (config.exports_to(config::ExportFormat::cprof)) extensions.push_back(".cprof");
  return extensions;
}

// The run file for `log_template`'s stem, and once it is whole the exports made from
// it (exit_exports.hpp). `settings` outlive the sink.
std::unique_ptr<RecordSink> make_run_file_sink(const config::Settings& settings, const std::string& log_template) {
  return std::make_unique<RunFileSink>(settings, log_template,
                                       [&config = settings.config, log_template](const std::string& run_path) {
                                         make_exports_from_run(config, log_template, run_path);
                                       });
}

// flightrecorder: the run file through a recorder of its window. Its dumps' run files
// are made with their own log template, kept in the settings they read.
std::unique_ptr<RecordSink> make_flight_recorder(const config::Settings& settings) {
  auto dump_settings = std::make_shared<config::Settings>(settings);
  auto make_exports = [dump_settings](const std::string& log_template) {
    dump_settings->log_template = log_template;
    SinkList sinks;
    sinks.push_back(make_run_file_sink(*dump_settings, log_template));
    return sinks;
  };
  auto export_paths = [dump_settings](const std::string& log_template) {
    std::vector<std::string> paths;
    for (std::string_view extension : export_extensions(dump_settings->config)) {
      paths.push_back(output_path(logfmt::export_path_template(log_template, extension), 0));
    }
    return paths;
  };
  const std::string& trigger = settings.config.flight_recorder_trigger;
  return std::make_unique<FlightRecorder>(settings.config.flight_recorder_ns, settings.log_template,
                                          trigger.empty() ? std::string() : output_path(trigger, 0),
                                          std::move(make_exports), std::move(export_paths));
}

}  // namespace

SinkList make_process_sinks() {
  // One set of files for the whole process: the settings of CUDA contexts, or of OpenCL
  // contexts where only those are profiled.
  const ProcessProfile& profile = process_profile();
  const config::Settings& settings = profile.cuda.settings.enabled ? profile.cuda.settings : profile.opencl.settings;
  SinkList sinks;
  if (settings.config.exports.any()) {
    if (settings.config.flight_recorder_ns == 0) {
      sinks.push_back(make_run_file_sink(settings, settings.log_template));
    } else {
      sinks.push_back(make_flight_recorder(settings));
    }
  }
  if (settings.config.summary) sinks.push_back(std::make_unique<SummarySink>(settings.config.traces_api_calls()));
  if (settings.config.callstack_depth != 0) sinks.push_back(std::make_unique<StackFileSink>(settings));
  if (profile.cuda.settings.enabled && profile.cuda.settings.config.memtrace) {
    sinks.push_back(std::make_unique<MemoryReportSink>(profile.cuda.settings));
  }
  return sinks;
}

}  // namespace computeprof::shim
