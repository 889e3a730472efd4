#pragma once
// `computeprof merge ... -o OUT.pftrace` (docs/format.md, "Merged trace"): the merged
// trace's events written as Perfetto's own trace (traces/perfetto_packets.hpp) rather
// than as JSON: each rank a process, with its threads, and its devices' tracks and their
// streams' under it; every event at its absolute wall-clock time.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tools/json_trace_reader.hpp"
#include "traces/perfetto_packets.hpp"

namespace computeprof::tools {

class MergedPerfetto {
 public:
  // Packets go to `out`; events' times count from `earliest_ns` (wall clock).
  MergedPerfetto(std::string& out, std::int64_t earliest_ns);

  // The rank whose events come next: its process (`pid`, the host process's merged pid,
  // named `name`) and the names its trace gave its other processes and its threads, by
  // merged pid.
  struct Rank {
    std::int64_t pid = 0;
    std::string name;
    std::map<std::int64_t, std::string> process_names;
    std::map<std::pair<std::int64_t, std::int64_t>, std::string> thread_names;
  };
  void begin_rank(Rank rank);

  // One of the rank's events, its pid and id merged; `ts_ns` and `dur_ns` its time and
  // duration in nanoseconds on the merged axis. Complete events are slices, async pairs
  // slices on a track of their own, instants instants, counters a counter track per
  // series; a flow's start and end instants carrying its id. Metadata are the tracks'
  // names, written with the tracks.
  void event(const JsonValue& event, std::optional<std::int64_t> ts_ns, std::optional<std::int64_t> dur_ns);

 private:
  std::uint64_t process_track(std::int64_t pid);
  std::uint64_t thread_track(std::int64_t pid, std::int64_t tid);
  void make_args(const JsonValue* args);

  std::string& out_;
  std::int64_t earliest_ns_;
  traces::PerfettoSequence sequence_{1};
  std::uint64_t next_uuid_ = 1;
  Rank rank_;
  std::uint64_t rank_uuid_ = 0;
  std::map<std::int64_t, std::uint64_t> processes_;  // a rank's other processes
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint64_t> threads_;
  std::map<std::tuple<std::int64_t, std::string, std::string>, std::uint64_t> async_tracks_;  // pid, cat, id
  std::map<std::tuple<std::int64_t, std::string, std::string>, std::uint64_t> counter_tracks_;  // pid, name, series
  std::vector<traces::PerfettoArg> args_;
  std::vector<std::string> texts_;  // the args' texts
};

}  // namespace computeprof::tools
