#pragma once
// The block that opens every log (docs/format.md, "Header").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/environment.hpp"
#include "logfmt/columns.hpp"

namespace computeprof::logfmt {

struct HeaderInfo {
  int device = 0;
  std::string_view device_name;
  int context = 1;  // numbered from 1 in the order contexts are first seen
  config::LogFormat format = config::LogFormat::kvp;
  // Written when the layout has GPU timestamps.
  std::uint64_t timestamp_factor = 0;
  // The config asked for counters together with conckerneltrace; they were dropped.
  bool counters_dropped = false;
};

// Appends the header lines and the column line.
void write_header(std::string& out, const HeaderInfo& info, const ColumnLayout& layout);

}  // namespace computeprof::logfmt
