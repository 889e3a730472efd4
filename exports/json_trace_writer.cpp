#include "exports/json_trace_writer.hpp"

#include <fmt/format.h>

#include "config/report.hpp"
#include "symbols/frame.hpp"
#include "traces/api_call_events.hpp"
#include "traces/range_trace_events.hpp"
#include "exports/export_batch.hpp"

namespace computeprof::exports {
namespace {

// CUDA devices are processes 0, 1, ... as in Kineto; OpenCL devices come after them.
constexpr std::uint64_t kOpenCLDevicePids = 100;

std::uint64_t device_pid(const records::ContextInfo& context) {
  return static_cast<std::uint64_t>(context.device) + (context.api == config::Api::opencl ? kOpenCLDevicePids : 0);
}

std::uint64_t since(std::uint64_t wall_ns, std::uint64_t base_ns) { return wall_ns > base_ns ? wall_ns - base_ns : 0; }

}  // namespace

JsonTraceWriter::JsonTraceWriter(const RunFacts& facts, OutputFiles& files, TraceCompression compression,
                                 std::uint64_t viewer_event_limit)
    : facts_(facts),
      files_(files),
      gzip_(compression == TraceCompression::gzip),
      viewer_event_limit_(viewer_event_limit) {}

void JsonTraceWriter::begin() {
  if (gzip_) {
    std::string error;
    if (!members_.start(error)) {
      config::warn(fmt::format("export json.gz: {}; no compressed trace is written", error));
      return;
    }
  }
  if (!files_.open(file_, gzip_ ? ".json.gz" : ".json")) return;
  make_tail();
  // A batch's room, once: growing it by doubling would copy it some twenty times.
  buffer_.reserve(kExportBatchBytes + kExportBatchBytes / 2);
  pid_ = facts_.pid;
  std::string& out = next_event();
  traces::append_process_name(out, pid_, facts_.program_name, "CPU");
}

std::string& JsonTraceWriter::next_event(std::uint64_t count) {
  if (events_ > 0) buffer_.append(",\n");
  events_ += count;
  if (events_ > viewer_event_limit_ && !warned_limit_) {
    warned_limit_ = true;
    // Named: with `export json,json.gz` each trace says it.
    config::warn(fmt::format("the JSON trace '{}' has more than {} events: Perfetto UI and chrome://tracing may not "
                             "open it (Perfetto's trace_processor can)",
                             config::escape_for_warning(file_.path()), viewer_event_limit_));
  }
  return buffer_;
}

void JsonTraceWriter::name_tracks(const records::ContextInfo& context, traces::TraceTrack host, traces::TraceTrack gpu) {
  if (named_threads_.emplace(host.pid, host.tid).second) {
    traces::append_thread_name(next_event(), host, fmt::format("thread {}", host.tid));
  }
  if (named_processes_.insert(gpu.pid).second) {
    const bool opencl = context.api == config::Api::opencl;
    traces::append_process_name(next_event(), gpu.pid,
                                fmt::format("{} {}", opencl ? "OpenCL device" : "GPU", context.device),
                                context.device_name);
    std::string device;
    fmt::format_to(std::back_inserter(device), "{{\"id\":{},\"api\":\"{}\",\"name\":", context.device,
                   opencl ? "opencl" : "cuda");
    traces::append_json_string(device, context.device_name);
    device.push_back('}');
    devices_.push_back(std::move(device));
    make_tail();
  }
  if (named_threads_.emplace(gpu.pid, gpu.tid).second) {
    traces::append_thread_name(next_event(), gpu, fmt::format("stream {}", gpu.tid));
  }
}

void JsonTraceWriter::settle_base() {
  if (base_ns_ != 0) return;
  base_ns_ = facts_.clocks.wall_ns;
  base_monotonic_ns_ = facts_.clocks.monotonic_ns;
}

const traces::GpuEventNames& JsonTraceWriter::event_names(const records::Record& r) {
  if (r.kind == records::RecordKind::kernel) {
    // Runs of one kernel are the common case: compared, not hashed and looked up.
    if (last_kernel_ && last_kernel_->first == r.method) return last_kernel_->second;
    auto it = kernel_names_.find(r.method);
    if (it == kernel_names_.end()) {
      traces::GpuEventNames names;
      traces::make_gpu_event_names(names, r);
      it = kernel_names_.emplace(std::string(r.method), std::move(names)).first;
    }
    last_kernel_ = &*it;
    return it->second;
  }
  traces::make_gpu_event_names(scratch_names_, r);
  return scratch_names_;
}

const JsonTraceWriter::ApiText& JsonTraceWriter::api_text(const records::Record& r) {
  const std::string_view api = traces::host_event_name(r);
  if (api != api_.api || api_.quoted.empty()) {
    api_.api.assign(api);
    api_.quoted.clear();
    traces::append_json_string(api_.quoted, api);
    api_.graph_launch = api.find("GraphLaunch") != std::string_view::npos;
  }
  return api_;
}

void JsonTraceWriter::write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) {
  // Past the export limit, memory events stop with the records.
  if (!file_.is_open() || ended_ || event.unknown || left_out_ != 0) return;
  settle_base();
  const auto use = ledger.devices().find(event.device);
  if (use == ledger.devices().end()) return;
  // Every kind the device has had, so that each series steps back to 0.
  std::vector<traces::CounterSeries> series{{"device total", use->second.current}};
  for (std::size_t k = 0; k < records::kMemoryKindCount; ++k) {
    if (use->second.peak_by_kind[k] == 0) continue;
    series.push_back({records::memory_kind_name(static_cast<records::MemoryKind>(k)), use->second.by_kind[k]});
  }
  traces::append_counter_event(next_event(), event.device, "GPU memory (bytes)", since(event.wall_ns, base_ns_), series);
}

