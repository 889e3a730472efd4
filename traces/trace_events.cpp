#include "traces/trace_events.hpp"

#include "records/range_table.hpp"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cstring>
#include <iterator>

#include "logfmt/decimal_text.hpp"
#include "logfmt/short_copy.hpp"
#include "records/copy_kind.hpp"
#include "records/kernel_names.hpp"

namespace computeprof::traces {

// The classic log's number and short-text writers (logfmt/decimal_text, short_copy).
using logfmt::put_fixed3;
using logfmt::put_integer;
using logfmt::put_micros;
using logfmt::put_short;
namespace {

char end_letter(records::CopyEnd end) {
  switch (end) {
    case records::CopyEnd::host: return 'H';
    case records::CopyEnd::device: return 'D';
    case records::CopyEnd::array: return 'A';
    case records::CopyEnd::peer: return 'P';
  }
  return '?';
}

std::string_view end_memory(records::CopyEnd end, const records::Record& r) {
  switch (end) {
    case records::CopyEnd::host: return r.host_mem_type == records::HostMemType::page_locked ? "Pinned" : "Pageable";
    case records::CopyEnd::device: return "Device";
    case records::CopyEnd::array: return "Array";
    case records::CopyEnd::peer: return "Device";
  }
  return "Unknown";
}

// Events are written in place, as the classic log's lines are (record_writer.hpp):
// room for an event's bound is made in the caller's string once, the event written
// into it through a pointer, and the string cut back to what was written.
class Room {
 public:
  Room(std::string& out, std::size_t bound) : out_(out), at_(out.size()) { out.resize(at_ + bound); }
  char* begin() { return out_.data() + at_; }
  void keep(const char* end) { out_.resize(static_cast<std::size_t>(end - out_.data())); }

 private:
  std::string& out_;
  std::size_t at_;
};

template <std::size_t N>
char* put(char* p, const char (&literal)[N]) {
  std::memcpy(p, literal, N - 1);
  return p + N - 1;
}

char* put(char* p, std::string_view s) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

// An event's cat, each a literal: a copy of known length.
char* put_category(char* p, records::RecordKind kind) {
  switch (kind) {
    case records::RecordKind::kernel: return put(p, "kernel");
    case records::RecordKind::memcpy: return put(p, "gpu_memcpy");
    case records::RecordKind::memset: return put(p, "gpu_memset");
    case records::RecordKind::graph: return put(p, "cuda_graph");
  }
  return put(p, "kernel");
}

// At most 2 * size + 2 characters (append_json_string's rules).
char* put_json_string(char* p, std::string_view s) {
  *p++ = '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      *p++ = '\\';
      *p++ = c;
    } else {
      *p++ = static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    }
  }
  *p++ = '"';
  return p;
}

using trace_detail::ShortText;

// Copied whole, a fixed-size copy that inlines to a few moves, into room that has
// ShortText::kRoom bytes to spare after it.
char* put(char* p, const ShortText& text) {
  std::memcpy(p, text.bytes.data(), ShortText::kRoom);
  return p + text.size;
}

}  // namespace

namespace trace_detail {

ShortText track_text(TraceTrack track) {
  ShortText text;
  char* p = put(text.bytes.data(), ",\"pid\":");
  p = put_integer(p, track.pid);
  p = put(p, ",\"tid\":");
  p = put_integer(p, track.tid);
  text.size = static_cast<std::size_t>(p - text.bytes.data());
  return text;
}

}  // namespace trace_detail

