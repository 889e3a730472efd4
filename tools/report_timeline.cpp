#include "tools/report_timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <string_view>

#include "records/memory_event.hpp"
#include "records/memory_ledger.hpp"
#include "reports/report_table.hpp"
#include "reports/summary_table.hpp"
#include "runfile/byte_coding.hpp"
#include "runfile/file_bytes.hpp"
#include "runfile/run_reader.hpp"

namespace computeprof::tools {
namespace {

// Every text of the timeline once: the tracks' items name theirs by number.
class Names {
 public:
  std::uint32_t id(std::string_view name) {
    const auto it = ids_.find(name);
    if (it != ids_.end()) return it->second;
    const auto id = static_cast<std::uint32_t>(list_.size());
    list_.emplace_back(name);
    ids_.emplace(list_.back(), id);
    return id;
  }
  const std::vector<std::string>& list() const { return list_; }

 private:
  std::map<std::string, std::uint32_t, std::less<>> ids_;
  std::vector<std::string> list_;
};

// flags: the kind (records::RecordKind) in bits 0-1, bit 2 a copy from pageable memory.
struct Operation {
  std::uint64_t start = 0, end = 0, correlation = 0;
  std::uint64_t extra = 0;  // kernels: occupancy in thousandths + 1 (0: unknown); others: bytes
  std::uint32_t name = 0;
  std::uint32_t flags = 0;
};
struct Call {
  std::uint64_t start = 0, end = 0, correlation = 0;
  std::uint32_t name = 0;
  std::int32_t result = 0;
};
struct Range {
  std::uint64_t start = 0, end = 0;
  std::uint32_t name = 0;
  std::uint32_t depth = 0;
};

// What one run file (one process) shows.
struct ProcessTimeline {
  std::string file;
  std::string program;
  std::uint64_t pid = 0;
  std::optional<std::uint64_t> rank;
  std::map<int, std::string> devices;                                   // by number: its name
  std::map<std::pair<int, std::uint64_t>, std::vector<Operation>> streams;  // by device, stream
  std::map<std::uint32_t, std::vector<Call>> calls;                     // by thread
  std::map<std::uint32_t, std::vector<Range>> ranges;                   // by thread
  std::vector<records::MemoryEvent> memory;
};

class TimelineVisitor final : public runfile::RunVisitor {
 public:
  TimelineVisitor(const runfile::RunReader& reader, ProcessTimeline& process, Names& names)
      : reader_(reader), process_(process), names_(names) {}

  void operation(const records::ContextInfo& context, const records::Record& r) override {
    process_.devices.try_emplace(context.device, context.device_name);
    add_call(context, r);
    if (r.gpu_start_ns == 0) return;  // never timed: no place on the timeline
    Operation op{r.gpu_start_ns, std::max(r.gpu_end_ns, r.gpu_start_ns), r.correlation_id, 0, method_name(r.method),
                 static_cast<std::uint32_t>(r.kind)};
    if (r.kind == records::RecordKind::kernel) {
      if (r.occupancy) op.extra = static_cast<std::uint64_t>(std::clamp(*r.occupancy, 0.0f, 1.0f) * 1000.0f + 0.5f) + 1;
    } else {
      op.extra = r.transfer_bytes;
    }
    if (r.kind == records::RecordKind::memcpy && r.host_mem_type == records::HostMemType::pageable) op.flags |= 4;
    process_.streams[{context.device, r.stream_id}].push_back(op);
  }
  void api_call(const records::ApiCall& call) override {
    process_.calls[call.thread_id].push_back(
        {call.start_ns, std::max(call.end_ns, call.start_ns), call.correlation_id, names_.id(call.name), call.result});
  }
  void memory(const records::MemoryEvent& event) override {
    process_.memory.push_back(event);
    // A call that allocated or freed is a call of its thread too.
    process_.calls[event.thread_id].push_back({event.start_ns, std::max(event.wall_ns, event.start_ns),
                                               event.correlation_id, names_.id(event.api), 0});
  }
  void range(const records::RangeEvent& e) override {
    if (e.kind != records::RangeEventKind::push_pop && e.kind != records::RangeEventKind::start_end) return;
    process_.ranges[e.thread_id].push_back(
        {e.start_wall_ns, std::max(e.end_wall_ns, e.start_wall_ns),
         names_.id(reader_.ranges().qualified_name(e.domain, e.name)), 0});
  }

 private:
  // The call that made an operation, once per call (a graph launch's nodes share
  // theirs), on the wall clock as the exports place it.
  void add_call(const records::ContextInfo& context, const records::Record& r) {
    if (r.correlation_id != 0 && r.correlation_id == last_call_) return;
    last_call_ = r.correlation_id;
    const std::uint64_t start = context.origin.wall_ns + r.timestamp_ns;
    process_.calls[r.thread_id].push_back({start, start + r.cputime_ns, r.correlation_id, names_.id(r.api), 0});
  }

  // A method's row name as the stats tables have it, found once per method.
  std::uint32_t method_name(std::string_view method) {
    const auto it = methods_.find(method);
    if (it != methods_.end()) return it->second;
    const std::uint32_t id = names_.id(reports::summary_row_name(method));
    methods_.emplace(std::string(method), id);
    return id;
  }

