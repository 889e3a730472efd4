#include "shim/output/sink_factory.hpp"

#include "exports/json_trace_writer.hpp"
#include "exports/nvprof_database_writer.hpp"
#include "exports/sqlite_export_writer.hpp"
#include "logfmt/export_path.hpp"

#include "shim/output/classic_log_sink.hpp"
#include "shim/output/export_thread.hpp"
#include "shim/output/export_writer_sink.hpp"
#include "shim/output/flight_recorder.hpp"
#include "shim/output/log_paths.hpp"
#include "shim/output/memory_report_sink.hpp"
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

// The exports' extensions, in the order of their sinks.
std::vector<std::string_view> export_extensions(const config::ProfileConfig& config) {
  std::vector<std::string_view> extensions;
  if (config.exports_to(config::ExportFormat::json)) extensions.push_back(".json");
  if (config.exports_to(config::ExportFormat::json_gz)) extensions.push_back(".json.gz");
  if (config.exports_to(config::ExportFormat::sqlite)) extensions.push_back(".sqlite");
  if (config.exports_to(config::ExportFormat::nvprof)) extensions.push_back(".nvvp");
  return extensions;
}

// How the exports are written: by the caller (the flight recorder's dumps), or each by
// a thread of its own (export_thread.hpp).
enum class ExportThreads { none, own };

// The writer of one export, made from the facts and files its sink keeps.
template <typename Writer, typename... Args>
ExportWriterSink::MakeWriter writer_of(Args... args) {
  return [args...](const exports::RunFacts& facts, exports::OutputFiles& files) {
    return std::make_unique<Writer>(facts, files, args...);
  };
}

void add_export_sinks(SinkList& sinks, const config::Settings& settings, ExportThreads threads) {
  auto add = [&](const ExportWriterSink::MakeWriter& make) {
    std::unique_ptr<RecordSink> sink = std::make_unique<ExportWriterSink>(settings, make);
    if (threads == ExportThreads::own) sink = std::make_unique<ExportThread>(std::move(sink));
    sinks.push_back(std::move(sink));
  };
  using exports::TraceCompression;
  if (settings.config.exports_to(config::ExportFormat::json)) {
    add(writer_of<exports::JsonTraceWriter>(TraceCompression::none));
  }
  if (settings.config.exports_to(config::ExportFormat::json_gz)) {
    add(writer_of<exports::JsonTraceWriter>(TraceCompression::gzip));
  }
  if (settings.config.exports_to(config::ExportFormat::sqlite)) add(writer_of<exports::SqliteExportWriter>());
  if (settings.config.exports_to(config::ExportFormat::nvprof)) add(writer_of<exports::NvprofDatabaseWriter>());
}

// flightrecorder: the exports through a recorder of their window. Its dumps' sinks
// write with their own log template, kept in the settings they read.
std::unique_ptr<RecordSink> make_flight_recorder(const config::Settings& settings) {
  auto dump_settings = std::make_shared<config::Settings>(settings);
  auto make_exports = [dump_settings](const std::string& log_template) {
    dump_settings->log_template = log_template;
    SinkList sinks;
    add_export_sinks(sinks, *dump_settings, ExportThreads::none);
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
  if (settings.config.flight_recorder_ns == 0) {
    add_export_sinks(sinks, settings, ExportThreads::own);
  } else if (!export_extensions(settings.config).empty()) {
    sinks.push_back(make_flight_recorder(settings));
  }
  if (settings.config.summary) sinks.push_back(std::make_unique<SummarySink>());
  if (settings.config.callstack_depth != 0) sinks.push_back(std::make_unique<StackFileSink>(settings));
  if (profile.cuda.settings.enabled && profile.cuda.settings.config.memtrace) {
    sinks.push_back(std::make_unique<MemoryReportSink>(profile.cuda.settings));
  }
  return sinks;
}

}  // namespace computeprof::shim
