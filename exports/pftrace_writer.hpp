#pragma once
// `export pftrace`: Perfetto's native trace of the whole process (docs/format.md,
// "Perfetto trace"): the program's process with a track per calling thread (its calls
// as slices), a track per device and stream (its operations as slices), a flow from
// each call to its GPU work, NVTX ranges and marks, memory use as counters. Packets are
// encoded in place into one buffer reused for the life of the writer and written
// through in batches; the file is a whole trace after every write-through.
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "logfmt/log_file.hpp"
#include "traces/perfetto_packets.hpp"
#include "exports/export_writer.hpp"
#include "exports/output_files.hpp"
#include "exports/run_facts.hpp"

namespace computeprof::exports {

class PftraceWriter final : public ExportWriter {
 public:
  PftraceWriter(const RunFacts& facts, OutputFiles& files);

  void begin() override;
  // The call's slice on its thread's track, the operation's on its stream's track, and
  // the flow between them.
  void write(const records::ContextInfo& context, const records::Record& record) override;
  // A counter of the device's bytes in use after the event, for the total and each kind.
  void write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) override;
  void write_range(const records::RangeEvent& event) override;
  // An API call's slice on its thread's track (apitrace), its args as the JSON trace's.
  void write_api_call(const records::ApiCall& call) override;
  // Writes through when a batch is large or old enough (export_batch.hpp).
  void flush() override;
  void checkpoint() override;
  void end() override;

 private:
  // A track whose events have a sequence of their own.
  struct SequenceTrack {
    std::uint64_t uuid = 0;
    traces::PerfettoSequence* sequence = nullptr;
  };
  // The names of a GPU operation: its event's and the method arg's (empty where the
  // method is the name).
  struct OperationNames {
    std::string name;
    std::string method;
  };
  // The trace's clock anchor, its first packet.
  void anchor();
  std::uint64_t process_track();
  SequenceTrack& thread_track(std::uint32_t tid);
  std::uint64_t device_track(const records::ContextInfo* context, std::uint64_t device_key, int device,
                             bool opencl);
  SequenceTrack& stream_track(const records::ContextInfo& context, std::uint64_t stream);
  traces::PerfettoSequence& new_sequence(std::uint64_t track);
  const OperationNames& operation_names(const records::Record& record);
  void write_range_event(const records::RangeEvent& event);
  bool past_limit();
  bool reached_limit() const;
  void write_through();

  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  const RunFacts& facts_;
  OutputFiles& files_;
  logfmt::LogFile file_;
  std::string buffer_;  // packets not yet written
  std::chrono::steady_clock::time_point last_write_{};
  bool anchored_ = false;
  std::uint64_t next_uuid_ = 1;
  std::uint64_t process_uuid_ = 0;
  std::uint64_t flows_ = 0;
  std::uint64_t last_host_correlation_ = 0;
  // Sequence 1: descriptors and the events of tracks without a sequence of their own
  // (NVTX ranges and marks, counters, graph nodes).
  traces::PerfettoSequence shared_{1};
  std::deque<traces::PerfettoSequence> sequences_;
  std::unordered_map<std::uint32_t, SequenceTrack> threads_;
  std::map<std::uint64_t, std::uint64_t> devices_;  // device key -> track
  std::map<std::pair<std::uint64_t, std::uint64_t>, SequenceTrack> streams_;  // device key, stream
  std::map<std::pair<std::uint64_t, std::string_view>, std::uint64_t> counters_;  // device, series
  // The tracks of the last record: most records share them.
  std::uint32_t last_tid_ = ~0u;
  SequenceTrack* last_thread_ = nullptr;
  std::pair<std::uint64_t, std::uint64_t> last_stream_key_{~0ull, ~0ull};
  SequenceTrack* last_stream_ = nullptr;
  std::unordered_map<std::string, OperationNames, StringHash, std::equal_to<>> kernel_names_;
  const std::pair<const std::string, OperationNames>* last_kernel_ = nullptr;
  OperationNames scratch_names_;
  std::string shape_text_[2];  // grid, block as "[x,y,z]"
  // An operation's args and its call's stack: their room is kept from record to record.
  std::vector<traces::PerfettoArg> args_;
  std::vector<std::string> stack_;
  std::uint64_t bytes_written_ = 0;
  std::uint64_t left_out_ = 0;
  bool ended_ = false;
};

}  // namespace computeprof::exports
