#include "exports/pftrace_writer.hpp"

#include <cmath>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "config/report.hpp"
#include "logfmt/decimal_text.hpp"
#include "symbols/frame.hpp"
#include "traces/trace_events.hpp"
#include "exports/export_batch.hpp"

namespace computeprof::exports {
namespace {

using traces::PerfettoArg;
using traces::PerfettoEvent;
using traces::PerfettoEventType;

// CUDA devices are 0, 1, ...; OpenCL devices 100 and up, as in the JSON trace.
constexpr std::uint64_t kOpenCLDevices = 100;
constexpr std::uint32_t kSharedSequence = 1;

std::string_view operation_category(records::RecordKind kind) {
  switch (kind) {
    case records::RecordKind::kernel: return "kernel";
    case records::RecordKind::memcpy: return "gpu_memcpy";
    case records::RecordKind::memset: return "gpu_memset";
    case records::RecordKind::graph: return "cuda_graph";
  }
  return "kernel";
}

// "[x,y,z]", a launch shape as the JSON trace writes it.
void put_dim3(std::string& out, const records::Dim3& d) {
  char text[40];
  char* p = text;
  *p++ = '[';
  p = logfmt::put_integer(p, d.x);
  *p++ = ',';
  p = logfmt::put_integer(p, d.y);
  *p++ = ',';
  p = logfmt::put_integer(p, d.z);
  *p++ = ']';
  out.assign(text, static_cast<std::size_t>(p - text));
}

}  // namespace

PftraceWriter::PftraceWriter(const RunFacts& facts, OutputFiles& files) : facts_(facts), files_(files) {}

void PftraceWriter::begin() {
  if (!files_.open(file_, ".pftrace")) return;
  // A batch's room, once: growing it by doubling would copy it some twenty times.
  buffer_.reserve(kExportBatchBytes + kExportBatchBytes / 2);
}

void PftraceWriter::anchor() {
  if (anchored_) return;
  anchored_ = true;
  traces::append_clock_anchor(buffer_, kSharedSequence, facts_.clocks.wall_ns, facts_.clocks.monotonic_ns);
}

traces::PerfettoSequence& PftraceWriter::new_sequence(std::uint64_t track) {
  const auto id = static_cast<std::uint32_t>(kSharedSequence + 1 + sequences_.size());
  return sequences_.emplace_back(id, track);
}

std::uint64_t PftraceWriter::process_track() {
  if (process_uuid_ != 0) return process_uuid_;
  process_uuid_ = next_uuid_++;
  std::string name = facts_.program_name.empty() ? fmt::format("process {}", facts_.pid) : facts_.program_name;
  if (const auto& rank = facts_.distributed_rank) name += fmt::format(" (rank {})", rank->rank);
  traces::append_process_track(buffer_, process_uuid_, facts_.pid, name);
  return process_uuid_;
}

PftraceWriter::SequenceTrack& PftraceWriter::thread_track(std::uint32_t tid) {
  if (tid == last_tid_) return *last_thread_;
  auto [it, added] = threads_.try_emplace(tid);
  if (added) {
    const std::uint64_t parent = process_track();
    it->second.uuid = next_uuid_++;
    traces::append_thread_track(buffer_, it->second.uuid, parent, facts_.pid, tid, {});
    it->second.sequence = &new_sequence(it->second.uuid);
  }
  last_tid_ = tid;
  last_thread_ = &it->second;
  return it->second;
}

std::uint64_t PftraceWriter::device_track(const records::ContextInfo* context, std::uint64_t device_key, int device,
                                          bool opencl) {
  auto [it, added] = devices_.try_emplace(device_key);
  if (added) {
    it->second = next_uuid_++;
    traces::append_named_track(buffer_, it->second, 0,
                               fmt::format("{} {}", opencl ? "OpenCL device" : "GPU", device),
                               context != nullptr ? std::string_view(context->device_name) : std::string_view());
  }
  return it->second;
}

PftraceWriter::SequenceTrack& PftraceWriter::stream_track(const records::ContextInfo& context, std::uint64_t stream) {
  const bool opencl = context.api == config::Api::opencl;
  const std::uint64_t device_key = static_cast<std::uint64_t>(context.device) + (opencl ? kOpenCLDevices : 0);
  const std::pair key{device_key, stream};
  if (key == last_stream_key_) return *last_stream_;
  auto [it, added] = streams_.try_emplace(key);
  if (added) {
    const std::uint64_t parent = device_track(&context, device_key, context.device, opencl);
    it->second.uuid = next_uuid_++;
    traces::append_named_track(buffer_, it->second.uuid, parent, fmt::format("stream {}", stream));
    it->second.sequence = &new_sequence(it->second.uuid);
  }
  last_stream_key_ = key;
  last_stream_ = &it->second;
  return it->second;
}

const PftraceWriter::OperationNames& PftraceWriter::operation_names(const records::Record& r) {
  const auto make = [&r](OperationNames& names) {
    names.name = traces::gpu_event_name(r);
    // The method is left out where it is the name (a graph launch, a kernel whose name
    // is not mangled), as in the JSON trace.
    if (names.name != r.method) {
      names.method.assign(r.method);
    } else {
      names.method.clear();
    }
  };
  if (r.kind != records::RecordKind::kernel) {
    make(scratch_names_);
    return scratch_names_;
  }
  // Runs of one kernel are the common case: compared, not hashed and looked up.
  if (last_kernel_ != nullptr && last_kernel_->first == r.method) return last_kernel_->second;
  auto it = kernel_names_.find(r.method);
  if (it == kernel_names_.end()) {
    OperationNames names;
    make(names);
    it = kernel_names_.emplace(std::string(r.method), std::move(names)).first;
  }
  last_kernel_ = &*it;
  return it->second;
}

bool PftraceWriter::reached_limit() const {
  const std::uint64_t limit = facts_.export_limit;
  return limit != 0 && (left_out_ != 0 || bytes_written_ + buffer_.size() >= limit);
}

bool PftraceWriter::past_limit() {
  if (!reached_limit()) return false;
  ++left_out_;
  return true;
}

void PftraceWriter::write(const records::ContextInfo& context, const records::Record& r) {
  if (!file_.is_open() || ended_ || past_limit()) return;
  anchor();
  const bool opencl = context.api == config::Api::opencl;
  const std::string_view api = traces::host_event_name(r);
  // A graph launch's nodes share its call: one call slice, and no flow to them (they
  // are on tracks of their own, each node on one: they may overlap); their
  // correlation arg names the call.
  const bool first_of_call = r.correlation_id == 0 || r.correlation_id != last_host_correlation_;
  last_host_correlation_ = r.correlation_id;
  const bool graph_node = r.kind != records::RecordKind::graph && api.find("GraphLaunch") != std::string_view::npos;
  const std::uint64_t flow = first_of_call && !graph_node ? ++flows_ : 0;

  if (first_of_call) {
    stack_.clear();
    if (r.stack_id != 0) {
      for (const symbols::Frame& frame : facts_.stack(r.stack_id)) stack_.push_back(symbols::describe_frame(frame));
    }
    const PerfettoArg call_args[] = {PerfettoArg::of("correlation", r.correlation_id),
                                     PerfettoArg::of_texts("stack", stack_)};
    SequenceTrack& thread = thread_track(r.thread_id);
    const std::uint64_t host_ns = context.origin.wall_ns + r.timestamp_ns;
    PerfettoEvent call = PerfettoEvent::at(PerfettoEventType::slice_begin, host_ns);
    call.name = api;
    call.category = opencl ? "opencl_api" : "cuda_driver";
    call.flow_id = flow;
    call.args = std::span(call_args, stack_.empty() ? 1 : 2);
    thread.sequence->append(buffer_, call);
    thread.sequence->append(buffer_, PerfettoEvent::at(PerfettoEventType::slice_end, host_ns + r.cputime_ns));
  }

  const OperationNames& names = operation_names(r);
  args_.clear();
  args_.push_back(PerfettoArg::of("context", static_cast<std::uint64_t>(context.number)));
  args_.push_back(PerfettoArg::of("stream", r.stream_id));
  args_.push_back(PerfettoArg::of("correlation", r.correlation_id));
  if (!names.method.empty()) args_.push_back(PerfettoArg::of_interned("method", names.method));
  if (r.range_path != 0) args_.push_back(PerfettoArg::of_interned("nvtx range", facts_.ranges->path_text(r.range_path)));
  switch (r.kind) {
    case records::RecordKind::kernel:
      put_dim3(shape_text_[0], r.grid);
      put_dim3(shape_text_[1], r.block);
      args_.push_back(PerfettoArg::of_interned("grid", shape_text_[0]));
      args_.push_back(PerfettoArg::of_interned("block", shape_text_[1]));
      args_.push_back(PerfettoArg::of("registers per thread", r.registers));
      if (r.static_smem != 0) args_.push_back(PerfettoArg::of("static shared memory", r.static_smem));
      if (r.dynamic_smem != 0) args_.push_back(PerfettoArg::of("dynamic shared memory", r.dynamic_smem));
      if (r.occupancy) {
        // Three decimals, as the JSON trace and the log write it.
        args_.push_back(PerfettoArg::of_real("theoretical occupancy", std::round(*r.occupancy * 1000.0) / 1000.0));
      }
      for (std::size_t id : facts_.counters) {
        const records::CounterValue v = r.counter(id);
        if (v.state == records::CounterValue::State::absent) continue;
        const std::string_view name = config::legacy_counters()[id].name;
        args_.push_back(v.state == records::CounterValue::State::value ? PerfettoArg::of(name, v.value)
                                                                       : PerfettoArg::of_interned(name, "n/a"));
      }
      break;
    case records::RecordKind::memcpy:
    case records::RecordKind::memset: args_.push_back(PerfettoArg::of("bytes", r.transfer_bytes)); break;
    case records::RecordKind::graph: break;
  }

  SequenceTrack& stream = stream_track(context, r.stream_id);
  traces::PerfettoSequence* sequence = stream.sequence;
  std::uint64_t track = 0;
  if (graph_node) {
    track = next_uuid_++;
    traces::append_named_track(buffer_, track, stream.uuid, fmt::format("graph launch {}", r.correlation_id));
    sequence = &shared_;
  }
  PerfettoEvent operation = PerfettoEvent::at(PerfettoEventType::slice_begin, r.gpu_start_ns, track);
  operation.name = names.name;
  operation.category = operation_category(r.kind);
  operation.terminating_flow_id = flow;
  operation.args = args_;
  sequence->append(buffer_, operation);
  sequence->append(buffer_, PerfettoEvent::at(PerfettoEventType::slice_end, r.gpu_start_ns + r.gputime_ns, track));
}

void PftraceWriter::write_api_call(const records::ApiCall& c) {
  // Past the export limit, API calls stop with the records (not counted as records).
  if (!file_.is_open() || ended_ || reached_limit()) return;
  anchor();
  args_.clear();
  args_.push_back(PerfettoArg::of("correlation", c.correlation_id));
  args_.push_back(PerfettoArg::of_signed("result", c.result));
  if (c.kind != records::ApiCallKind::other) {
    args_.push_back(PerfettoArg::of_interned("kind", records::api_call_kind_name(c.kind)));
  }
  if (c.stream_id != 0) args_.push_back(PerfettoArg::of("stream", c.stream_id));
  if (c.event_id != 0) args_.push_back(PerfettoArg::of("event", c.event_id));
  SequenceTrack& thread = thread_track(c.thread_id);
  PerfettoEvent call = PerfettoEvent::at(PerfettoEventType::slice_begin, c.start_ns);
  call.name = c.name;
  call.category = c.domain == records::ApiDomain::runtime ? "cuda_runtime" : "cuda_driver";
  call.args = args_;
  thread.sequence->append(buffer_, call);
  thread.sequence->append(buffer_, PerfettoEvent::at(PerfettoEventType::slice_end, std::max(c.end_ns, c.start_ns)));
}

void PftraceWriter::write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) {
  // Past the export limit, memory events stop with the records.
  if (!file_.is_open() || ended_ || event.unknown || left_out_ != 0) return;
  const auto use = ledger.devices().find(event.device);
  if (use == ledger.devices().end()) return;
  anchor();
  const auto count = [&](std::string_view series, std::uint64_t value) {
    auto [it, added] = counters_.try_emplace({event.device, series});
    if (added) {
      const std::uint64_t parent = device_track(nullptr, event.device, static_cast<int>(event.device), false);
      it->second = next_uuid_++;
      traces::append_counter_track(buffer_, it->second, parent, fmt::format("GPU memory: {}", series), true);
    }
    PerfettoEvent counter = PerfettoEvent::at(PerfettoEventType::counter, event.wall_ns, it->second);
    counter.counter_value = static_cast<std::int64_t>(value);
    shared_.append(buffer_, counter);
  };
  // Every kind the device has had, so that each series steps back to 0.
  count("device total", use->second.current);
  for (std::size_t k = 0; k < records::kMemoryKindCount; ++k) {
    if (use->second.peak_by_kind[k] == 0) continue;
    count(records::memory_kind_name(static_cast<records::MemoryKind>(k)), use->second.by_kind[k]);
  }
}

