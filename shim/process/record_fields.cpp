#include "shim/process/record_fields.hpp"

namespace computeprof::shim {

RecordFields record_fields(const config::Settings& settings) {
  using config::Option;
  const config::ProfileConfig& c = settings.config;
  RecordFields fields;
  // The classic logs: the fields of their optional columns that cost a driver call
  // (config/options.def names them).
#define OPTION_COLUMN(option, opencl, kinds, written, member, text, ...) \
  __VA_OPT__(fields.__VA_ARGS__ = fields.__VA_ARGS__ || c.has(Option::option);)
#include "config/options.def"
  // The exports show every field (docs/format.md, "Exports").
  if (c.exports.any()) fields = {true, true};
  return fields;
}

}  // namespace computeprof::shim
