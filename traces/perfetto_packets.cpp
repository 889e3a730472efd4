#include "traces/perfetto_packets.hpp"

#include <cstring>

#include "traces/proto_wire.hpp"

namespace computeprof::traces {
namespace {

using proto::NestedMessage;
using proto::put_bytes;
using proto::put_double;
using proto::put_int;
using proto::put_uint;

// perfetto_trace.proto's field numbers, by message.
namespace trace {
constexpr std::uint32_t kPacket = 1;
}
namespace packet {
constexpr std::uint32_t kClockSnapshot = 6;
constexpr std::uint32_t kTimestamp = 8;
constexpr std::uint32_t kTrustedPacketSequenceId = 10;
constexpr std::uint32_t kTrackEvent = 11;
constexpr std::uint32_t kInternedData = 12;
constexpr std::uint32_t kSequenceFlags = 13;
constexpr std::uint32_t kTimestampClockId = 58;
constexpr std::uint32_t kTracePacketDefaults = 59;
constexpr std::uint32_t kTrackDescriptor = 60;
constexpr std::uint64_t kSeqIncrementalStateCleared = 1;
}  // namespace packet
namespace defaults {
constexpr std::uint32_t kTrackEventDefaults = 11;
constexpr std::uint32_t kTimestampClockId = 58;
constexpr std::uint32_t kTrackUuid = 11;  // TrackEventDefaults
}  // namespace defaults
namespace clock {
constexpr std::uint32_t kClocks = 1;
constexpr std::uint32_t kPrimaryTraceClock = 2;
constexpr std::uint32_t kClockId = 1;
constexpr std::uint32_t kTimestamp = 2;
constexpr std::uint32_t kIsIncremental = 3;
constexpr std::uint64_t kRealtime = 1;   // BUILTIN_CLOCK_REALTIME
constexpr std::uint64_t kMonotonic = 3;  // BUILTIN_CLOCK_MONOTONIC
// The first of the clock ids a sequence defines for itself (64 to 127).
constexpr std::uint64_t kSequenceDelta = 64;
}  // namespace clock
namespace interned {
constexpr std::uint32_t kEventCategories = 1;
constexpr std::uint32_t kEventNames = 2;
constexpr std::uint32_t kDebugAnnotationNames = 3;
constexpr std::uint32_t kDebugAnnotationStringValues = 29;
constexpr std::uint32_t kIid = 1;
constexpr std::uint32_t kName = 2;  // EventName, EventCategory, DebugAnnotationName; InternedString.str
}  // namespace interned
namespace event {
constexpr std::uint32_t kCategoryIids = 3;
constexpr std::uint32_t kDebugAnnotations = 4;
constexpr std::uint32_t kType = 9;
constexpr std::uint32_t kNameIid = 10;
constexpr std::uint32_t kTrackUuid = 11;
constexpr std::uint32_t kCounterValue = 30;
// The varint forms of flow_ids (47) and terminating_flow_ids (48), which are fixed64:
// a flow id of three bytes rather than eight, at two flows a launch. Perfetto's
// importer reads both forms.
constexpr std::uint32_t kFlowIdsVarint = 36;
constexpr std::uint32_t kTerminatingFlowIdsVarint = 42;
}  // namespace event
namespace annotation {
constexpr std::uint32_t kNameIid = 1;
constexpr std::uint32_t kUintValue = 3;
constexpr std::uint32_t kIntValue = 4;
constexpr std::uint32_t kDoubleValue = 5;
constexpr std::uint32_t kStringValue = 6;
constexpr std::uint32_t kArrayValues = 12;
constexpr std::uint32_t kStringValueIid = 17;
}  // namespace annotation
namespace track {
constexpr std::uint32_t kUuid = 1;
constexpr std::uint32_t kName = 2;
constexpr std::uint32_t kProcess = 3;
constexpr std::uint32_t kThread = 4;
constexpr std::uint32_t kParentUuid = 5;
constexpr std::uint32_t kCounter = 8;
constexpr std::uint32_t kDescription = 14;
constexpr std::uint32_t kPid = 1;          // ProcessDescriptor, ThreadDescriptor
constexpr std::uint32_t kProcessName = 6;  // ProcessDescriptor
constexpr std::uint32_t kTid = 2;          // ThreadDescriptor
constexpr std::uint32_t kThreadName = 5;   // ThreadDescriptor
constexpr std::uint32_t kCounterUnit = 3;  // CounterDescriptor
constexpr std::uint64_t kUnitSizeBytes = 3;
}  // namespace track

// Descriptors belong to no sequence's state; they go on the first sequence.
constexpr std::uint32_t kDescriptorSequence = 1;

}  // namespace

PerfettoSequence::PerfettoSequence(std::uint32_t id) : id_(id) {}

PerfettoSequence::PerfettoSequence(std::uint32_t id, std::uint64_t track) : id_(id), track_(track) {}

void PerfettoSequence::start(std::string& out, std::uint64_t first_wall_ns) {
  started_ = true;
  NestedMessage p(out, trace::kPacket);
  put_uint(out, packet::kTrustedPacketSequenceId, id_);
  put_uint(out, packet::kSequenceFlags, packet::kSeqIncrementalStateCleared);
  {
    NestedMessage d(out, packet::kTracePacketDefaults);
    put_uint(out, defaults::kTimestampClockId, track_ != 0 ? clock::kSequenceDelta : clock::kRealtime);
    if (track_ != 0) {
      NestedMessage e(out, defaults::kTrackEventDefaults);
      put_uint(out, defaults::kTrackUuid, track_);
    }
  }
  if (track_ == 0) return;
  // The delta clock starts at the first event's time: CLOCK_REALTIME's value then.
  last_wall_ns_ = first_wall_ns;
  NestedMessage s(out, packet::kClockSnapshot);
  {
    NestedMessage c(out, clock::kClocks);
    put_uint(out, clock::kClockId, clock::kSequenceDelta);
    put_uint(out, clock::kTimestamp, first_wall_ns);
    put_uint(out, clock::kIsIncremental, 1);
  }
  NestedMessage c(out, clock::kClocks);
  put_uint(out, clock::kClockId, clock::kRealtime);
  put_uint(out, clock::kTimestamp, first_wall_ns);
}

std::uint64_t PerfettoSequence::intern(Interned kind, std::string_view text) {
  Table& table = tables_[kind];
  // A slot of the recent texts by length and last character: an event's names mostly
  // land on slots of their own, found again with one comparison.
  const std::size_t slot = (text.size() * 7 + (text.empty() ? 0 : static_cast<unsigned char>(text.back()))) %
                           table.recent.size();
  Table::Recent& recent = table.recent[slot];
  if (recent.id != 0 && recent.text == text) return recent.id;
  auto it = table.ids.find(text);
  if (it == table.ids.end()) {
    it = table.ids.emplace(std::string(text), table.ids.size() + 1).first;
    new_strings_.push_back({kind, it->second, it->first});
  }
  recent = {it->first, it->second};
  return it->second;
}

// The most an event's packet takes beside its texts: its head, the event's fields, and
// for each argument and interned string its own fields (varints of ten bytes at most).
constexpr std::size_t kPacketBound = 160;
constexpr std::size_t kFieldsBound = 48;

void PerfettoSequence::put_args(proto::FieldWriter& w, std::span<const PerfettoArg> args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const PerfettoArg& a = args[i];
    char* annotation = w.begin(event::kDebugAnnotations);
    w.uint(annotation::kNameIid, arg_ids_[i].name);
    switch (a.kind) {
      case PerfettoArg::Kind::uint: w.uint(annotation::kUintValue, a.uint_value); break;
      case PerfettoArg::Kind::signed_int: w.signed_int(annotation::kIntValue, a.int_value); break;
      case PerfettoArg::Kind::real: w.real(annotation::kDoubleValue, a.real_value); break;
      case PerfettoArg::Kind::text: w.bytes(annotation::kStringValue, a.text); break;
      case PerfettoArg::Kind::interned_text: w.uint(annotation::kStringValueIid, arg_ids_[i].text); break;
      case PerfettoArg::Kind::texts:
        for (const std::string& t : a.texts) {
          char* value = w.begin(annotation::kArrayValues);
          w.bytes(annotation::kStringValue, t);
          w.end(value);
        }
        break;
    }
    w.end(annotation);
  }
}

