#include "shim/process/record_fields.hpp"

namespace computeprof::shim {

RecordFields record_fields(const config::Settings& settings) {
  using config::Option;
  const config::ProfileConfig& c = settings.config;
  RecordFields fields;
  // The classic logs: their optional columns (docs/format.md, "Columns").
  fields.stream_id = c.has(Option::streamid);
  fields.cache_config = c.has(Option::cacheconfigrequested) || c.has(Option::cacheconfigexecuted);
  // The exports show every field (docs/format.md, "Exports").
  if (c.exports.any()) fields = {true, true};
  return fields;
}

}  // namespace computeprof::shim
