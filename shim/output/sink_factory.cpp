#include "shim/output/sink_factory.hpp"

#include "shim/output/classic_log_sink.hpp"

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

SinkList make_process_sinks() { return {}; }

}  // namespace computeprof::shim
