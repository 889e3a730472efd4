#pragma once
// An index from ids issued in sequence (CUPTI's correlation ids; the shim's operation
// ids, a thread's number above its own count) to small numbers, for the ids in flight:
// each id has one place in a flat array, its sequence number modulo the array's length,
// so that a lookup, an insertion or an erasure is one compare, with no hashing and no
// probing. Ids in flight are a window of the sequence: they do not collide while the
// array is longer than the window (it is kept twice as long as the ids it holds). The
// rare id whose place holds another goes to an IdTable beside the array. Not
// thread-safe.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "shim/activity/id_table.hpp"

namespace computeprof::shim {

template <typename Key>
class SequentialIdTable {
 public:
  static constexpr std::uint32_t kNone = IdTable<Key>::kNone;

  SequentialIdTable() : places_(kInitialLength), mask_(kInitialLength - 1) {}

  // The value of `key`, or kNone.
  std::uint32_t find(Key key) const {
    const Entry& e = places_[place(key)];
    if (e.value != kNone && e.key == key) return e.value;
    return displaced_.empty() ? kNone : find_displaced(key);
  }

  // Sets the value of `key` (not kNone), adding the key if absent.
  void assign(Key key, std::uint32_t value) {
    // The common case, a new key whose place is free, in a few instructions.
    Entry& e = places_[place(key)];
    if (e.value == kNone && displaced_.empty() && size_ != grow_at_) {
      e = {key, value};
      ++size_;
      return;
    }
    assign_otherwise(key, value);
  }

  // Removes `key`; false when it was absent.
  bool erase(Key key) {
    Entry& e = places_[place(key)];
    if (e.value != kNone && e.key == key) {
      e.value = kNone;
      --size_;
      return true;
    }
    return erase_displaced(key);
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  struct Entry {
    Key key{};
    std::uint32_t value = kNone;
  };

  // assign()'s other cases (an id present, displaced or to be displaced; a table to
  // grow), out of line: the common insertion does not pay for their frame.
  [[gnu::noinline]] void assign_otherwise(Key key, std::uint32_t value) {
    if (size_ == grow_at_) grow();
    Entry& e = places_[place(key)];
    if (e.value != kNone && e.key == key) {
      e.value = value;
      return;
    }
    // A key displaced once stays displaced until erased: it is never in both.
    if (!displaced_.empty() && displaced_.find(key) != kNone) {
      displaced_.assign(key, value);
      return;
    }
    ++size_;
    if (e.value == kNone) {
      e = {key, value};
    } else {
      displaced_.assign(key, value);
    }
  }

  // find()'s and erase()'s other cases, out of line for the same reason.
  [[gnu::noinline]] std::uint32_t find_displaced(Key key) const { return displaced_.find(key); }
  [[gnu::noinline]] bool erase_displaced(Key key) {
    if (displaced_.empty() || !displaced_.erase(key)) return false;
    --size_;
    return true;
  }

  // Operation ids carry their thread's number from bit 40 (shim/process/operation_ids.hpp):
  // each thread's window starts at a place of its own, far from the others'.
  std::size_t place(Key key) const {
    const auto k = static_cast<std::uint64_t>(key);
    return static_cast<std::size_t>(k + (k >> 40) * 0x9e3779b97f4a7c15u) & mask_;
  }

  void grow() {
    std::vector<Entry> old = std::move(places_);
    IdTable<Key> old_displaced = std::move(displaced_);
    displaced_ = IdTable<Key>();
    places_.assign(2 * old.size(), Entry{});
    mask_ = places_.size() - 1;
    grow_at_ = places_.size() / 2;
    size_ = 0;
    for (const Entry& e : old) {
      if (e.value != kNone) put_new(e.key, e.value);
    }
    old_displaced.for_each([this](Key key, std::uint32_t value) { put_new(key, value); });
  }

  // `key` is absent.
  void put_new(Key key, std::uint32_t value) {
    ++size_;
    Entry& e = places_[place(key)];
    if (e.value == kNone) {
      e = {key, value};
    } else {
      displaced_.assign(key, value);
    }
  }

  static constexpr std::size_t kInitialLength = 256;
  std::vector<Entry> places_;
  IdTable<Key> displaced_;
  std::size_t size_ = 0;  // in places_ and displaced_
  std::size_t mask_;
  // Half the places: ids in flight in sequence then have a place each.
  std::size_t grow_at_ = kInitialLength / 2;
};

}  // namespace computeprof::shim
