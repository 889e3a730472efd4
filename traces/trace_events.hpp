#pragma once
// Records as Chrome trace events, the JSON that PyTorch's profiler (Kineto) writes and
// Perfetto UI, chrome://tracing and Kineto/HTA scripts read (docs/format.md, "JSON
// trace"). Appends to a caller's buffer; knows nothing of files.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "config/counters.hpp"
#include "records/record.hpp"

namespace computeprof::traces {

// Where an event is drawn: a process track and a thread track in it.
struct TraceTrack {
  std::uint64_t pid = 0;
  std::uint64_t tid = 0;
};

// `s` as a JSON string: quotes, backslashes escaped; control characters, which some
// trace importers refuse even escaped, written as spaces.
void append_json_string(std::string& out, std::string_view s);

// Nanoseconds as the microseconds trace events count in, three decimals.
void append_trace_micros(std::string& out, std::uint64_t ns);

// The event of one GPU operation and what it was: a complete ("X") event, or an async
// begin and end ("b"/"e", `async_id`) where it may overlap others on its track (graph
// nodes). `start_ns` is relative to the trace's base time. `counters`: the configured
// legacy counters, written as args of kernels that have values.
struct GpuEventPlacement {
  TraceTrack track;
  std::uint64_t start_ns = 0;
  std::uint64_t async_id = 0;  // 0: a complete event
  int device = 0;
  int context = 0;
};
void append_gpu_event(std::string& out, const records::Record& record, const GpuEventPlacement& where,
                      std::span<const std::size_t> counters);
// A GPU event's texts that depend on its name only, as JSON strings: a writer keeps
// those of the kernels it has seen (demangling and escaping are the costliest part of
// an event). `method`: the method arg's value, empty where the method is the name (a
// graph launch, a kernel whose name is not mangled).
struct GpuEventNames {
  std::string name;
  std::string method;
};
// Makes `names` for `record`, in the room the strings already have.
void make_gpu_event_names(GpuEventNames& names, const records::Record& record);
// append_gpu_event with the names made before.
void append_gpu_event(std::string& out, const records::Record& record, const GpuEventPlacement& where,
                      std::span<const std::size_t> counters, const GpuEventNames& names);

// The complete event of the host call that made `record` (cat "cuda_driver" or
// "opencl_api"); `stack`, when not empty, its call stack as args.stack (innermost first).
void append_host_event(std::string& out, const records::Record& record, bool opencl, TraceTrack track, std::uint64_t start_ns,
                       std::span<const std::string> stack = {});
// The same with the entry point's name given as a JSON string (a writer keeps the last).
void append_host_event(std::string& out, const records::Record& record, bool opencl, TraceTrack track, std::uint64_t start_ns,
                       std::span<const std::string> stack, std::string_view quoted_api);
// The name of the host event of `record`'s call (its entry point, "unknown" where none).
std::string_view host_event_name(const records::Record& record);

// A flow from the host call to its GPU operation: the start on the call's track, the
// end bound to the enclosing GPU event ("ac2g", as Kineto).
void append_flow(std::string& out, std::uint64_t id, TraceTrack from, std::uint64_t from_ns, TraceTrack to,
                 std::uint64_t to_ns);

// Where the events of one GPU operation and the call that made it go
// (LaunchEventWriter): the call's event where `host_event` (not for a graph launch's
// later nodes), the operation's, and the flow from the call to it where `flow_id` is
// not 0.
struct LaunchPlacement {
  TraceTrack host;
  std::uint64_t host_ns = 0;
  bool opencl = false;
  bool host_event = true;
  GpuEventPlacement gpu;
  std::uint64_t flow_id = 0;
};

namespace trace_detail {
// A piece formatted once where the events of a launch repeat it (a track, a time, a
// correlation id), copied whole.
struct ShortText {
  static constexpr std::size_t kRoom = 64;
  std::array<char, kRoom> bytes{};
  std::size_t size = 0;
};
// ,"pid":<pid>,"tid":<tid>
ShortText track_text(TraceTrack track);

// A kernel's launch configuration as its event's args (grid, block, registers, shared
// memory, occupancy), kept for the last configuration: a kernel's launches mostly share it.
class KernelShapeText {
 public:
  // Writes the text of `record`'s configuration at `p`, made again where it changed.
  char* put(char* p, const records::Record& record);

 private:
  bool same_as(const records::Record& record) const;

  bool valid_ = false;
  records::Dim3 grid_, block_;
  std::uint32_t registers_ = 0, static_smem_ = 0, dynamic_smem_ = 0;
  bool has_occupancy_ = false;
  float occupancy_ = 0;
  std::array<char, 272> text_{};
  std::size_t size_ = 0;
};
}  // namespace trace_detail

// Writes a launch's events as append_host_event, append_gpu_event and append_flow write
// them, separated by ",\n", with what they share formatted once; a writer of many
// launches keeps one, which keeps the texts of the last tracks (most launches share
// them) to copy rather than format again.
class LaunchEventWriter {
 public:
  void append(std::string& out, const records::Record& record, const LaunchPlacement& at,
              std::span<const std::size_t> counters, const GpuEventNames& names, std::string_view quoted_api,
              std::span<const std::string> stack = {});

 private:
  struct TrackText {
    TraceTrack track{~0ull, ~0ull};
    trace_detail::ShortText text = trace_detail::track_text(track);
    const trace_detail::ShortText& text_of(TraceTrack t) {
      if (t.pid != track.pid || t.tid != track.tid) {
        track = t;
        text = trace_detail::track_text(t);
      }
      return text;
    }
  };
  TrackText host_;
  TrackText gpu_;
  trace_detail::KernelShapeText shape_;
};

// A counter event ("C"): the named series' values at `at_ns`, drawn as one counter track
// per `name` in process `pid` (memtrace: a device's bytes in use, by kind).
struct CounterSeries {
  std::string_view name;
  std::uint64_t value = 0;
};
void append_counter_event(std::string& out, std::uint64_t pid, std::string_view name, std::uint64_t at_ns,
                          std::span<const CounterSeries> series);

// Metadata events that name tracks: "process_name" (with "process_labels" when `label`
// is not empty) and "thread_name".
void append_process_name(std::string& out, std::uint64_t pid, std::string_view name, std::string_view label);
void append_thread_name(std::string& out, TraceTrack track, std::string_view name);

// The name a GPU operation has in the trace: a kernel's demangled name, "Memcpy HtoD
// (Pageable -> Device)" for copies, "Memset (Device)", "graphLaunch".
std::string gpu_event_name(const records::Record& record);

}  // namespace computeprof::traces
