#pragma once
// Which sinks the settings ask for (docs/design.md, "Outputs"): the classic key-value
// or CSV log of each context; the process-wide ones.
#include "shim/output/record_outputs.hpp"

namespace computeprof::shim {

// The sinks of one context's records.
SinkList make_context_sinks(const ProfiledContext& context);

// The sinks that take every context's records.
SinkList make_process_sinks();

}  // namespace computeprof::shim