bool JsonTraceWriter::reached_limit() const {
  const std::uint64_t limit = facts_.export_limit;
  // A compressed trace's size is known at its write-throughs only.
  const std::uint64_t pending = gzip_ ? 0 : buffer_.size();
  return limit != 0 && (left_out_ != 0 || bytes_written_ + pending + tail_.size() >= limit);
}

bool JsonTraceWriter::past_limit() {
  if (!reached_limit()) return false;
  ++left_out_;
  return true;
}

void JsonTraceWriter::write(const records::ContextInfo& context, const records::Record& r) {
  if (!file_.is_open() || ended_ || past_limit()) return;
  settle_base();
  const traces::TraceTrack host{pid_, r.thread_id};
  const traces::TraceTrack gpu{device_pid(context), r.stream_id};
  if (host.pid != last_host_.pid || host.tid != last_host_.tid || gpu.pid != last_gpu_.pid ||
      gpu.tid != last_gpu_.tid) {
    name_tracks(context, host, gpu);
    last_host_ = host;
    last_gpu_ = gpu;
  }
  const std::uint64_t host_ns = since(context.origin.wall_ns + r.timestamp_ns, base_ns_);
  const std::uint64_t gpu_ns = since(r.gpu_start_ns, base_ns_);
  // A graph launch's nodes share its call: one host event. No flow to them: a flow's end
  // binds to a slice of a thread's track, which async events are not; their args carry
  // the call's correlation id.
  const bool first_of_call = r.correlation_id == 0 || r.correlation_id != last_host_correlation_;
  const ApiText& api = api_text(r);
  const bool graph_node = r.kind != records::RecordKind::graph && api.graph_launch;
  std::vector<std::string> stack;
  if (first_of_call && r.stack_id != 0) {
    for (const symbols::Frame& frame : facts_.stack(r.stack_id)) stack.push_back(symbols::describe_frame(frame));
  }
  last_host_correlation_ = r.correlation_id;
  const traces::LaunchPlacement at{host,
                                    host_ns,
                                    context.api == config::Api::opencl,
                                    first_of_call,
                                    {gpu, gpu_ns, graph_node ? r.correlation_id : 0, context.device, context.number},
                                    first_of_call && !graph_node ? ++flows_ : 0};
  const std::uint64_t events = (first_of_call ? 1 : 0) + 1 + (at.flow_id != 0 ? 1 : 0);
  launch_events_.append(next_event(events), r, at, facts_.counters, event_names(r), api.quoted, stack);
}

