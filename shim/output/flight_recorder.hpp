#pragma once
// `flightrecorder SECONDS` (docs/format.md, "Flight recorder"): the exports hold only the
// last SECONDS of the run. This process-wide sink stands in for the run file: on the
// writer thread (the launch path is the same as without it) it keeps the operations and
// NVTX events of the window in two rings bounded in records, and writes them through a
// run-file sink made for the occasion, whose exports are made when it ends, at exit
// (the exports' own files) and each time the trigger file appears (new numbered files).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "shim/output/record_outputs.hpp"

namespace computeprof::shim {

class FlightRecorder final : public RecordSink {
 public:
  // The window's bounds whatever its length: about 100 MiB of operations (192 bytes
  // each) and 36 MiB of NVTX events (72 bytes each); the oldest go first beyond them.
  static constexpr std::size_t kMaxOperations = std::size_t{1} << 19;
  static constexpr std::size_t kMaxRangeEvents = std::size_t{1} << 19;
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
                 ExportPaths export_paths);
  ~FlightRecorder() override;

  void begin() override {}
  void write(const ProfiledContext& context, const records::Record& record) override;
  void write_range(const records::RangeEvent& event) override;
  void flush() override {}
  // Looks for the trigger file (at most every kTriggerInterval); dumps when it is there.
  void poll() override;
  // The window at exit, to the exports' own files.
  void end() override;
  void abandon() override;

  // Writes what lies in the window that ends at `now_wall_ns` (CLOCK_REALTIME) to the
  // next numbered files; returns the number used, 0 when no files could be made.
  unsigned dump(std::uint64_t now_wall_ns);

 private:
  struct Operation {
    const ProfiledContext* context;
    records::Record record;  // its counters, if any, owned by `counters`
    std::unique_ptr<records::CounterValues> counters;
  };
  // A ring that grows up to its bound, then drops its oldest.
  template <typename T>
  struct Window {
    std::vector<T> slots;
    std::size_t head = 0;  // the oldest
    std::size_t size = 0;
    std::size_t bound = 0;
    std::uint64_t dropped = 0;  // beyond the bound, since the last dump
    T& front() { return slots[head]; }
    T& at(std::size_t i) { return slots[(head + i) % slots.size()]; }
    void pop() {
      head = (head + 1) % slots.size();
      --size;
    }
    T& push();
    void clear() {
      std::vector<T>().swap(slots);
      head = size = 0;
    }
  };

  // When an operation or event happened, for the window: its end.
  static std::uint64_t time_of(const Operation& op);
  static std::uint64_t time_of(const records::RangeEvent& event) { return event.end_wall_ns; }
  // Drops what is older than the window that ends at `now_wall_ns`.
  void forget_before(std::uint64_t now_wall_ns);
  // The window through export sinks writing with `log_template`.
  void write_window(const std::string& log_template, std::uint64_t now_wall_ns);
  // The method's characters, kept for as long as the recorder: a record's own may go
  // once it is written.
  std::string_view kept_name(std::string_view name);
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
  Window<Operation> operations_;
  Window<records::RangeEvent> ranges_;
  std::vector<records::RangeEvent> names_;
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_set<std::string, StringHash, std::equal_to<>> methods_;
  std::uint64_t newest_ns_ = 0;
  unsigned next_dump_ = 1;
  std::chrono::steady_clock::time_point last_look_{};
  bool warned_trigger_ = false;
  bool ended_ = false;
};

}  // namespace computeprof::shim
