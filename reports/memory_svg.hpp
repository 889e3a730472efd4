#pragma once
// The memtrace picture, `<log stem>_memory.svg` (docs/format.md, "Memory picture"):
// bytes in use over time, one chart per device, a step line for the device's total and
// one per kind of memory, labelled axes and a legend. Written by hand: no plotting
// library, readable by any browser.
#include <string>

#include "records/memory_ledger.hpp"

namespace computeprof::reports {

std::string memory_svg(const records::MemoryLedger& ledger);

}  // namespace computeprof::reports
