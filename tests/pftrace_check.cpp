#include "pftrace_check.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

// Named, not anonymous: the tests are compiled several files to a unit.
namespace pftrace_reading {

using pftrace_check::PftraceSummary;

// One field of a message: its number, and its value (a varint or fixed64 as a number,
// a length-delimited field as bytes).
struct Field {
  std::uint32_t number = 0;
  std::uint32_t wire = 0;
  std::uint64_t value = 0;
  std::string_view bytes;
};

class Fields {
 public:
  explicit Fields(std::string_view message) : rest_(message) {}
  // The next field, or nothing at the end; a malformed message sets `bad`.
  std::optional<Field> next() {
    if (rest_.empty() || bad) return std::nullopt;
    Field f;
    const auto key = varint();
    if (!key) return fail();
    f.number = static_cast<std::uint32_t>(*key >> 3);
    f.wire = static_cast<std::uint32_t>(*key & 7);
    switch (f.wire) {
      case 0: {
        const auto v = varint();
        if (!v) return fail();
        f.value = *v;
        return f;
      }
      case 1:
        if (rest_.size() < 8) return fail();
        std::memcpy(&f.value, rest_.data(), 8);
        rest_.remove_prefix(8);
        return f;
      case 2: {
        const auto n = varint();
        if (!n || *n > rest_.size()) return fail();
        f.bytes = rest_.substr(0, *n);
        rest_.remove_prefix(*n);
        return f;
      }
      default: return fail();
    }
  }
  bool bad = false;

 private:
  std::optional<Field> fail() {
    bad = true;
    return std::nullopt;
  }
  std::optional<std::uint64_t> varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64 && !rest_.empty(); shift += 7) {
      const auto byte = static_cast<unsigned char>(rest_.front());
      rest_.remove_prefix(1);
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return v;
    }
    return std::nullopt;
  }
  std::string_view rest_;
};

constexpr std::uint64_t kRealtime = 1;

struct Sequence {
  bool cleared = false;
  std::uint64_t default_clock = 0;  // 0: none set
  std::uint64_t default_track = 0;
  std::map<std::uint64_t, std::uint64_t> incremental;  // clock id -> its last value
  // iid -> the text's number in the checker's table of texts.
  std::unordered_map<std::uint64_t, std::uint32_t> names, categories, arg_names, arg_texts;
};

struct TrackInfo {
  std::string kind;
  std::string name;
  std::uint64_t parent = 0;
};

// A slice begin or end of a track, in file order.
struct Mark {
  std::uint64_t ts = 0;
  std::uint32_t category = 0;  // texts' numbers
  std::uint32_t name = 0;
  bool begin = false;
};

class Checker {
 public:
  explicit Checker(PftraceSummary& s) : s_(s) {}

  void trace(std::string_view bytes) {
    s_.bytes = bytes.size();
    Fields fields(bytes);
    while (auto f = fields.next()) {
      if (f->number != 1 || f->wire != 2) {
        problem("a Trace field other than packet: " + std::to_string(f->number));
        continue;
      }
      ++s_.packets;
      packet(f->bytes);
    }
    if (fields.bad) problem("the trace's bytes end inside a packet");
    finish();
  }

 private:
  void problem(std::string what) {
    if (s_.problems.size() < 20) s_.problems.push_back("packet " + std::to_string(s_.packets) + ": " + std::move(what));
  }

  // The number of `text` in the table of texts (0 is the empty text).
  std::uint32_t text_number(std::string_view text) {
    const auto [it, added] = numbers_.try_emplace(std::string(text), static_cast<std::uint32_t>(texts_.size()));
    if (added) texts_.push_back(it->first);
    return it->second;
  }

  std::uint32_t resolve(const std::unordered_map<std::uint64_t, std::uint32_t>& table, std::uint64_t iid,
                        const char* what) {
    const auto it = table.find(iid);
    if (it == table.end()) {
      problem(std::string("unresolved ") + what + " iid " + std::to_string(iid));
      return 0;
    }
    return it->second;
  }

