#pragma once
// An index from integer ids (CUPTI's correlation ids, the shim's external ids) to small
// numbers (places in the matcher's arrays): one flat array probed linearly, so that a
// lookup, an insertion or an erasure touches a cache line or two and allocates nothing
// once the table has grown to what is outstanding. Erasure shifts the entries behind
// back (no tombstones): a table that sees millions of ids stays as fast as a fresh one.
// Not thread-safe.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace computeprof::shim {

template <typename Key>
class IdTable {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  // The value of `key`, or kNone.
  std::uint32_t find(Key key) const {
    if (size_ == 0) return kNone;
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      const Entry& e = entries_[i];
      if (e.value == kNone) return kNone;
      if (e.key == key) return e.value;
    }
  }

  // Sets the value of `key` (not kNone), adding the key if absent.
  void assign(Key key, std::uint32_t value) {
    if (2 * (size_ + 1) > entries_.size()) grow();
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      Entry& e = entries_[i];
      if (e.value == kNone) {
        e = {key, value};
        ++size_;
        return;
      }
      if (e.key == key) {
        e.value = value;
        return;
      }
    }
  }

  // Removes `key`; false when it was absent.
  bool erase(Key key) {
    if (size_ == 0) return false;
    std::size_t hole = home(key);
    for (;; hole = (hole + 1) & mask_) {
      if (entries_[hole].value == kNone) return false;
      if (entries_[hole].key == key) break;
    }
    // Entries after the hole that could not sit at their home (or between it and the
    // hole) move back into it, so that every probe still finds its key before a gap.
    for (std::size_t next = (hole + 1) & mask_;; next = (next + 1) & mask_) {
      Entry& e = entries_[next];
      if (e.value == kNone) break;
      const std::size_t from_home = (next - home(e.key)) & mask_;
      const std::size_t from_hole = (next - hole) & mask_;
      if (from_home >= from_hole) {
        entries_[hole] = e;
        hole = next;
      }
    }
    entries_[hole].value = kNone;
    --size_;
    return true;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // `visit(key, value)` for every key, in no particular order.
  template <typename Visit>
  void for_each(Visit&& visit) const {
    for (const Entry& e : entries_) {
      if (e.value != kNone) visit(e.key, e.value);
    }
  }

 private:
  struct Entry {
    Key key{};
    std::uint32_t value = kNone;
  };

  // Fibonacci hashing: ids that differ in their low bits (consecutive ones) land far apart.
  std::size_t home(Key key) const {
    return static_cast<std::size_t>((static_cast<std::uint64_t>(key) * 0x9e3779b97f4a7c15u) >> shift_);
  }

  // Out of line: the common insertion does not pay for its frame. Keys are distinct and
  // the new table has room: each goes to the first free entry from its home.
  [[gnu::noinline]] void grow() {
    std::vector<Entry> old = std::move(entries_);
    const std::size_t capacity = old.empty() ? kInitialCapacity : 2 * old.size();
    entries_.assign(capacity, Entry{});
    mask_ = capacity - 1;
    shift_ = 64 - std::countr_zero(capacity);
    for (const Entry& e : old) {
      if (e.value == kNone) continue;
      std::size_t i = home(e.key);
      while (entries_[i].value != kNone) i = (i + 1) & mask_;
      entries_[i] = e;
    }
  }

  static constexpr std::size_t kInitialCapacity = 64;
  std::vector<Entry> entries_;
  std::size_t size_ = 0;
  std::size_t mask_ = 0;
  int shift_ = 64;
};

}  // namespace computeprof::shim
