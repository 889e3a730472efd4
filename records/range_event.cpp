#include "records/range_event.hpp"

namespace computeprof::records {

std::string_view range_event_kind_name(RangeEventKind kind) {
  switch (kind) {
    case RangeEventKind::category_name: return "NvtxCategory";
    case RangeEventKind::mark: return "NvtxMark";
    case RangeEventKind::thread_name: return "NvtxThread";
    case RangeEventKind::push_pop: return "NvtxPushPopRange";
    case RangeEventKind::start_end: return "NvtxStartEndRange";
    case RangeEventKind::domain_create: return "NvtxDomainCreate";
    case RangeEventKind::domain_destroy: return "NvtxDomainDestroy";
  }
  return "";
}

}  // namespace computeprof::records
