#pragma once
// Perfetto's native trace (docs/format.md, "Perfetto trace"): `TracePacket`s of track
// descriptors and track events, appended to a caller's buffer in the protobuf wire
// format (proto_wire.hpp). Knows nothing of records or files. Field numbers are those
// of Perfetto's published perfetto_trace.proto.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace computeprof::traces {

namespace proto {
class FieldWriter;
}

// One debug annotation of an event. Texts marked `interned` are written once per
// sequence (InternedData.debug_annotation_string_values): those that repeat across
// events (a method, a launch shape, an NVTX path).
struct PerfettoArg {
  enum class Kind : std::uint8_t { uint, signed_int, real, text, interned_text, texts };
  std::string_view name;
  Kind kind = Kind::uint;
  std::uint64_t uint_value = 0;
  std::int64_t int_value = 0;
  double real_value = 0;
  std::string_view text;
  std::span<const std::string> texts;  // an array of texts (a call stack)

  static PerfettoArg of(std::string_view name, std::uint64_t value) {
    PerfettoArg a;
    a.name = name;
    a.uint_value = value;
    return a;
  }
  static PerfettoArg of_signed(std::string_view name, std::int64_t value) {
    PerfettoArg a;
    a.name = name;
    a.kind = Kind::signed_int;
    a.int_value = value;
    return a;
  }
  static PerfettoArg of_real(std::string_view name, double value) {
    PerfettoArg a;
    a.name = name;
    a.kind = Kind::real;
    a.real_value = value;
    return a;
  }
  static PerfettoArg of_text(std::string_view name, std::string_view text, bool interned = false) {
    PerfettoArg a;
    a.name = name;
    a.kind = interned ? Kind::interned_text : Kind::text;
    a.text = text;
    return a;
  }
  static PerfettoArg of_interned(std::string_view name, std::string_view text) { return of_text(name, text, true); }
  static PerfettoArg of_texts(std::string_view name, std::span<const std::string> texts) {
    PerfettoArg a;
    a.name = name;
    a.kind = Kind::texts;
    a.texts = texts;
    return a;
  }
};

// TrackEvent.Type.
enum class PerfettoEventType : std::uint8_t { slice_begin = 1, slice_end = 2, instant = 3, counter = 4 };

struct PerfettoEvent {
  PerfettoEventType type = PerfettoEventType::slice_begin;
  std::uint64_t wall_ns = 0;  // CLOCK_REALTIME
  std::uint64_t track = 0;    // 0: the sequence's own track
  std::string_view name;      // slice begins and instants
  std::string_view category;  // empty: none
  std::uint64_t flow_id = 0;  // 0: none; a flow begins here
  std::uint64_t terminating_flow_id = 0;  // 0: none; a flow ends here
  std::int64_t counter_value = 0;         // counters
  std::span<const PerfettoArg> args;

  static PerfettoEvent at(PerfettoEventType type, std::uint64_t wall_ns, std::uint64_t track = 0) {
    PerfettoEvent e;
    e.type = type;
    e.wall_ns = wall_ns;
    e.track = track;
    return e;
  }
};

// A packet sequence (trusted_packet_sequence_id) and what it has interned. Its first
// packet clears its incremental state (SEQ_INCREMENTAL_STATE_CLEARED) and sets its
// defaults; names, categories, annotation names and interned texts are written in the
// packet that first uses them. A sequence of one track omits the track from its events
// and writes their times as deltas on an incremental clock of its own (clock 64): the
// difference from its previous event's time; an event earlier than that one is
// written at its absolute time on CLOCK_REALTIME.
class PerfettoSequence {
 public:
  // Events of any track, at absolute times (CLOCK_REALTIME).
  explicit PerfettoSequence(std::uint32_t id);
  // Events of `track` only.
  PerfettoSequence(std::uint32_t id, std::uint64_t track);

  void append(std::string& out, const PerfettoEvent& event);
  std::uint32_t id() const { return id_; }

 private:
  enum Interned : std::uint8_t { kName, kCategory, kArgName, kArgText, kInternedKinds };
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct Table {
    std::unordered_map<std::string, std::uint64_t, StringHash, std::equal_to<>> ids;
    // Texts looked up lately (keys of `ids`) and their ids: an event's few names,
    // compared before any is hashed.
    struct Recent {
      std::string_view text;
      std::uint64_t id = 0;  // 0: none yet
    };
    std::array<Recent, 64> recent;
  };
  // An argument's interned name, and its interned text (0: none).
  struct ArgIds {
    std::uint64_t name = 0;
    std::uint64_t text = 0;
  };
  struct NewString {
    Interned kind;
    std::uint64_t id;
    std::string_view text;
  };
  void start(std::string& out, std::uint64_t first_wall_ns);
  std::uint64_t intern(Interned kind, std::string_view text);
  void put_args(proto::FieldWriter& w, std::span<const PerfettoArg> args);

  std::uint32_t id_;
  std::uint64_t track_ = 0;  // 0: events name their tracks, at absolute times
  bool started_ = false;
  std::uint64_t last_wall_ns_ = 0;  // the incremental clock's value
  Table tables_[kInternedKinds];
  // The strings the packet being written interns, and its arguments' ids: their room
  // is kept from packet to packet.
  std::vector<NewString> new_strings_;
  std::vector<ArgIds> arg_ids_;
};

// The trace's first packet, on `sequence`: the wall clock and the monotonic clock at one
// instant (ClockSnapshot; `monotonic_ns` 0: unknown, left out), CLOCK_REALTIME the
// trace's clock.
void append_clock_anchor(std::string& out, std::uint32_t sequence, std::uint64_t wall_ns, std::uint64_t monotonic_ns);

// TrackDescriptor packets. `parent` 0: a top-level track.
void append_process_track(std::string& out, std::uint64_t uuid, std::uint64_t pid, std::string_view name);
void append_thread_track(std::string& out, std::uint64_t uuid, std::uint64_t parent, std::uint64_t pid,
                         std::uint64_t tid, std::string_view name);
void append_named_track(std::string& out, std::uint64_t uuid, std::uint64_t parent, std::string_view name,
                        std::string_view description = {});
// A counter track; its values are bytes where `in_bytes`.
void append_counter_track(std::string& out, std::uint64_t uuid, std::uint64_t parent, std::string_view name,
                          bool in_bytes);

}  // namespace computeprof::traces