namespace {

using trace_detail::track_text;

ShortText micros_text(std::uint64_t ns) {
  ShortText text;
  text.size = static_cast<std::size_t>(put_micros(text.bytes.data(), ns) - text.bytes.data());
  return text;
}

ShortText integer_text(std::uint64_t value) {
  ShortText text;
  text.size = static_cast<std::size_t>(put_integer(text.bytes.data(), value) - text.bytes.data());
  return text;
}

char* put_dim3(char* p, const records::Dim3& d) {
  *p++ = '[';
  p = put_integer(p, d.x);
  *p++ = ',';
  p = put_integer(p, d.y);
  *p++ = ',';
  p = put_integer(p, d.z);
  *p++ = ']';
  return p;
}

// What append_args writes at most, beside the method and counter names.
constexpr std::size_t kArgsBound = 400;
constexpr std::size_t kCounterBound = 32;  // beside its name

std::size_t args_bound(const records::Record& r, std::span<const std::size_t> counters) {
  std::size_t bound = kArgsBound + 2 * r.method.size();
  if (r.range_path != 0) bound += 2 * records::range_table().path_text(r.range_path).size();
  for (std::size_t id : counters) bound += config::legacy_counters()[id].name.size() + kCounterBound;
  return bound;
}

// Only what a reader cannot derive (docs/format.md, "JSON trace"): the device is the
// event's pid, the entry point the call's event (by correlation), a copy's direction
// and memory kinds its name, its bandwidth bytes over dur.
// A kernel's launch configuration: at most 258 bytes (numbers of 10 digits, an
// occupancy of 48 characters).
constexpr std::size_t kKernelShapeBound = 258;
char* put_kernel_shape(char* p, const records::Record& r) {
  p = put(p, ",\"grid\":");
  p = put_dim3(p, r.grid);
  p = put(p, ",\"block\":");
  p = put_dim3(p, r.block);
  p = put(p, ",\"registers per thread\":");
  p = put_integer(p, r.registers);
  if (r.static_smem != 0) {
    p = put(p, ",\"static shared memory\":");
    p = put_integer(p, r.static_smem);
  }
  if (r.dynamic_smem != 0) {
    p = put(p, ",\"dynamic shared memory\":");
    p = put_integer(p, r.dynamic_smem);
  }
  if (r.occupancy) {
    p = put(p, ",\"theoretical occupancy\":");
    p = put_fixed3(p, *r.occupancy);
  }
  return p;
}

}  // namespace

namespace trace_detail {

bool KernelShapeText::same_as(const records::Record& r) const {
  return valid_ && r.grid == grid_ && r.block == block_ && r.registers == registers_ && r.static_smem == static_smem_ &&
         r.dynamic_smem == dynamic_smem_ && r.occupancy.has_value() == has_occupancy_ &&
         (!has_occupancy_ || std::bit_cast<std::uint32_t>(*r.occupancy) == std::bit_cast<std::uint32_t>(occupancy_));
}

char* KernelShapeText::put(char* p, const records::Record& r) {
  static_assert(std::tuple_size_v<decltype(text_)> >= kKernelShapeBound);
  if (!same_as(r)) {
    valid_ = true;
    grid_ = r.grid;
    block_ = r.block;
    registers_ = r.registers;
    static_smem_ = r.static_smem;
    dynamic_smem_ = r.dynamic_smem;
    has_occupancy_ = r.occupancy.has_value();
    occupancy_ = r.occupancy.value_or(0.0F);
    size_ = static_cast<std::size_t>(put_kernel_shape(text_.data(), r) - text_.data());
  }
  std::memcpy(p, text_.data(), size_);
  return p + size_;
}

}  // namespace trace_detail

