#include "records/api_call.hpp"

namespace computeprof::records {

std::string_view api_call_kind_name(ApiCallKind kind) {
  switch (kind) {
    case ApiCallKind::other: return "other";
    case ApiCallKind::stream_synchronize: return "stream_synchronize";
    case ApiCallKind::context_synchronize: return "context_synchronize";
    case ApiCallKind::event_synchronize: return "event_synchronize";
    case ApiCallKind::stream_wait_event: return "stream_wait_event";
    case ApiCallKind::event_record: return "event_record";
    case ApiCallKind::memory_allocate: return "memory_allocate";
    case ApiCallKind::memory_free: return "memory_free";
    case ApiCallKind::module_load: return "module_load";
  }
  return "";
}

}  // namespace computeprof::records