void PerfettoSequence::append(std::string& out, const PerfettoEvent& e) {
  if (!started_) start(out, e.wall_ns);
  // The strings the event uses, interned first: those new to the sequence go into its
  // packet's interned data, ahead of the event.
  new_strings_.clear();
  const std::uint64_t category = e.category.empty() ? 0 : intern(kCategory, e.category);
  const std::uint64_t name = e.name.empty() ? 0 : intern(kName, e.name);
  arg_ids_.clear();
  std::size_t bound = kPacketBound;
  for (const PerfettoArg& a : e.args) {
    const std::uint64_t arg_name = intern(kArgName, a.name);
    arg_ids_.push_back({arg_name, a.kind == PerfettoArg::Kind::interned_text ? intern(kArgText, a.text) : 0});
    bound += kFieldsBound + a.text.size();
    for (const std::string& t : a.texts) bound += kFieldsBound + t.size();
  }
  for (const NewString& n : new_strings_) bound += kFieldsBound + n.text.size();

  const std::size_t at = out.size();
  out.resize(at + bound);
  proto::FieldWriter w(out.data() + at);
  char* packet = w.begin(trace::kPacket);
  if (track_ != 0 && e.wall_ns >= last_wall_ns_) {
    w.uint(packet::kTimestamp, e.wall_ns - last_wall_ns_);
    last_wall_ns_ = e.wall_ns;
  } else {
    if (track_ != 0) w.uint(packet::kTimestampClockId, clock::kRealtime);
    w.uint(packet::kTimestamp, e.wall_ns);
  }
  w.uint(packet::kTrustedPacketSequenceId, id_);
  if (!new_strings_.empty()) {
    char* interned_data = w.begin(packet::kInternedData);
    static constexpr std::uint32_t kField[kInternedKinds] = {interned::kEventNames, interned::kEventCategories,
                                                             interned::kDebugAnnotationNames,
                                                             interned::kDebugAnnotationStringValues};
    for (const NewString& n : new_strings_) {
      char* entry = w.begin(kField[n.kind]);
      w.uint(interned::kIid, n.id);
      w.bytes(interned::kName, n.text);
      w.end(entry);
    }
    w.end(interned_data);
  }
  char* event = w.begin(packet::kTrackEvent);
  w.uint(event::kType, static_cast<std::uint64_t>(e.type));
  if (e.track != 0 && e.track != track_) w.uint(event::kTrackUuid, e.track);
  if (category != 0) w.uint(event::kCategoryIids, category);
  if (name != 0) w.uint(event::kNameIid, name);
  if (e.flow_id != 0) w.uint(event::kFlowIdsVarint, e.flow_id);
  if (e.terminating_flow_id != 0) w.uint(event::kTerminatingFlowIdsVarint, e.terminating_flow_id);
  if (e.type == PerfettoEventType::counter) w.signed_int(event::kCounterValue, e.counter_value);
  put_args(w, e.args);
  w.end(event);
  w.end(packet);
  out.resize(static_cast<std::size_t>(w.end() - out.data()));
}