  const runfile::RunReader& reader_;
  ProcessTimeline& process_;
  Names& names_;
  std::map<std::string, std::uint32_t, std::less<>> methods_;
  std::uint64_t last_call_ = 0;
};

bool is_run_file(const std::string& bytes) { return bytes.starts_with("CPROFRUN"); }

// Each range's depth on its thread: how many ranges that began before it are still open.
void assign_depths(std::vector<Range>& ranges) {
  std::stable_sort(ranges.begin(), ranges.end(),
                   [](const Range& a, const Range& b) { return a.start != b.start ? a.start < b.start : a.end > b.end; });
  std::vector<std::uint64_t> open_ends;
  for (Range& r : ranges) {
    while (!open_ends.empty() && open_ends.back() <= r.start) open_ends.pop_back();
    r.depth = static_cast<std::uint32_t>(open_ends.size());
    open_ends.push_back(r.end);
  }
}

template <typename Item>
void sort_by_start(std::vector<Item>& items) {
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.start < b.start; });
}

// Writes the tracks: a start as the difference from the track's previous start (from
// the timeline's origin for the first), a length, the name's number, then the kind's
// own fields; correlation ids as signed differences from the previous one.
class TrackWriter {
 public:
  TrackWriter(std::string& out, std::uint64_t origin) : out_(out), origin_(origin) {}

  void operations(const std::vector<Operation>& ops) {
    std::uint64_t previous = origin_;
    std::uint64_t correlation = 0;
    for (const Operation& op : ops) {
      out_.varint(op.start - previous);
      out_.varint(op.end - op.start);
      out_.varint(op.name);
      out_.varint(runfile::delta(correlation, op.correlation));
      out_.varint(op.flags);
      out_.varint(op.extra);
      previous = op.start;
      correlation = op.correlation;
    }
  }
  void calls(const std::vector<Call>& calls) {
    std::uint64_t previous = origin_;
    std::uint64_t correlation = 0;
    for (const Call& c : calls) {
      out_.varint(c.start - previous);
      out_.varint(c.end - c.start);
      out_.varint(c.name);
      out_.varint(runfile::delta(correlation, c.correlation));
      out_.signed_varint(c.result);
      previous = c.start;
      correlation = c.correlation;
    }
  }
  void ranges(const std::vector<Range>& ranges) {
    std::uint64_t previous = origin_;
    for (const Range& r : ranges) {
      out_.varint(r.start - previous);
      out_.varint(r.end - r.start);
      out_.varint(r.name);
      out_.varint(r.depth);
      previous = r.start;
    }
  }
  // A step: the time as a difference, the bytes in use as a signed difference.
  void steps(const std::vector<records::UsageStep>& steps) {
    std::uint64_t previous = origin_;
    std::uint64_t bytes = 0;
    for (const records::UsageStep& s : steps) {
      const std::uint64_t at = std::max(s.wall_ns, previous);
      out_.varint(at - previous);
      out_.varint(runfile::delta(bytes, s.bytes));
      previous = at;
      bytes = s.bytes;
    }
  }

 private:
  runfile::ByteWriter out_;
  std::uint64_t origin_;
};

std::string json_text(std::string_view text) {
  std::string out;
  reports::append_json_text(out, text);
  return out;
}

// The earliest time of every item: the timeline's zero.
std::uint64_t origin_of(const std::vector<ProcessTimeline>& processes) {
  std::uint64_t origin = std::numeric_limits<std::uint64_t>::max();
  for (const ProcessTimeline& p : processes) {
    for (const auto& [key, ops] : p.streams) {
      for (const Operation& op : ops) origin = std::min(origin, op.start);
    }
    for (const auto& [thread, calls] : p.calls) {
      for (const Call& c : calls) origin = std::min(origin, c.start);
    }
    for (const auto& [thread, ranges] : p.ranges) {
      for (const Range& r : ranges) origin = std::min(origin, r.start);
    }
    for (const records::MemoryEvent& e : p.memory) origin = std::min(origin, e.wall_ns);
  }
  return origin == std::numeric_limits<std::uint64_t>::max() ? 0 : origin;
}

// The memory report's answers for one process: each device's peak, and what was never
// freed (largest first, the first kLeaksShown of them).
constexpr std::size_t kLeaksShown = 20;

std::string memory_json(const records::MemoryLedger& ledger, std::uint64_t origin, Names& names) {
  std::string out = "{\"devices\":[";
  bool first = true;
  for (const auto& [device, use] : ledger.devices()) {
    if (!first) out += ',';
    first = false;
    out += fmt::format("{{\"device\":{},\"peak_bytes\":{},\"peak_ns\":{},\"end_bytes\":{}}}", device, use.peak,
                       use.peak_ns >= origin ? use.peak_ns - origin : 0, use.current);
  }
  const std::vector<records::Allocation> live = ledger.live();
  std::uint64_t live_bytes = 0;
  for (const records::Allocation& a : live) live_bytes += a.bytes;
  out += fmt::format("],\"never_freed\":{},\"never_freed_bytes\":{},\"largest_never_freed\":[", live.size(),
                     live_bytes);
  for (std::size_t i = 0; i < live.size() && i < kLeaksShown; ++i) {
    const records::Allocation& a = live[i];
    if (i > 0) out += ',';
    out += fmt::format("{{\"device\":{},\"bytes\":{},\"at_ns\":{},\"kind\":{},\"call\":{}}}", a.device, a.bytes,
                       a.allocated_ns >= origin ? a.allocated_ns - origin : 0,
                       json_text(records::memory_kind_name(a.kind)), names.id(a.api));
  }
  return out + "]}";
}

}  // namespace

