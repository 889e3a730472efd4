#include "traces/api_call_events.hpp"

#include <iterator>

#include <fmt/format.h>

namespace computeprof::traces {

void append_api_call_event(std::string& out, const records::ApiCall& call, TraceTrack track, std::uint64_t start_ns) {
  auto it = std::back_inserter(out);
  out.append(call.domain == records::ApiDomain::runtime ? R"({"ph":"X","cat":"cuda_runtime","name":)"
                                                        : R"({"ph":"X","cat":"cuda_driver","name":)");
  append_json_string(out, call.name);
  fmt::format_to(it, ",\"pid\":{},\"tid\":{},\"ts\":", track.pid, track.tid);
  append_trace_micros(out, start_ns);
  out.append(",\"dur\":");
  append_trace_micros(out, call.end_ns > call.start_ns ? call.end_ns - call.start_ns : 0);
  fmt::format_to(it, ",\"args\":{{\"correlation\":{},\"result\":{}", call.correlation_id, call.result);
  if (call.kind != records::ApiCallKind::other) {
    out.append(",\"kind\":");
    append_json_string(out, records::api_call_kind_name(call.kind));
  }
  if (call.stream_id != 0) fmt::format_to(it, ",\"stream\":{}", call.stream_id);
  if (call.event_id != 0) fmt::format_to(it, ",\"event\":{}", call.event_id);
  out.append("}}");
}

}  // namespace computeprof::traces
