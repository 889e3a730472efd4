#pragma once
// What the NVTX calls do (docs/format.md, "NVTX ranges"): each thread keeps its open
// push/pop ranges on a stack of its own (per domain: a pop ends the innermost range of
// its domain), whose path every record of the thread carries (shim/process/range_path);
// start/end ranges are kept in a table shared by the process, as they may end on
// another thread. Ended ranges, marks and names go to the record pipeline as
// records::RangeEvent. A push and a pop take no lock and allocate nothing once their
// name and path were met on the thread.
#include <cstdint>

#include "records/range_event.hpp"
#include "records/range_table.hpp"

namespace computeprof::shim {

// What an NVTX call says besides its message: nvtxEventAttributes_t's category, colour
// and payload.
struct RangeAttributes {
  std::uint64_t payload_bits = 0;
  std::uint32_t category = 0;
  std::uint32_t color = 0;
  records::RangePayloadKind payload = records::RangePayloadKind::none;
  bool has_color = false;
};

// At most this many push/pop ranges nest on a thread with a path of their own; deeper
// ones are counted (their pops match) but neither in the path nor written.
inline constexpr std::uint32_t kMaxRangeDepth = 64;

// The window's range (capturerange): its name and domain's name, interned when NVTX is
// first injected. Until then, and without a window, no name matches.
void set_capture_range(records::RangeNameId name, records::RangeNameId domain_name);

// NVTX's return values: a push the level it opened (0 outermost), a pop the level it
// closed; negative for a pop without a push.
int push_range(records::RangeDomainId domain, records::RangeNameId name, const RangeAttributes& attributes);
int pop_range(records::RangeDomainId domain);
std::uint64_t start_range(records::RangeDomainId domain, records::RangeNameId name,
                          const RangeAttributes& attributes);
void end_range(std::uint64_t id);
void mark(records::RangeDomainId domain, records::RangeNameId name, const RangeAttributes& attributes);
void name_category(records::RangeDomainId domain, std::uint32_t category, records::RangeNameId name);
void name_thread(std::uint32_t thread_id, records::RangeNameId name);
records::RangeDomainId create_domain(records::RangeNameId name);
void destroy_domain(records::RangeDomainId domain);

}  // namespace computeprof::shim
