#pragma once
// The memtrace report, `<log stem>.memory` (docs/format.md, "Memory report"), and its
// short form on stderr at exit.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "records/memory_ledger.hpp"

namespace computeprof::reports {

// Where an allocation was made: its stack's innermost frame (callstack), "" when none.
using CallSite = std::function<std::string(std::uint32_t stack_id)>;

std::string memory_report(const records::MemoryLedger& ledger, const CallSite& call_site = {});

// One line per device that had memory, and one for what was never freed:
// "computeprof: memory: device 0 peak 9.813 MiB at 0.532 ms (7 allocations live)".
std::string memory_report_summary(const records::MemoryLedger& ledger, std::string_view report_path);

}  // namespace computeprof::reports