void append_clock_anchor(std::string& out, std::uint32_t sequence, std::uint64_t wall_ns, std::uint64_t monotonic_ns) {
  NestedMessage p(out, trace::kPacket);
  put_uint(out, packet::kTrustedPacketSequenceId, sequence);
  NestedMessage s(out, packet::kClockSnapshot);
  {
    NestedMessage c(out, clock::kClocks);
    put_uint(out, clock::kClockId, clock::kRealtime);
    put_uint(out, clock::kTimestamp, wall_ns);
  }
  if (monotonic_ns != 0) {
    NestedMessage c(out, clock::kClocks);
    put_uint(out, clock::kClockId, clock::kMonotonic);
    put_uint(out, clock::kTimestamp, monotonic_ns);
  }
  put_uint(out, clock::kPrimaryTraceClock, clock::kRealtime);
}

namespace {

void put_track_head(std::string& out) { put_uint(out, packet::kTrustedPacketSequenceId, kDescriptorSequence); }

}  // namespace

void append_process_track(std::string& out, std::uint64_t uuid, std::uint64_t pid, std::string_view name) {
  NestedMessage p(out, trace::kPacket);
  put_track_head(out);
  NestedMessage t(out, packet::kTrackDescriptor);
  put_uint(out, track::kUuid, uuid);
  NestedMessage d(out, track::kProcess);
  put_uint(out, track::kPid, pid);
  put_bytes(out, track::kProcessName, name);
}

void append_thread_track(std::string& out, std::uint64_t uuid, std::uint64_t parent, std::uint64_t pid,
                         std::uint64_t tid, std::string_view name) {
  NestedMessage p(out, trace::kPacket);
  put_track_head(out);
  NestedMessage t(out, packet::kTrackDescriptor);
  put_uint(out, track::kUuid, uuid);
  if (parent != 0) put_uint(out, track::kParentUuid, parent);
  NestedMessage d(out, track::kThread);
  put_uint(out, track::kPid, pid);
  put_uint(out, track::kTid, tid);
  if (!name.empty()) put_bytes(out, track::kThreadName, name);
}

void append_named_track(std::string& out, std::uint64_t uuid, std::uint64_t parent, std::string_view name,
                        std::string_view description) {
  NestedMessage p(out, trace::kPacket);
  put_track_head(out);
  NestedMessage t(out, packet::kTrackDescriptor);
  put_uint(out, track::kUuid, uuid);
  if (parent != 0) put_uint(out, track::kParentUuid, parent);
  put_bytes(out, track::kName, name);
  if (!description.empty()) put_bytes(out, track::kDescription, description);
}

void append_counter_track(std::string& out, std::uint64_t uuid, std::uint64_t parent, std::string_view name,
                          bool in_bytes) {
  NestedMessage p(out, trace::kPacket);
  put_track_head(out);
  NestedMessage t(out, packet::kTrackDescriptor);
  put_uint(out, track::kUuid, uuid);
  if (parent != 0) put_uint(out, track::kParentUuid, parent);
  put_bytes(out, track::kName, name);
  NestedMessage c(out, track::kCounter);
  if (in_bytes) put_uint(out, track::kCounterUnit, track::kUnitSizeBytes);
}

}  // namespace computeprof::traces