  void packet(std::string_view bytes) {
    std::optional<std::uint64_t> timestamp, clock;
    std::uint64_t sequence_id = 0, flags = 0;
    std::string_view event, interned, defaults, descriptor, snapshot;
    Fields fields(bytes);
    while (auto f = fields.next()) {
      switch (f->number) {
        case 8: timestamp = f->value; break;
        case 58: clock = f->value; break;
        case 10: sequence_id = f->value; break;
        case 13: flags = f->value; break;
        case 11: event = f->bytes; break;
        case 12: interned = f->bytes; break;
        case 59: defaults = f->bytes; break;
        case 60: descriptor = f->bytes; break;
        case 6: snapshot = f->bytes; break;
        default: problem("a TracePacket field not in the format: " + std::to_string(f->number));
      }
    }
    if (fields.bad) problem("a malformed packet");
    if (sequence_id == 0) problem("a packet without trusted_packet_sequence_id");
    Sequence& seq = sequences_[sequence_id];
    if (flags & 1) {
      seq = Sequence();
      seq.cleared = true;
    }
    if (!defaults.empty()) read_defaults(seq, defaults);
    if (!snapshot.empty()) read_snapshot(seq, snapshot);
    if (!interned.empty()) read_interned(seq, interned);
    if (!descriptor.empty()) read_descriptor(descriptor);
    if (event.empty()) return;
    if (!seq.cleared) problem("an event on a sequence whose state was never cleared");
    if (!timestamp) {
      problem("an event without a timestamp");
      return;
    }
    const std::uint64_t clock_id = clock.value_or(seq.default_clock);
    std::uint64_t ts = *timestamp;
    if (const auto inc = seq.incremental.find(clock_id); inc != seq.incremental.end()) {
      inc->second += *timestamp;
      ts = inc->second;
    } else if (clock_id != kRealtime) {
      problem("an event on clock " + std::to_string(clock_id) + ", neither realtime nor the sequence's own");
    }
    track_event(seq, ts, event);
  }

  void read_defaults(Sequence& seq, std::string_view bytes) {
    Fields fields(bytes);
    while (auto f = fields.next()) {
      if (f->number == 58) seq.default_clock = f->value;
      if (f->number == 11) {
        Fields d(f->bytes);
        while (auto g = d.next()) {
          if (g->number == 11) seq.default_track = g->value;
        }
      }
    }
  }

  void read_snapshot(Sequence& seq, std::string_view bytes) {
    Fields fields(bytes);
    while (auto f = fields.next()) {
      if (f->number == 2) primary_clock_ = f->value;
      if (f->number != 1) continue;
      std::uint64_t id = 0, value = 0;
      bool incremental = false;
      Fields c(f->bytes);
      while (auto g = c.next()) {
        if (g->number == 1) id = g->value;
        if (g->number == 2) value = g->value;
        if (g->number == 3) incremental = g->value != 0;
      }
      if (incremental) seq.incremental[id] = value;
    }
  }

  void read_interned(Sequence& seq, std::string_view bytes) {
    Fields fields(bytes);
    while (auto f = fields.next()) {
      std::unordered_map<std::uint64_t, std::uint32_t>* table = nullptr;
      switch (f->number) {
        case 1: table = &seq.categories; break;
        case 2: table = &seq.names; break;
        case 3: table = &seq.arg_names; break;
        case 29: table = &seq.arg_texts; break;
        default: problem("an InternedData field not in the format: " + std::to_string(f->number)); continue;
      }
      std::uint64_t iid = 0;
      std::string_view text;
      Fields e(f->bytes);
      while (auto g = e.next()) {
        if (g->number == 1) iid = g->value;
        if (g->number == 2) text = g->bytes;
      }
      if (iid == 0) problem("an interned string without its iid");
      if (!table->emplace(iid, text_number(text)).second) problem("iid " + std::to_string(iid) + " interned twice");
    }
  }

  void read_descriptor(std::string_view bytes) {
    std::uint64_t uuid = 0;
    TrackInfo info;
    info.kind = "named";
    Fields fields(bytes);
    while (auto f = fields.next()) {
      switch (f->number) {
        case 1: uuid = f->value; break;
        case 2: info.name = std::string(f->bytes); break;
        case 5: info.parent = f->value; break;
        case 3: {
          info.kind = "process";
          Fields p(f->bytes);
          while (auto g = p.next()) {
            if (g->number == 6) info.name = std::string(g->bytes);
          }
          break;
        }
        case 4: {
          info.kind = "thread";
          Fields t(f->bytes);
          while (auto g = t.next()) {
            if (g->number == 5) info.name = std::string(g->bytes);
          }
          break;
        }
        case 8: info.kind = "counter"; break;
        default: break;
      }
    }
    if (uuid == 0) problem("a track without its uuid");
    if (info.parent != 0 && !tracks_.contains(info.parent)) problem("a track whose parent was not described before it");
    // A thread described again (named by NVTX) is the same track.
    const auto [it, added] = tracks_.insert_or_assign(uuid, info);
    if (added) ++s_.tracks[info.kind];
  }