ReportTimeline read_report_timeline(const std::vector<std::string>& paths, std::vector<std::string>& warnings) {
  Names names;
  std::vector<ProcessTimeline> processes;
  // The memory events' call names are views into their file's bytes, which are kept
  // until the ledgers have read them.
  std::deque<std::string> files;
  for (const std::string& path : paths) {
    std::string why;
    auto bytes = runfile::read_file_bytes(path, why);
    if (!bytes || !is_run_file(*bytes)) continue;  // stats has told what it cannot read
    runfile::RunReader reader(files.emplace_back(std::move(*bytes)));
    const runfile::RunHeader* header = reader.header();
    if (header == nullptr) continue;
    ProcessTimeline& process = processes.emplace_back();
    process.file = path;
    process.program = header->program;
    process.pid = header->pid;
    if (header->rank) process.rank = header->rank->rank;
    TimelineVisitor visitor(reader, process, names);
    const runfile::ReadSummary summary = reader.read(visitor);
    if (summary.error) {
      warnings.push_back(fmt::format("report: '{}' is damaged at byte {}: {}; its timeline ends there", path,
                                     summary.error->offset, summary.error->what));
    }
  }
  ReportTimeline timeline;
  const std::uint64_t origin = origin_of(processes);
  std::string tracks;
  std::string process_list;
  TrackWriter writer(timeline.items, origin);
  const auto add_track = [&](std::string_view fields) {
    if (!tracks.empty()) tracks += ',';
    tracks += fmt::format("\n{{{}}}", fields);
  };
  for (std::size_t p = 0; p < processes.size(); ++p) {
    ProcessTimeline& process = processes[p];
    for (auto& [key, ops] : process.streams) {
      sort_by_start(ops);
      writer.operations(ops);
      timeline.operations += ops.size();
      add_track(fmt::format("\"kind\":\"operations\",\"process\":{},\"device\":{},\"stream\":{},\"items\":{}", p,
                            key.first, key.second, ops.size()));
    }
    for (auto& [thread, calls] : process.calls) {
      sort_by_start(calls);
      writer.calls(calls);
      add_track(fmt::format("\"kind\":\"calls\",\"process\":{},\"thread\":{},\"items\":{}", p, thread,
                            calls.size()));
    }
    for (auto& [thread, ranges] : process.ranges) {
      assign_depths(ranges);
      writer.ranges(ranges);
      add_track(fmt::format("\"kind\":\"ranges\",\"process\":{},\"thread\":{},\"items\":{}", p, thread,
                            ranges.size()));
    }
    // The memory report's ledger, fed in the order the program made the calls.
    std::stable_sort(process.memory.begin(), process.memory.end(),
                     [](const records::MemoryEvent& a, const records::MemoryEvent& b) { return a.sequence < b.sequence; });
    records::MemoryLedger ledger;
    for (records::MemoryEvent& e : process.memory) ledger.apply(e);
    for (const auto& [device, use] : ledger.devices()) {
      const std::vector<records::UsageStep>* steps = ledger.total_steps(device);
      if (steps == nullptr) continue;
      writer.steps(*steps);
      add_track(fmt::format("\"kind\":\"memory\",\"process\":{},\"device\":{},\"items\":{}", p, device,
                            steps->size()));
    }
    std::string devices;
    for (const auto& [number, name] : process.devices) {
      if (!devices.empty()) devices += ',';
      devices += fmt::format("{{\"device\":{},\"name\":{}}}", number, json_text(name));
    }
    if (!process_list.empty()) process_list += ',';
    process_list += fmt::format(
        "\n{{\"file\":{},\"program\":{},\"pid\":{},\"rank\":{},\"devices\":[{}],\"memory\":{}}}",
        json_text(process.file), json_text(process.program), process.pid,
        process.rank ? std::to_string(*process.rank) : std::string("null"), devices,
        process.memory.empty() ? std::string("null") : memory_json(ledger, origin, names));
  }
  std::string name_list;
  for (const std::string& name : names.list()) {
    if (!name_list.empty()) name_list += ',';
    name_list += json_text(name);
  }
  // The origin as text: a wall-clock time in ns is beyond a JavaScript number's exact
  // integers.
  timeline.description = fmt::format(
      "{{\"origin_ns\":\"{}\",\"processes\":[{}],\n\"tracks\":[{}],\n\"names\":[{}]}}\n", origin, process_list,
      tracks, name_list);
  return timeline;
}

}  // namespace computeprof::tools
