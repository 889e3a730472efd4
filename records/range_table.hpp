#pragma once
// The program's NVTX names, domains and range paths, interned once for the whole
// process (docs/format.md, "NVTX ranges"): a record carries the id of the path of
// ranges open on its thread, and every output reads the text from here. Interning takes
// a lock, only the first time a thread meets a name or path (the shim caches ids per
// thread); reading an id's text takes none, so that the writer never waits for the
// application's threads.
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace computeprof::records {

// The bytes kept of one NVTX message: longer ones are cut (one line says so, once).
inline constexpr std::size_t kRangeNameLimit = 256;
// The bytes kept of a path's text, at most: ranges nested deeper are left out of it.
inline constexpr std::size_t kRangePathLimit = 1024;

// The zero bytes after every text the table keeps: a reader may load that many bytes
// from a text's start whatever its length (the shim's name caches compare words).
inline constexpr std::size_t kRangeTextPadding = 16;

// 0 is the empty name, the default domain and the empty path (no range open).
using RangeNameId = std::uint32_t;
using RangeDomainId = std::uint32_t;
using RangePathId = std::uint32_t;

// One step of a path: the range `name` of `domain` opened inside `parent`.
struct RangePathStep {
  RangePathId parent = 0;
  RangeDomainId domain = 0;
  RangeNameId name = 0;
  friend bool operator==(const RangePathStep&, const RangePathStep&) = default;
};

class RangeTable {
 public:
  RangeTable();
  RangeTable(const RangeTable&) = delete;
  RangeTable& operator=(const RangeTable&) = delete;

  // The id of `raw`, the program's bytes (at most kRangeNameLimit: the caller cuts). 0
  // for the empty text, and when the table is full (kCapacity names). Its text
  // (name()) is `raw` made safe for every output: valid UTF-8 (each invalid byte
  // U+FFFD), control characters as spaces, at most kRangeNameLimit bytes.
  RangeNameId intern_name(std::string_view raw);
  // A name read back from a run file, whose text the table that wrote it made safe: a
  // new id whatever the text (two raw names may share a safe text), so that ids read
  // back are the writer's. 0 when the table is full.
  RangeNameId append_name(std::string_view text);
  // A new domain named `name` (each creation is a domain of its own, as in NVTX).
  RangeDomainId add_domain(RangeNameId name);
  // The path `parent` + the range `name` of `domain`; 0 when the table is full.
  RangePathId intern_path(RangePathId parent, RangeDomainId domain, RangeNameId name);

  std::string_view name(RangeNameId id) const { return names_.at(id).text; }
  // The program's bytes the name was interned from (what the shim's caches compare),
  // followed by kRangeTextPadding zero bytes.
  std::string_view raw_name(RangeNameId id) const { return names_.at(id).raw; }
  RangeNameId domain_name(RangeDomainId id) const { return domains_.at(id).name; }
  RangePathStep step(RangePathId id) const { return paths_.at(id).step; }
  // The path's text: its ranges outermost first, joined by '/', each `name@domain`
  // outside the default domain.
  std::string_view path_text(RangePathId id) const { return paths_.at(id).text; }
  // The range's own name as outputs show it (`name`, or `name@domain`).
  std::string qualified_name(RangeDomainId domain, RangeNameId name) const;

  std::size_t name_count() const { return names_.size(); }
  std::size_t path_count() const { return paths_.size(); }
  std::size_t domain_count() const { return domains_.size(); }

  static constexpr std::size_t kChunk = 1024;
  static constexpr std::size_t kCapacity = kChunk * 1024;

 private:
  // Append-only, read without a lock: an entry is written before the count that shows
  // it, and chunks never move.
  template <typename Entry>
  class Entries {
   public:
    Entries() = default;
    Entries(const Entries&) = delete;
    Entries& operator=(const Entries&) = delete;
    ~Entries() {
      for (auto& chunk : chunks_) delete[] chunk.load(std::memory_order_relaxed);
    }
    const Entry& at(std::uint32_t id) const {
      if (id >= count_.load(std::memory_order_acquire)) return chunks_[0].load(std::memory_order_acquire)[0];
      return chunks_[id / kChunk].load(std::memory_order_acquire)[id % kChunk];
    }
    std::size_t size() const { return count_.load(std::memory_order_acquire); }
    // Under the table's lock; false when full.
    bool append(Entry entry, std::uint32_t& id);

   private:
    std::array<std::atomic<Entry*>, kCapacity / kChunk> chunks_{};
    std::atomic<std::uint32_t> count_{0};
  };
  struct NameEntry {
    std::string_view text;
    std::string_view raw;
  };
  struct DomainEntry {
    RangeNameId name = 0;
  };
  struct PathEntry {
    RangePathStep step;
    std::string_view text;
  };

  std::string_view keep(std::string_view text);

  std::mutex mutex_;
  // The texts entries point to (keep): freed with the table, which the process's never is.
  std::vector<std::unique_ptr<char[]>> texts_;
  Entries<NameEntry> names_;
  Entries<DomainEntry> domains_;
  Entries<PathEntry> paths_;
  std::unordered_map<std::string_view, RangeNameId> name_ids_;
  struct StepHash {
    std::size_t operator()(const RangePathStep& s) const {
      return (std::size_t{s.parent} * 0x9e3779b97f4a7c15ULL) ^ (std::size_t{s.domain} << 40) ^ s.name;
    }
  };
  std::unordered_map<RangePathStep, RangePathId, StepHash> path_ids_;
};

// `raw` as RangeTable keeps a name's text (intern_name).
std::string safe_range_text(std::string_view raw);

// The process's table: made at its first use, never freed (read until the very end).
RangeTable& range_table();

}  // namespace computeprof::records
