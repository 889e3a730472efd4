#include "formats/trace_events.hpp"

#include <fmt/format.h>

#include <charconv>
#include <iterator>

#include "records/copy_kind.hpp"
#include "records/kernel_names.hpp"

namespace computeprof::formats {
namespace {

std::string_view category(records::RecordKind kind) {
  switch (kind) {
    case records::RecordKind::kernel: return "kernel";
    case records::RecordKind::memcpy: return "gpu_memcpy";
    case records::RecordKind::memset: return "gpu_memset";
    case records::RecordKind::graph: return "cuda_graph";
  }
  return "kernel";
}

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

void put_uint(std::string& out, std::uint64_t v) {
  char digits[20];
  const auto written = std::to_chars(digits, digits + sizeof digits, v);
  out.append(digits, written.ptr);
}

void put_fixed3(std::string& out, double v) {
  char digits[64];
  const auto written = std::to_chars(digits, digits + sizeof digits, v, std::chars_format::fixed, 3);
  out.append(digits, written.ptr);
}

void put_track(std::string& out, TraceTrack track) {
  out.append(",\"pid\":");
  put_uint(out, track.pid);
  out.append(",\"tid\":");
  put_uint(out, track.tid);
}

// "key": as the first member of an object or after a comma. Keys are the program's
// own, with nothing to escape.
class Args {
 public:
  explicit Args(std::string& out) : out_(out) {}
  std::string& key(std::string_view k) {
    out_.append(first_ ? "\"" : ",\"");
    first_ = false;
    out_.append(k);
    out_.append("\":");
    return out_;
  }
  void number(std::string_view k, std::uint64_t v) { put_uint(key(k), v); }
  void string(std::string_view k, std::string_view v) { append_json_string(key(k), v); }
  void dim3(std::string_view k, const records::Dim3& d) {
    key(k).push_back('[');
    put_uint(out_, d.x);
    out_.push_back(',');
    put_uint(out_, d.y);
    out_.push_back(',');
    put_uint(out_, d.z);
    out_.push_back(']');
  }

 private:
  std::string& out_;
  bool first_ = true;
};

// Only what a reader cannot derive (docs/format.md, "JSON trace"): the device is the
// event's pid, the entry point the call's event (by correlation), a copy's direction
// and memory kinds its name, its bandwidth bytes over dur.
void append_args(std::string& out, const records::Record& r, const GpuEventPlacement& where,
                 std::span<const std::size_t> counters, bool method_is_name) {
  out.append(",\"args\":{");
  Args a(out);
  a.number("context", static_cast<std::uint64_t>(where.context));
  a.number("stream", r.stream_id);
  a.number("correlation", r.correlation_id);
  if (!method_is_name) a.string("method", r.method);
  switch (r.kind) {
    case records::RecordKind::kernel:
      a.dim3("grid", r.grid);
      a.dim3("block", r.block);
      a.number("registers per thread", r.registers);
      if (r.static_smem != 0) a.number("static shared memory", r.static_smem);
      if (r.dynamic_smem != 0) a.number("dynamic shared memory", r.dynamic_smem);
      if (r.occupancy) put_fixed3(a.key("theoretical occupancy"), *r.occupancy);
      for (std::size_t id : counters) {
        const records::CounterValue v = r.counter(id);
        if (v.state == records::CounterValue::State::value) a.number(config::legacy_counters()[id].name, v.value);
        if (v.state == records::CounterValue::State::unavailable) a.string(config::legacy_counters()[id].name, "n/a");
      }
      break;
    case records::RecordKind::memcpy:
    case records::RecordKind::memset: a.number("bytes", r.transfer_bytes); break;
    case records::RecordKind::graph: break;
  }
  out.push_back('}');
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
  put_uint(out, ns / 1000);
  const auto fraction = static_cast<unsigned>(ns % 1000);
  const char decimals[4] = {'.', static_cast<char>('0' + fraction / 100), static_cast<char>('0' + fraction / 10 % 10),
                            static_cast<char>('0' + fraction % 10)};
  out.append(decimals, sizeof decimals);
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

void append_gpu_event(std::string& out, const records::Record& r, const GpuEventPlacement& where,
                      std::span<const std::size_t> counters, std::string_view quoted_name) {
  // A graph's name is its method; a kernel's name, the demangled method, equals it only
  // where it is not mangled.
  const bool method_is_name = quoted_name.size() == r.method.size() + 2 &&
                              quoted_name.substr(1, r.method.size()) == r.method;
  if (where.async_id == 0) {
    out.append("{\"ph\":\"X\",\"cat\":\"");
    out.append(category(r.kind));
    out.append("\",\"name\":");
    out.append(quoted_name);
    put_track(out, where.track);
    out.append(",\"ts\":");
    append_trace_micros(out, where.start_ns);
    out.append(",\"dur\":");
    append_trace_micros(out, r.gputime_ns);
    append_args(out, r, where, counters, method_is_name);
    out.push_back('}');
    return;
  }
  // An async pair, matched by category and id, on its own track of the process.
  for (const bool begin : {true, false}) {
    out.append(begin ? "{\"ph\":\"b\",\"cat\":\"" : ",\n{\"ph\":\"e\",\"cat\":\"");
    out.append(category(r.kind));
    out.append("\",\"id\":");
    put_uint(out, where.async_id);
    out.append(",\"name\":");
    out.append(quoted_name);
    put_track(out, where.track);
    out.append(",\"ts\":");
    append_trace_micros(out, begin ? where.start_ns : where.start_ns + r.gputime_ns);
    if (begin) append_args(out, r, where, counters, method_is_name);
    out.push_back('}');
  }
}

void append_gpu_event(std::string& out, const records::Record& r, const GpuEventPlacement& where,
                      std::span<const std::size_t> counters) {
  std::string name;
  append_gpu_event_name(name, r);
  append_gpu_event(out, r, where, counters, name);
}

void append_host_event(std::string& out, const records::Record& r, bool opencl, TraceTrack track, std::uint64_t start_ns,
                       std::span<const std::string> stack) {
  out.append(opencl ? "{\"ph\":\"X\",\"cat\":\"opencl_api\",\"name\":" : "{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":");
  append_json_string(out, r.api.empty() ? std::string_view("unknown") : r.api);
  put_track(out, track);
  out.append(",\"ts\":");
  append_trace_micros(out, start_ns);
  out.append(",\"dur\":");
  append_trace_micros(out, r.cputime_ns);
  out.append(",\"args\":{\"correlation\":");
  put_uint(out, r.correlation_id);
  if (!stack.empty()) {
    out.append(",\"stack\":[");
    for (std::size_t i = 0; i < stack.size(); ++i) {
      if (i > 0) out.push_back(',');
      append_json_string(out, stack[i]);
    }
    out.push_back(']');
  }
  out.append("}}");
}

void append_flow(std::string& out, std::uint64_t id, TraceTrack from, std::uint64_t from_ns, TraceTrack to,
                 std::uint64_t to_ns) {
  out.append("{\"ph\":\"s\",\"id\":");
  put_uint(out, id);
  put_track(out, from);
  out.append(",\"ts\":");
  append_trace_micros(out, from_ns);
  out.append(",\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n{\"ph\":\"f\",\"id\":");
  put_uint(out, id);
  put_track(out, to);
  out.append(",\"ts\":");
  append_trace_micros(out, to_ns);
  out.append(",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}");
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

}  // namespace computeprof::formats
