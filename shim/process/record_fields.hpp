#pragma once
// What the collectors compute for each record beyond what every record has (method,
// times, launch shape, sizes): the values that cost a driver call per operation. Derived
// once from the settings, as the union of what the configured outputs show, so that a
// collector asks this set, never the columns of one output.
#include "config/environment.hpp"

namespace computeprof::shim {

struct RecordFields {
  bool stream_id = false;     // cuStreamGetId per operation; the OpenCL queue's number
  bool cache_config = false;  // cuCtxGetCacheConfig per launch
  friend bool operator==(const RecordFields&, const RecordFields&) = default;
};

RecordFields record_fields(const config::Settings& settings);

}  // namespace computeprof::shim
