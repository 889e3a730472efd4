#include "formats/trace_events.hpp"

#include "records/range_table.hpp"

#include <fmt/format.h>

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

// "key": as the first member of an object or after a comma.
class Args {
 public:
  explicit Args(std::string& out) : out_(out) {}
  std::string& key(std::string_view k) {
    if (!first_) out_.push_back(',');
    first_ = false;
    append_json_string(out_, k);
    out_.push_back(':');
    return out_;
  }
  template <typename T>
  void number(std::string_view k, T v) {
    fmt::format_to(std::back_inserter(key(k)), "{}", v);
  }
  void string(std::string_view k, std::string_view v) { append_json_string(key(k), v); }
  void dim3(std::string_view k, const records::Dim3& d) { fmt::format_to(std::back_inserter(key(k)), "[{},{},{}]", d.x, d.y, d.z); }

 private:
  std::string& out_;
  bool first_ = true;
};

void append_args(std::string& out, const records::Record& r, const GpuEventPlacement& where,
                 std::span<const std::size_t> counters) {
  out.append(",\"args\":{");
  Args a(out);
  a.number("device", where.device);
  a.number("context", where.context);
  a.number("stream", r.stream_id);
  a.number("correlation", r.correlation_id);
  a.string("method", r.method);
  if (!r.api.empty()) a.string("api", r.api);
  if (r.range_path != 0) a.string("nvtx range", records::range_table().path_text(r.range_path));
  switch (r.kind) {
    case records::RecordKind::kernel:
      a.dim3("grid", r.grid);
      a.dim3("block", r.block);
      a.number("registers per thread", r.registers);
      a.number("static shared memory", r.static_smem);
      a.number("dynamic shared memory", r.dynamic_smem);
      if (r.occupancy) fmt::format_to(std::back_inserter(a.key("theoretical occupancy")), "{:.3f}", *r.occupancy);
      for (std::size_t id : counters) {
        const records::CounterValue v = r.counter(id);
        if (v.state == records::CounterValue::State::value) a.number(config::legacy_counters()[id].name, v.value);
        if (v.state == records::CounterValue::State::unavailable) a.string(config::legacy_counters()[id].name, "n/a");
      }
      break;
    case records::RecordKind::memcpy:
      a.number("bytes", r.transfer_bytes);
      a.number("memtransferdir", static_cast<int>(r.transfer_dir));
      if (r.host_mem_type) a.number("memtransferhostmemtype", static_cast<int>(*r.host_mem_type));
      if (r.gputime_ns > 0) {
        fmt::format_to(std::back_inserter(a.key("memory bandwidth (GB/s)")), "{:.3f}",
                       static_cast<double>(r.transfer_bytes) / static_cast<double>(r.gputime_ns));
      }
      break;
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
  fmt::format_to(std::back_inserter(out), "{}.{:03}", ns / 1000, ns % 1000);
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

void append_gpu_event(std::string& out, const records::Record& r, const GpuEventPlacement& where,
                      std::span<const std::size_t> counters) {
  auto it = std::back_inserter(out);
  const std::string name = gpu_event_name(r);
  if (where.async_id == 0) {
    fmt::format_to(it, "{{\"ph\":\"X\",\"cat\":\"{}\",\"name\":", category(r.kind));
    append_json_string(out, name);
    fmt::format_to(it, ",\"pid\":{},\"tid\":{},\"ts\":", where.track.pid, where.track.tid);
    append_trace_micros(out, where.start_ns);
    out.append(",\"dur\":");
    append_trace_micros(out, r.gputime_ns);
    append_args(out, r, where, counters);
    out.push_back('}');
    return;
  }
  // An async pair, matched by category and id, on its own track of the process.
  fmt::format_to(it, "{{\"ph\":\"b\",\"cat\":\"{}\",\"id\":{},\"name\":", category(r.kind), where.async_id);
  append_json_string(out, name);
  fmt::format_to(it, ",\"pid\":{},\"tid\":{},\"ts\":", where.track.pid, where.track.tid);
  append_trace_micros(out, where.start_ns);
  append_args(out, r, where, counters);
  fmt::format_to(it, "}},\n{{\"ph\":\"e\",\"cat\":\"{}\",\"id\":{},\"name\":", category(r.kind), where.async_id);
  append_json_string(out, name);
  fmt::format_to(it, ",\"pid\":{},\"tid\":{},\"ts\":", where.track.pid, where.track.tid);
  append_trace_micros(out, where.start_ns + r.gputime_ns);
  out.push_back('}');
}

void append_host_event(std::string& out, const records::Record& r, bool opencl, TraceTrack track, std::uint64_t start_ns,
                       std::span<const std::string> stack) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{{\"ph\":\"X\",\"cat\":\"{}\",\"name\":", opencl ? "opencl_api" : "cuda_driver");
  append_json_string(out, r.api.empty() ? std::string_view("unknown") : r.api);
  fmt::format_to(it, ",\"pid\":{},\"tid\":{},\"ts\":", track.pid, track.tid);
  append_trace_micros(out, start_ns);
  out.append(",\"dur\":");
  append_trace_micros(out, r.cputime_ns);
  fmt::format_to(it, ",\"args\":{{\"correlation\":{}", r.correlation_id);
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
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{{\"ph\":\"s\",\"id\":{},\"pid\":{},\"tid\":{},\"ts\":", id, from.pid, from.tid);
  append_trace_micros(out, from_ns);
  fmt::format_to(it, ",\"cat\":\"ac2g\",\"name\":\"ac2g\"}},\n{{\"ph\":\"f\",\"id\":{},\"pid\":{},\"tid\":{},\"ts\":", id,
                 to.pid, to.tid);
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