void PftraceWriter::write_range(const records::RangeEvent& event) {
  // Past the export limit, NVTX events stop with the records (not counted as records).
  if (!file_.is_open() || ended_ || reached_limit()) return;
  anchor();
  using Kind = records::RangeEventKind;
  if (event.kind == Kind::thread_name) {
    auto [it, added] = threads_.try_emplace(event.thread_id);
    const std::uint64_t parent = process_track();
    if (added) it->second.uuid = next_uuid_++;
    traces::append_thread_track(buffer_, it->second.uuid, parent, facts_.pid, event.thread_id,
                                facts_.ranges->name(event.name));
    if (added) it->second.sequence = &new_sequence(it->second.uuid);
    return;
  }
  // Categories and domains are not drawn.
  if (event.kind != Kind::push_pop && event.kind != Kind::start_end && event.kind != Kind::mark) return;
  write_range_event(event);
}

void PftraceWriter::write_range_event(const records::RangeEvent& e) {
  const records::RangeTable& table = *facts_.ranges;
  const std::string name = table.qualified_name(e.domain, e.name);
  std::vector<PerfettoArg> args;
  if (e.path != 0 && e.kind == records::RangeEventKind::push_pop) {
    args.push_back(PerfettoArg::of_text("path", table.path_text(e.path)));
  }
  if (e.domain != 0) args.push_back(PerfettoArg::of_text("domain", table.name(table.domain_name(e.domain))));
  if (e.category != 0) args.push_back(PerfettoArg::of("category", e.category));
  const std::string color = fmt::format("0x{:08x}", e.color);
  if (e.has_color) args.push_back(PerfettoArg::of_text("color", color));
  switch (e.payload) {
    case records::RangePayloadKind::none: break;
    case records::RangePayloadKind::int64:
      args.push_back(PerfettoArg::of_signed("payload", static_cast<std::int64_t>(e.payload_bits)));
      break;
    case records::RangePayloadKind::int32:
      args.push_back(PerfettoArg::of_signed(
          "payload", static_cast<std::int32_t>(static_cast<std::uint32_t>(e.payload_bits))));
      break;
    case records::RangePayloadKind::float64: {
      double d;
      std::memcpy(&d, &e.payload_bits, sizeof d);
      args.push_back(PerfettoArg::of_real("payload", d));
      break;
    }
    case records::RangePayloadKind::float32: {
      float f;
      const auto bits = static_cast<std::uint32_t>(e.payload_bits);
      std::memcpy(&f, &bits, sizeof f);
      args.push_back(PerfettoArg::of_real("payload", f));
      break;
    }
    case records::RangePayloadKind::uint64:
    case records::RangePayloadKind::uint32: args.push_back(PerfettoArg::of("payload", e.payload_bits)); break;
  }
  PerfettoEvent begin = PerfettoEvent::at(
      e.kind == records::RangeEventKind::mark ? PerfettoEventType::instant : PerfettoEventType::slice_begin,
      e.start_wall_ns);
  begin.name = name;
  begin.category = "user_annotation";
  begin.args = args;
  if (e.kind == records::RangeEventKind::start_end) {
    // It may end on another thread, and overlap others: a track of its own.
    begin.track = next_uuid_++;
    traces::append_named_track(buffer_, begin.track, process_track(), name);
  } else {
    begin.track = thread_track(e.thread_id).uuid;
  }
  shared_.append(buffer_, begin);
  if (e.kind != records::RangeEventKind::mark) {
    shared_.append(buffer_, PerfettoEvent::at(PerfettoEventType::slice_end, e.end_wall_ns, begin.track));
  }
}

void PftraceWriter::write_through() {
  if (!file_.is_open()) return;
  last_write_ = std::chrono::steady_clock::now();
  file_.write(buffer_);
  bytes_written_ += buffer_.size();
  buffer_.clear();
}

void PftraceWriter::flush() {
  if (export_batch_due(buffer_.size(), kExportBatchBytes, last_write_)) write_through();
}

void PftraceWriter::checkpoint() { write_through(); }

void PftraceWriter::end() {
  if (ended_) return;
  write_through();
  if (left_out_ != 0 && file_.is_open()) {
    config::warn(fmt::format("export pftrace '{}' stopped at the export limit of {} bytes: {} records left out of it",
                             file_.path(), facts_.export_limit, left_out_));
  }
  file_.close();
  ended_ = true;
}

}  // namespace computeprof::exports
