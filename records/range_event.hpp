#pragma once
// One NVTX event as every output reads it (docs/format.md, "NVTX ranges"): a mark, a
// push/pop or start/end range once it ended, a category or thread named, a domain made
// or destroyed. Plain data: the shim fills it on the application's thread and hands it
// through the record pipeline to every sink's write_range; texts are ids of the
// process's RangeTable (records/range_table.hpp).
#include <cstdint>
#include <string_view>

#include "records/range_table.hpp"

namespace computeprof::records {

// Values are nsys's eventType codes of NVTX_EVENTS, which the database writes as they are.
enum class RangeEventKind : std::uint16_t {
  category_name = 33,
  mark = 34,
  thread_name = 39,
  push_pop = 59,
  start_end = 60,
  domain_create = 75,
  domain_destroy = 76,
};

// NVTX's payload, as the program passed it (nvtxEventAttributes_t::payloadType).
enum class RangePayloadKind : std::uint8_t { none, uint64, int64, float64, uint32, int32, float32 };

struct RangeEvent {
  std::uint64_t start_wall_ns = 0;
  std::uint64_t end_wall_ns = 0;       // ranges: when it ended; otherwise start_wall_ns
  std::uint64_t range_id = 0;          // start/end ranges: nvtxRangeId_t; else 0
  std::uint64_t payload_bits = 0;      // the payload's bytes, as an unsigned number
  RangePathId path = 0;                // push/pop ranges: the path with this range last
  RangeNameId name = 0;                // the message (domain and category events: their name)
  RangeDomainId domain = 0;
  std::uint32_t thread_id = 0;         // where it began (gettid)
  std::uint32_t end_thread_id = 0;     // where it ended (start/end ranges may differ)
  std::uint32_t category = 0;
  std::uint32_t color = 0;             // ARGB; with has_color only
  RangeEventKind kind = RangeEventKind::mark;
  RangePayloadKind payload = RangePayloadKind::none;
  bool has_color = false;
};

// The event's kind as nsys's NvtxEventType names it ("NvtxPushPopRange").
std::string_view range_event_kind_name(RangeEventKind kind);

}  // namespace computeprof::records
