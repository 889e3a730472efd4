#include "shim/output/sink_factory.hpp"

#include "shim/output/classic_log_sink.hpp"
#include "shim/output/json_trace_sink.hpp"
#include "shim/output/memory_report_sink.hpp"
#include "shim/output/nvprof_database_sink.hpp"
#include "shim/output/sqlite_export_sink.hpp"
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

SinkList make_process_sinks() {
  // One set of files for the whole process: the settings of CUDA contexts, or of OpenCL
  // contexts where only those are profiled.
  const ProcessProfile& profile = process_profile();
  const config::Settings& settings = profile.cuda.settings.enabled ? profile.cuda.settings : profile.opencl.settings;
  SinkList sinks;
  if (settings.config.exports_to(config::ExportFormat::json)) {
    sinks.push_back(std::make_unique<JsonTraceSink>(settings, TraceCompression::none));
  }
  if (settings.config.exports_to(config::ExportFormat::json_gz)) {
    sinks.push_back(std::make_unique<JsonTraceSink>(settings, TraceCompression::gzip));
  }
  if (settings.config.exports_to(config::ExportFormat::sqlite)) {
    sinks.push_back(std::make_unique<SqliteExportSink>(settings));
  }
  if (settings.config.exports_to(config::ExportFormat::nvprof)) {
    sinks.push_back(std::make_unique<NvprofDatabaseSink>(settings));
  }
  if (settings.config.summary) sinks.push_back(std::make_unique<SummarySink>());
  if (settings.config.callstack_depth != 0) sinks.push_back(std::make_unique<StackFileSink>(settings));
  if (profile.cuda.settings.enabled && profile.cuda.settings.config.memtrace) {
    sinks.push_back(std::make_unique<MemoryReportSink>(profile.cuda.settings));
  }
  return sinks;
}

}  // namespace computeprof::shim
