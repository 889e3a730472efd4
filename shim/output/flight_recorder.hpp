#pragma once
// `flightrecorder SECONDS` (docs/format.md, "Flight recorder"): the exports hold only the
// last SECONDS of the run. This process-wide sink stands in for the run file: on the
// writer thread (the launch path is the same as without it) it keeps the operations,
// NVTX events and API calls of the window as run-file records, in chunks bounded in bytes whose oldest
// go first, with what they name (strings, contexts, NVTX names) kept apart. A dump reads
// the window back and writes what lies in it through a run-file sink made for the
// occasion, whose exports are made when it ends: at exit (the exports' own files) and
// each time the trigger file appears (new numbered files).
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "runfile/run_encoder.hpp"
#include "shim/output/record_outputs.hpp"

namespace computeprof::shim {

class FlightRecorder final : public RecordSink {
 public:
  // The window's bound whatever its length, in MiB of run-file records (a near-empty
  // launch takes about 12 bytes); beyond it the oldest chunk goes first.
  static constexpr std::size_t kMaxWindowMiB = 64;
  // The window's chunks: the unit it drops.
  static constexpr std::size_t kChunkBytes = std::size_t{64} << 10;
  // Names (of threads, categories, domains) are kept whatever their age, up to this many.
  static constexpr std::size_t kMaxNames = std::size_t{1} << 16;
  // The writer looks for the trigger file at most this often.
  static constexpr std::chrono::milliseconds kTriggerInterval{100};

  // The sinks of a dump (its run file), writing to the exports' files with `log_template` in
  // place of the log's (the exports' own at exit, a numbered one for a dump).
  using ExportSinks = std::function<SinkList(const std::string& log_template)>;
  // The files those sinks write for `log_template`.
  using ExportPaths = std::function<std::vector<std::string>(const std::string& log_template)>;

  // `window_ns`: SECONDS; `trigger_path`: the file that asks for a dump, expanded; empty
  // for none.
  FlightRecorder(std::uint64_t window_ns, std::string log_template, std::string trigger_path, ExportSinks make_exports,
                 ExportPaths export_paths, std::size_t max_window_mib = kMaxWindowMiB);
  ~FlightRecorder() override;

  void begin() override {}
  void write(const ProfiledContext& context, const records::Record& record) override;
  void write_range(const records::RangeEvent& event) override;
  void write_api_call(const records::ApiCall& call) override;
  void flush() override {}
  // Looks for the trigger file (at most every kTriggerInterval). Once it is there, asks
  // for every record submitted before it (they may still be in the rings), and dumps at
  // the next beat, which follows that drain.
  PollNeed poll() override;
  // The window at exit, to the exports' own files.
  void end() override;
  void abandon() override;

  // Writes what lies in the window that ends at `now_wall_ns` (CLOCK_REALTIME) to the
  // next numbered files; returns the number used, 0 when no files could be made.
  unsigned dump(std::uint64_t now_wall_ns);

  // The window's chunks' bytes, the one being gathered included.
  std::size_t window_bytes() const { return window_bytes_ + encoder_.pending_bytes(); }

 private:
  // Records of the window, as one run-file chunk.
  struct Chunk {
    std::string bytes;
    std::uint64_t newest_ns = 0;  // the latest time of its records
    std::uint64_t operations = 0;
    std::uint64_t range_events = 0;
    std::uint64_t api_calls = 0;
  };

  // When an operation or event happened, for the window: its end.
  static std::uint64_t time_of(const records::ContextInfo& context, const records::Record& record);
  static std::uint64_t time_of(const records::RangeEvent& event) { return event.end_wall_ns; }
  // The moment the window that ends at `now_wall_ns` begins.
  std::uint64_t window_start(std::uint64_t now_wall_ns) const;
  // A record of `time` was encoded, counted in `count` of the chunk being gathered,
  // which is closed once large enough.
  void encoded(std::uint64_t time, std::uint64_t Chunk::*count);
  // The records encoded since the last chunk become the window's newest chunk.
  void close_chunk();
  // Drops the chunks whose records all ended before the window that ends at
  // `now_wall_ns`, then the oldest while the window is past its bound.
  void forget_before(std::uint64_t now_wall_ns);
  // The window through export sinks writing with `log_template`.
  void write_window(const std::string& log_template, std::uint64_t now_wall_ns);
  // Makes each of the files of dump `number` (its log template in `log_template`):
  // taken when one exists already (none is left made then).
  enum class DumpFiles : unsigned char { made, taken, failed };
  DumpFiles make_dump_files(unsigned number, std::string& log_template);
  bool trigger_present();

  std::uint64_t window_ns_;
  std::string log_template_;
  std::string trigger_path_;
  ExportSinks make_exports_;
  ExportPaths export_paths_;
  std::size_t max_window_mib_;
  runfile::RunEncoder encoder_;
  std::string dictionary_;  // the chunks of what the window's records name, all kept
  std::deque<Chunk> window_;
  Chunk open_;  // what the encoder gathers for the next chunk (its bytes stay there)
  std::size_t window_bytes_ = 0;  // of window_
  std::uint64_t dropped_operations_ = 0;  // past the bound, since the last dump
  std::uint64_t dropped_range_events_ = 0;
  std::uint64_t dropped_api_calls_ = 0;
  std::vector<const ProfiledContext*> contexts_;  // by number
  std::vector<records::RangeEvent> names_;
  std::uint64_t newest_ns_ = 0;
  unsigned next_dump_ = 1;
  std::chrono::steady_clock::time_point last_look_{};
  bool warned_trigger_ = false;
  bool trigger_seen_ = false;  // the trigger is there: dump at the next beat
  bool ended_ = false;
};

}  // namespace computeprof::shim
