#include "logfmt/header.hpp"

#include <fmt/format.h>

#include <iterator>

namespace computeprof::logfmt {

void write_header(std::string& out, const HeaderInfo& info, const ColumnLayout& layout) {
  std::string_view prefix = layout.api == config::Api::opencl ? "OPENCL" : "CUDA";
  auto it = std::back_inserter(out);
  fmt::format_to(it, "# {}_PROFILE_LOG_VERSION 2.0\n", prefix);
  fmt::format_to(it, "# {}_DEVICE {} {}\n", prefix, info.device, info.device_name);
  fmt::format_to(it, "# {}_CONTEXT {}\n", prefix, info.context);
  if (info.format == config::LogFormat::csv) fmt::format_to(it, "# {}_PROFILE_CSV 1\n", prefix);
  if (layout.has_gpu_timestamps()) fmt::format_to(it, "# TIMESTAMPFACTOR {:x}\n", info.timestamp_factor);
  if (info.counters_dropped) {
    out.append("# WARNING: profiler counters are not collected with conckerneltrace; counters ignored\n");
  }
  out.append(column_line(layout)).push_back('\n');
}

}  // namespace computeprof::logfmt
