#pragma once
// The exports asked for, made from the run file once it is whole (docs/format.md, "Run
// file"): at exit (and the abrupt ends the shim handles), and for each flight-recorder
// dump. Each export on a thread of its own; on a terminal, one line on stderr says what
// is written and a conversion longer than two seconds shows its progress. The run
// file is removed once every export is written, unless `export cprof` keeps it, or a
// conversion failed, or `exportwhen later` leaves it for `computeprof export` (the line
// says how).
#include <string>

#include "config/profile_config.hpp"

namespace computeprof::shim {

// `run_path`: the run file, closed; "" when none could be made (nothing is done).
// `log_template`: the exports' stem is made from it.
void make_exports_from_run(const config::ProfileConfig& config, const std::string& log_template,
                           const std::string& run_path);

}  // namespace computeprof::shim
