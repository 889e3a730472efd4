#include "shim/output/classic_log_sink.hpp"

#include "logfmt/header.hpp"
#include "shim/output/log_paths.hpp"

namespace computeprof::shim {

ClassicLogSink::ClassicLogSink(const ProfiledContext& context, config::LogFormat format)
    : context_(context),
      settings_(context.profile->settings),
      lines_(logfmt::select_columns(settings_.config, context.api), format) {}

void ClassicLogSink::begin() {
  const std::string path = claim_output_path(settings_.log_template, context_.device, context_.number);
  if (!open_output_file(file_, path)) return;

  logfmt::HeaderInfo info;
  info.device = context_.device;
  info.device_name = context_.device_name;
  info.context = context_.number;
  info.format = lines_.format();
  info.timestamp_factor = context_.origin.wall_ns;
  info.counters_dropped = settings_.config.counters_dropped;
  std::string header;
  logfmt::write_header(header, info, lines_.layout());
  file_.append(header);
}

void ClassicLogSink::write(const ProfiledContext&, const records::Record& record) {
  // In the file's buffer: no line is copied.
  if (char* room = file_.room_for(lines_.bound(record))) {
    file_.commit(lines_.put(room, record));
  }
}

void ClassicLogSink::flush() {
  if (file_.is_open()) file_.flush();
}

void ClassicLogSink::end() {
  if (file_.is_open()) file_.close();
}

void ClassicLogSink::abandon() { file_.abandon(); }

}  // namespace computeprof::shim