void JsonTraceWriter::write_range(const records::RangeEvent& event) {
  // Past the export limit, NVTX events stop with the records (not counted as records).
  if (!file_.is_open() || ended_ || reached_limit()) return;
  settle_base();
  if (event.kind == records::RangeEventKind::thread_name) {
    const traces::TraceTrack host{pid_, event.thread_id};
    named_threads_.emplace(host.pid, host.tid);
    traces::append_thread_name(next_event(), host, facts_.ranges->name(event.name));
    return;
  }
  using Kind = records::RangeEventKind;
  // Categories and domains are not drawn.
  if (event.kind != Kind::push_pop && event.kind != Kind::start_end && event.kind != Kind::mark) return;
  traces::append_range_event(next_event(), event, pid_, base_ns_);
}

void JsonTraceWriter::write_api_call(const records::ApiCall& call) {
  // Past the export limit, API calls stop with the records (not counted as records).
  if (!file_.is_open() || ended_ || reached_limit()) return;
  settle_base();
  const traces::TraceTrack host{pid_, call.thread_id};
  if (named_threads_.emplace(host.pid, host.tid).second) {
    traces::append_thread_name(next_event(), host, fmt::format("thread {}", host.tid));
  }
  traces::append_api_call_event(next_event(), call, host, since(call.start_ns, base_ns_));
}

void JsonTraceWriter::make_tail() {
  std::string text = "\n],\"deviceProperties\":[";
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    if (i > 0) text.push_back(',');
    text += devices_[i];
  }
  text += "],\"traceName\":";
  traces::append_json_string(text, file_.path());
  text += "}\n";
  tail_.clear();
  if (!gzip_) {
    tail_ = std::move(text);
  } else if (!members_.append_member(text, tail_)) {
    config::warn(fmt::format("export json.gz '{}': zlib cannot compress; the trace stops here", file_.path()));
    file_.close();
  }
}

void JsonTraceWriter::write_through() {
  if (!file_.is_open()) return;
  last_write_ = std::chrono::steady_clock::now();
  std::string header;
  if (!header_written_) {
    settle_base();
    // Kineto's layout; "ms" is a display hint to chrome://tracing (times are always
    // microseconds there), while Perfetto would read "ns" as the times' own unit.
    header = fmt::format("{{\"schemaVersion\":1,\"displayTimeUnit\":\"ms\",\"baseTimeNanoseconds\":{},"
                         "\"baseTimeMonotonicNanoseconds\":{},",
                         base_ns_, base_monotonic_ns_);
    if (const auto& rank = facts_.distributed_rank) {
      fmt::format_to(std::back_inserter(header), "\"distributedInfo\":{{\"rank\":{},\"world_size\":{}}},", rank->rank,
                     rank->world_size);
    }
    // The host, which a merge of several ranks' traces names each rank by.
    if (!facts_.host_name.empty()) {
      header += "\"hostName\":";
      traces::append_json_string(header, facts_.host_name);
      header.push_back(',');
    }
    header += "\"traceEvents\":[\n";
    header_written_ = true;
  }
  if (!gzip_) {
    file_.append(header);
    file_.write(buffer_);
    bytes_written_ += header.size() + buffer_.size();
  } else if (!header.empty() || !buffer_.empty()) {
    // The header goes into the first events' member: no member of its own.
    if (!header.empty()) buffer_.insert(0, header);
    compressed_.clear();
    if (!members_.append_member(buffer_, compressed_)) {
      config::warn(fmt::format("export json.gz '{}': zlib cannot compress; the trace stops here", file_.path()));
      buffer_.clear();
      file_.close();
      return;
    }
    file_.write(compressed_);
    bytes_written_ += compressed_.size();
  }
  buffer_.clear();
  file_.flush_with_tail(tail_);
}

void JsonTraceWriter::flush() {
  if (!header_written_ || export_batch_due(buffer_.size(), kExportBatchBytes, last_write_)) write_through();
}

void JsonTraceWriter::checkpoint() { write_through(); }

void JsonTraceWriter::end() {
  if (ended_) return;
  write_through();
  if (left_out_ != 0 && file_.is_open()) {
    config::warn(fmt::format("export {} '{}' stopped at the export limit of {} bytes: {} records left out of it",
                             gzip_ ? "json.gz" : "json", file_.path(), facts_.export_limit, left_out_));
  }
  file_.close();
  ended_ = true;
}

}  // namespace computeprof::exports
