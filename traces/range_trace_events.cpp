#include "traces/range_trace_events.hpp"

#include <cstring>
#include <iterator>

#include <fmt/format.h>

#include "traces/trace_events.hpp"

namespace computeprof::traces {
namespace {

std::uint64_t since(std::uint64_t wall_ns, std::uint64_t base_ns) { return wall_ns > base_ns ? wall_ns - base_ns : 0; }

// The start of an event: phase, category, name, track and time.
void append_head(std::string& out, char phase, const records::RangeEvent& e, std::uint64_t pid, std::uint64_t tid,
                 std::uint64_t at_ns) {
  auto& table = records::range_table();
  fmt::format_to(std::back_inserter(out), "{{\"ph\":\"{}\",\"cat\":\"user_annotation\",\"name\":", phase);
  append_json_string(out, table.qualified_name(e.domain, e.name));
  fmt::format_to(std::back_inserter(out), ",\"pid\":{},\"tid\":{},\"ts\":", pid, tid);
  append_trace_micros(out, at_ns);
}

// What NVTX said besides the message.
void append_args(std::string& out, const records::RangeEvent& e) {
  auto it = std::back_inserter(out);
  out.append(",\"args\":{");
  bool first = true;
  const auto key = [&](std::string_view k) {
    if (!first) out.push_back(',');
    first = false;
    append_json_string(out, k);
    out.push_back(':');
  };
  if (e.path != 0 && e.kind == records::RangeEventKind::push_pop) {
    key("path");
    append_json_string(out, records::range_table().path_text(e.path));
  }
  if (e.domain != 0) {
    key("domain");
    append_json_string(out, records::range_table().name(records::range_table().domain_name(e.domain)));
  }
  if (e.category != 0) {
    key("category");
    fmt::format_to(it, "{}", e.category);
  }
  if (e.has_color) {
    key("color");
    fmt::format_to(it, "\"0x{:08x}\"", e.color);
  }
  if (e.payload != records::RangePayloadKind::none) {
    key("payload");
    switch (e.payload) {
      case records::RangePayloadKind::int64: fmt::format_to(it, "{}", static_cast<std::int64_t>(e.payload_bits)); break;
      case records::RangePayloadKind::int32:
        fmt::format_to(it, "{}", static_cast<std::int32_t>(static_cast<std::uint32_t>(e.payload_bits)));
        break;
      case records::RangePayloadKind::float64: {
        double d;
        std::memcpy(&d, &e.payload_bits, sizeof d);
        fmt::format_to(it, "{}", d);
        break;
      }
      case records::RangePayloadKind::float32: {
        float f;
        const auto bits = static_cast<std::uint32_t>(e.payload_bits);
        std::memcpy(&f, &bits, sizeof f);
        fmt::format_to(it, "{}", f);
        break;
      }
      default: fmt::format_to(it, "{}", e.payload_bits); break;
    }
  }
  out.append("}}");
}

}  // namespace

bool append_range_event(std::string& out, const records::RangeEvent& e, std::uint64_t pid, std::uint64_t base_ns) {
  const std::uint64_t start = since(e.start_wall_ns, base_ns);
  const std::uint64_t end = since(e.end_wall_ns, base_ns);
  switch (e.kind) {
    case records::RangeEventKind::push_pop:
      append_head(out, 'X', e, pid, e.thread_id, start);
      out.append(",\"dur\":");
      append_trace_micros(out, end > start ? end - start : 0);
      append_args(out, e);
      return true;
    case records::RangeEventKind::start_end:
      append_head(out, 'b', e, pid, e.thread_id, start);
      fmt::format_to(std::back_inserter(out), ",\"id\":{}", e.range_id);
      append_args(out, e);
      out.append(",\n");
      append_head(out, 'e', e, pid, e.end_thread_id, end);
      fmt::format_to(std::back_inserter(out), ",\"id\":{}}}", e.range_id);
      return true;
    case records::RangeEventKind::mark:
      append_head(out, 'i', e, pid, e.thread_id, start);
      out.append(",\"s\":\"t\"");
      append_args(out, e);
      return true;
    default: return false;
  }
}

}  // namespace computeprof::traces