  void track_event(Sequence& seq, std::uint64_t ts, std::string_view bytes) {
    std::uint64_t type = 0, track = seq.default_track;
    std::uint32_t name = 0, category = 0;
    std::vector<std::uint64_t> starts, ends;
    bool has_counter = false;
    Fields fields(bytes);
    while (auto f = fields.next()) {
      switch (f->number) {
        case 9: type = f->value; break;
        case 11: track = f->value; break;
        case 10: name = resolve(seq.names, f->value, "event name"); break;
        case 3: category = resolve(seq.categories, f->value, "category"); break;
        case 36: starts.push_back(f->value); break;
        case 42: ends.push_back(f->value); break;
        case 30: has_counter = true; break;
        case 4: annotation(seq, f->bytes); break;
        default: problem("a TrackEvent field not in the format: " + std::to_string(f->number));
      }
    }
    const auto described = tracks_.find(track);
    if (described == tracks_.end()) {
      problem("an event on track " + std::to_string(track) + ", never described");
      return;
    }
    for (std::uint64_t id : starts) ++flow_starts_[id];
    for (std::uint64_t id : ends) ++flow_ends_[id];
    switch (type) {
      case 1:
      case 2:
        if (type == 1 && name == 0) problem("a slice without a name");
        if (type == 2 && name != 0) problem("a slice end with a name");
        marks_[track].push_back({ts, category, name, type == 1});
        break;
      case 3:
        ++s_.instants_by_name[texts_[name]];
        break;
      case 4:
        if (!has_counter || described->second.kind != "counter") problem("a counter value without a value or a counter track");
        ++s_.counters;
        break;
      default: problem("an event of type " + std::to_string(type));
    }
  }

  void annotation(Sequence& seq, std::string_view bytes) {
    Fields fields(bytes);
    while (auto f = fields.next()) {
      if (f->number == 1) ++s_.arg_names[texts_[resolve(seq.arg_names, f->value, "annotation name")]];
      if (f->number == 17) resolve(seq.arg_texts, f->value, "annotation text");
    }
  }

  // Each track's slices in time order (ties in file order, as Perfetto's sorter keeps
  // them) must nest: an end closes the innermost open slice, none is left open.
  void finish() {
    std::unordered_map<std::uint32_t, long> slices_by_category, slices_by_name;
    if (primary_clock_ != kRealtime) problem("the trace's clock is not CLOCK_REALTIME");
    for (auto& [track, marks] : marks_) {
      std::stable_sort(marks.begin(), marks.end(), [](const Mark& a, const Mark& b) { return a.ts < b.ts; });
      std::vector<const Mark*> open;
      for (const Mark& m : marks) {
        if (m.begin) {
          open.push_back(&m);
          continue;
        }
        if (open.empty()) {
          problem("track " + std::to_string(track) + ": a slice ends with none open");
          continue;
        }
        ++slices_by_category[open.back()->category];
        ++slices_by_name[open.back()->name];
        open.pop_back();
      }
      if (!open.empty()) problem("track " + std::to_string(track) + ": " + std::to_string(open.size()) + " slices never end");
      const TrackInfo& info = tracks_.at(track);
      if (info.kind == "thread") ++s_.thread_names[info.name];
    }
    for (const auto& [text, n] : slices_by_category) s_.slices_by_category[texts_[text]] = n;
    for (const auto& [text, n] : slices_by_name) s_.slices_by_name[texts_[text]] = n;
    for (const auto& [uuid, info] : tracks_) {
      if (info.kind == "process") ++s_.process_names[info.name];
    }
    for (const auto& [id, n] : flow_starts_) {
      const auto end = flow_ends_.find(id);
      if (n != 1 || end == flow_ends_.end() || end->second != 1) {
        problem("flow " + std::to_string(id) + " does not begin once and end once");
      } else {
        ++s_.flows;
      }
    }
    for (const auto& [id, n] : flow_ends_) {
      if (!flow_starts_.contains(id)) problem("flow " + std::to_string(id) + " ends without beginning");
    }
  }

  PftraceSummary& s_;
  std::unordered_map<std::uint64_t, Sequence> sequences_;
  std::unordered_map<std::uint64_t, TrackInfo> tracks_;
  std::map<std::uint64_t, std::vector<Mark>> marks_;
  std::unordered_map<std::uint64_t, int> flow_starts_, flow_ends_;
  std::uint64_t primary_clock_ = 0;
  std::unordered_map<std::string, std::uint32_t> numbers_{{"", 0}};
  std::vector<std::string> texts_{""};
};

}  // namespace pftrace_reading

namespace pftrace_check {

PftraceSummary check_pftrace(const std::string& path) {
  PftraceSummary s;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    s.problems.push_back(path + ": cannot be read");
    return s;
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  pftrace_reading::Checker(s).trace(bytes);
  return s;
}

}  // namespace pftrace_check
