#pragma once
// A reader of the Perfetto traces `export pftrace` writes (docs/format.md, "Perfetto
// trace"), independent of the writer: the wire format decoded field by field, times
// resolved through each sequence's clocks as Perfetto's importer resolves them, every
// interned id looked up, and the slices of each track replayed in time order to see
// that they nest. What it finds wrong is in `problems`, one line each.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pftrace_check {

struct PftraceSummary {
  std::uint64_t packets = 0;
  std::uint64_t bytes = 0;
  // Tracks by kind: "process", "thread", "counter", "named".
  std::map<std::string, long> tracks;
  std::map<std::string, long> slices_by_category;  // complete slices (a begin and its end)
  std::map<std::string, long> slices_by_name;
  std::map<std::string, long> instants_by_name;
  long counters = 0;  // counter values
  long flows = 0;     // ids that begin once and end once
  // The names of the tracks that hold slices or instants, by kind of track.
  std::map<std::string, long> thread_names;  // thread tracks' names (empty: unnamed)
  std::map<std::string, long> process_names;
  // The debug annotations' names seen, with how many events had each.
  std::map<std::string, long> arg_names;
  std::vector<std::string> problems;
};

PftraceSummary check_pftrace(const std::string& path);

}  // namespace pftrace_check
