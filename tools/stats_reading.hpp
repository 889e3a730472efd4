#pragma once
// The inputs of `computeprof stats` read on a pool of threads: each file into its own
// StatsInput, reduced by the caller to what it keeps, and dropped, so that what is held
// at once is one file per thread whatever the number of files.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "tools/stats_input.hpp"

namespace computeprof::tools {

// Reads each of `paths` on one of min(hardware threads, files) threads and calls
// `reduce(i, input)` for file i on that thread (`reduce` synchronises what it shares).
// Returns each file's warning (empty when it was read whole); a file that could not be
// read is not given to `reduce`.
std::vector<std::string> read_stats_inputs(const std::vector<std::string>& paths,
                                           const std::function<void(std::size_t, StatsInput&)>& reduce);

}  // namespace computeprof::tools
