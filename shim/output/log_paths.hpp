#pragma once
#include "logfmt/log_path.hpp"

namespace computeprof::shim {

// The process's one registry of log paths, so no two contexts share a file.
logfmt::LogPathRegistry& log_paths();

}  // namespace computeprof::shim
