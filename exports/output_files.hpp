#pragma once
// Where an export's file goes is its owner's to decide: the shim claims a path made
// from the log template for the running process; an offline conversion names its own.
#include <string_view>

#include "logfmt/log_file.hpp"

namespace computeprof::exports {

class OutputFiles {
 public:
  virtual ~OutputFiles() = default;
  // Opens `file` for the export whose file name ends in `extension` (".json", ".sqlite",
  // ...); file.path() is then the path to name in messages. False when no file could be
  // opened (said already).
  virtual bool open(logfmt::LogFile& file, std::string_view extension) = 0;
};

}  // namespace computeprof::exports