namespace {

// `shape`: the writer's text of the last kernel configuration, where it keeps one.
char* put_args(char* p, const records::Record& r, const GpuEventPlacement& where, std::span<const std::size_t> counters,
               std::string_view quoted_method, const ShortText& correlation, trace_detail::KernelShapeText* shape) {
  p = put(p, ",\"args\":{\"context\":");
  p = put_integer(p, static_cast<std::uint64_t>(where.context));
  p = put(p, ",\"stream\":");
  p = put_integer(p, r.stream_id);
  p = put(p, ",\"correlation\":");
  p = put(p, correlation);
  if (!quoted_method.empty()) {
    p = put(p, ",\"method\":");
    p = put_short(p, quoted_method);
  }
  if (r.range_path != 0) {
    p = put(p, ",\"nvtx range\":");
    p = put_json_string(p, records::range_table().path_text(r.range_path));
  }
  switch (r.kind) {
    case records::RecordKind::kernel:
      p = shape != nullptr ? shape->put(p, r) : put_kernel_shape(p, r);
      for (std::size_t id : counters) {
        const records::CounterValue v = r.counter(id);
        if (v.state == records::CounterValue::State::absent) continue;
        p = put(p, ",\"");
        p = put(p, config::legacy_counters()[id].name);
        p = put(p, "\":");
        p = v.state == records::CounterValue::State::value ? put_integer(p, v.value) : put(p, "\"n/a\"");
      }
      break;
    case records::RecordKind::memcpy:
    case records::RecordKind::memset:
      p = put(p, ",\"bytes\":");
      p = put_integer(p, r.transfer_bytes);
      break;
    case records::RecordKind::graph: break;
  }
  *p++ = '}';
  return p;
}

// Room for a GPU event (both of an async pair, each with its name) beside ShortText's.
std::size_t gpu_event_bound(const records::Record& r, const GpuEventPlacement& where,
                            std::span<const std::size_t> counters, const GpuEventNames& names) {
  // Beside the name and args: 150 bytes at most with numbers of 20 digits (and ",\n").
  constexpr std::size_t kEventBound = 160;
  return (where.async_id == 0 ? 1 : 2) * (kEventBound + names.name.size()) + args_bound(r, counters);
}

char* put_gpu_event(char* p, const records::Record& r, const GpuEventPlacement& where,
                    std::span<const std::size_t> counters, const GpuEventNames& names, const ShortText& track,
                    const ShortText& start, const ShortText& correlation, trace_detail::KernelShapeText* shape) {
  if (where.async_id == 0) {
    p = put(p, "{\"ph\":\"X\",\"cat\":\"");
    p = put_category(p, r.kind);
    p = put(p, "\",\"name\":");
    p = put_short(p, names.name);
    p = put(p, track);
    p = put(p, ",\"ts\":");
    p = put(p, start);
    p = put(p, ",\"dur\":");
    p = put_micros(p, r.gputime_ns);
    p = put_args(p, r, where, counters, names.method, correlation, shape);
    *p++ = '}';
    return p;
  }
  // An async pair, matched by category and id, on its own track of the process.
  for (const bool begin : {true, false}) {
    p = begin ? put(p, "{\"ph\":\"b\",\"cat\":\"") : put(p, ",\n{\"ph\":\"e\",\"cat\":\"");
    p = put_category(p, r.kind);
    p = put(p, "\",\"id\":");
    p = put_integer(p, where.async_id);
    p = put(p, ",\"name\":");
    p = put_short(p, names.name);
    p = put(p, track);
    p = put(p, ",\"ts\":");
    if (begin) {
      p = put(p, start);
      p = put_args(p, r, where, counters, names.method, correlation, shape);
    } else {
      p = put_micros(p, where.start_ns + r.gputime_ns);
    }
    *p++ = '}';
  }
  return p;
}

// Room for a host event without its stack, beside its name and ShortText's: 193
// bytes at most with numbers of 20 digits (and "}},\n").
constexpr std::size_t kHostBound = 200;

// The host event up to its args' correlation: a stack or the closing "}}" follows.
char* put_host_event_head(char* p, const records::Record& r, bool opencl, std::string_view quoted_api,
                          const ShortText& track, const ShortText& start, const ShortText& correlation) {
  p = opencl ? put(p, "{\"ph\":\"X\",\"cat\":\"opencl_api\",\"name\":") : put(p, "{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":");
  p = put_short(p, quoted_api);
  p = put(p, track);
  p = put(p, ",\"ts\":");
  p = put(p, start);
  p = put(p, ",\"dur\":");
  p = put_micros(p, r.cputime_ns);
  p = put(p, ",\"args\":{\"correlation\":");
  return put(p, correlation);
}

void append_stack_and_end(std::string& out, std::span<const std::string> stack) {
  out.append(",\"stack\":[");
  for (std::size_t i = 0; i < stack.size(); ++i) {
    if (i > 0) out.push_back(',');
    append_json_string(out, stack[i]);
  }
  out.append("]}}");
}

// Room for a flow, beside ShortText's: 299 bytes at most (numbers of 20 digits).
constexpr std::size_t kFlowBound = 304;

char* put_flow(char* p, const ShortText& id, const ShortText& from, const ShortText& from_start, const ShortText& to,
               const ShortText& to_start) {
  p = put(p, "{\"ph\":\"s\",\"id\":");
  p = put(p, id);
  p = put(p, from);
  p = put(p, ",\"ts\":");
  p = put(p, from_start);
  p = put(p, ",\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n{\"ph\":\"f\",\"id\":");
  p = put(p, id);
  p = put(p, to);
  p = put(p, ",\"ts\":");
  p = put(p, to_start);
  return put(p, ",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}");
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

void append_trace_micros(std::string& out, std::uint64_t ns) {
  Room room(out, 32);
  room.keep(put_micros(room.begin(), ns));
}

std::string gpu_event_name(const records::Record& r) {
  switch (r.kind) {
    case records::RecordKind::kernel: return records::demangled_name(r.method);
    case records::RecordKind::memcpy: {
      const auto ends = records::copy_ends(r.method);
      if (!ends) return std::string(r.method);
      return fmt::format("Memcpy {}to{} ({} -> {})", end_letter(ends->source), end_letter(ends->destination),
                         end_memory(ends->source, r), end_memory(ends->destination, r));
    }
    case records::RecordKind::memset: return "Memset (Device)";
    case records::RecordKind::graph: return std::string(r.method);
  }
  return std::string(r.method);
}

namespace {

void append_gpu_event_name(std::string& out, const records::Record& r) {
  switch (r.kind) {
    case records::RecordKind::kernel: append_json_string(out, records::demangled_name(r.method)); return;
    case records::RecordKind::memcpy: {
      const auto ends = records::copy_ends(r.method);
      if (!ends) break;
      out.append("\"Memcpy ");
      out.push_back(end_letter(ends->source));
      out.append("to");
      out.push_back(end_letter(ends->destination));
      out.append(" (");
      out.append(end_memory(ends->source, r));
      out.append(" -> ");
      out.append(end_memory(ends->destination, r));
      out.append(")\"");
      return;
    }
    case records::RecordKind::memset: out.append("\"Memset (Device)\""); return;
    case records::RecordKind::graph: break;
  }
  append_json_string(out, r.method);
}

}  // namespace

void make_gpu_event_names(GpuEventNames& names, const records::Record& r) {
  names.name.clear();
  names.method.clear();
  append_gpu_event_name(names.name, r);
  // A graph's name is its method; a kernel's name, the demangled method, equals it only
  // where it is not mangled.
  const std::string_view quoted_name = names.name;
  if (quoted_name.size() != r.method.size() + 2 || quoted_name.substr(1, r.method.size()) != r.method) {
    append_json_string(names.method, r.method);
  }
}

void append_gpu_event(std::string& out, const records::Record& r, const GpuEventPlacement& where,
                      std::span<const std::size_t> counters, const GpuEventNames& names) {
  Room room(out, gpu_event_bound(r, where, counters, names) + ShortText::kRoom);
  room.keep(put_gpu_event(room.begin(), r, where, counters, names, track_text(where.track), micros_text(where.start_ns),
                          integer_text(r.correlation_id), nullptr));
}

void append_gpu_event(std::string& out, const records::Record& r, const GpuEventPlacement& where,
                      std::span<const std::size_t> counters) {
  GpuEventNames names;
  make_gpu_event_names(names, r);
  append_gpu_event(out, r, where, counters, names);
}

std::string_view host_event_name(const records::Record& r) {
  return r.api.empty() ? std::string_view("unknown") : r.api;
}

void append_host_event(std::string& out, const records::Record& r, bool opencl, TraceTrack track, std::uint64_t start_ns,
                       std::span<const std::string> stack, std::string_view quoted_api) {
  {
    Room room(out, kHostBound + quoted_api.size() + ShortText::kRoom);
    char* p = put_host_event_head(room.begin(), r, opencl, quoted_api, track_text(track), micros_text(start_ns),
                                  integer_text(r.correlation_id));
    if (stack.empty()) p = put(p, "}}");
    room.keep(p);
  }
  if (!stack.empty()) append_stack_and_end(out, stack);
}

void append_host_event(std::string& out, const records::Record& r, bool opencl, TraceTrack track, std::uint64_t start_ns,
                       std::span<const std::string> stack) {
  std::string quoted_api;
  append_json_string(quoted_api, host_event_name(r));
  append_host_event(out, r, opencl, track, start_ns, stack, quoted_api);
}

void append_flow(std::string& out, std::uint64_t id, TraceTrack from, std::uint64_t from_ns, TraceTrack to,
                 std::uint64_t to_ns) {
  Room room(out, kFlowBound + ShortText::kRoom);
  const ShortText id_text = integer_text(id);
  room.keep(
      put_flow(room.begin(), id_text, track_text(from), micros_text(from_ns), track_text(to), micros_text(to_ns)));
}

void LaunchEventWriter::append(std::string& out, const records::Record& r, const LaunchPlacement& at,
                               std::span<const std::size_t> counters, const GpuEventNames& names,
                               std::string_view quoted_api, std::span<const std::string> stack) {
  const bool stack_event = at.host_event && !stack.empty();
  if (stack_event) {
    append_host_event(out, r, at.opencl, at.host, at.host_ns, stack, quoted_api);
    out.append(",\n");
  }
  const ShortText& host_track = host_.text_of(at.host);
  const ShortText host_start = micros_text(at.host_ns);
  const ShortText& gpu_track = gpu_.text_of(at.gpu.track);
  const ShortText gpu_start = micros_text(at.gpu.start_ns);
  const ShortText correlation = integer_text(r.correlation_id);
  constexpr std::size_t kSeparators = 4;  // ",\n" between the events
  Room room(out, kHostBound + quoted_api.size() + gpu_event_bound(r, at.gpu, counters, names) + kFlowBound +
                     kSeparators + ShortText::kRoom);
  char* p = room.begin();
  if (at.host_event && !stack_event) {
    p = put_host_event_head(p, r, at.opencl, quoted_api, host_track, host_start, correlation);
    p = put(p, "}},\n");
  }
  p = put_gpu_event(p, r, at.gpu, counters, names, gpu_track, gpu_start, correlation, &shape_);
  if (at.flow_id != 0) {
    p = put(p, ",\n");
    p = put_flow(p, integer_text(at.flow_id), host_track, host_start, gpu_track, gpu_start);
  }
  room.keep(p);
}

void append_counter_event(std::string& out, std::uint64_t pid, std::string_view name, std::uint64_t at_ns,
                          std::span<const CounterSeries> series) {
  fmt::format_to(std::back_inserter(out), "{{\"ph\":\"C\",\"cat\":\"gpu_memory\",\"name\":");
  append_json_string(out, name);
  fmt::format_to(std::back_inserter(out), ",\"pid\":{},\"tid\":0,\"ts\":", pid);
  append_trace_micros(out, at_ns);
  out.append(",\"args\":{");
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (i > 0) out.push_back(',');
    append_json_string(out, series[i].name);
    fmt::format_to(std::back_inserter(out), ":{}", series[i].value);
  }
  out.append("}}");
}

void append_process_name(std::string& out, std::uint64_t pid, std::string_view name, std::string_view label) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":", pid);
  append_json_string(out, name);
  out.append("}}");
  if (!label.empty()) {
    fmt::format_to(it, ",\n{{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":{},\"tid\":0,\"args\":{{\"labels\":", pid);
    append_json_string(out, label);
    out.append("}}");
  }
}

void append_thread_name(std::string& out, TraceTrack track, std::string_view name) {
  fmt::format_to(std::back_inserter(out), "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":",
                 track.pid, track.tid);
  append_json_string(out, name);
  out.append("}}");
}

}  // namespace computeprof::traces
